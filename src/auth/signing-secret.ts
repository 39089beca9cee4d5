/**
 * The deployment's signing secret and the keys derived from it. The secret is RAMPART_JWT_SECRET,
 * or a random one generated once and kept in the store so that every process of a deployment
 * shares it. JWTs are signed with the secret itself; every other use (report links) gets its own
 * key derived with HKDF-SHA256, so a value signed for one purpose is never valid for another.
 */
import { hkdfSync } from 'node:crypto';
import type { Db } from '../db/database.js';
import { randomToken } from '../shared/crypto.js';
import { getOrInsertSetting } from './settings.queries.js';

/** The uses of derived keys; each purpose gets a key of its own. */
export type KeyPurpose = 'report-links';

/** RAMPART_JWT_SECRET when configured, else the store's generated secret (created on first use). */
export async function deploymentSecret(db: Db, configured: string | undefined): Promise<string> {
  return configured ?? (await getOrInsertSetting(db, 'jwt_signing_key', randomToken(48)));
}

/** A 32-byte key for one purpose: HKDF-SHA256 of the deployment secret, the purpose as its info. */
export async function derivedKey(db: Db, configured: string | undefined, purpose: KeyPurpose): Promise<Buffer> {
  const secret = await deploymentSecret(db, configured);
  return Buffer.from(hkdfSync('sha256', secret, 'rampart', `rampart/${purpose}/v1`, 32));
}
