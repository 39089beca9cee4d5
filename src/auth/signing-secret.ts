/**
 * The deployment's signing secret and the keys derived from it. The secret is RAMPART_JWT_SECRET,
 * or a random one generated once and kept in the store so that every process of a deployment
 * shares it. JWTs are signed with the secret itself; every other use (report links) gets its own
 * key derived with HKDF-SHA256, so a value signed for one purpose is never valid for another.
 */
import { hkdfSync } from 'node:crypto';
import type { Db } from '../db/database.js';
import { randomToken } from '../shared/crypto.js';
import { deleteSetting, getOrInsertSetting } from './settings.queries.js';

const GENERATED_KEY = 'jwt_signing_key';

/** The uses of derived keys; each purpose gets a key of its own. */
export type KeyPurpose = 'report-links' | 'csrf' | 'cookies';

/** The generated secret once read, per store handle: it never changes while a process runs. */
const generated = new WeakMap<Db, Promise<string>>();

/**
 * RAMPART_JWT_SECRET when configured, else the store's generated secret (created on first use).
 * Read once per store handle: report links would otherwise cost a write and a read each.
 */
export async function deploymentSecret(db: Db, configured: string | undefined): Promise<string> {
  if (configured !== undefined) return configured;
  let secret = generated.get(db);
  if (!secret) {
    secret = getOrInsertSetting(db, GENERATED_KEY, randomToken(48));
    generated.set(db, secret);
    secret.catch(() => generated.delete(db));
  }
  return secret;
}

/**
 * Removes the generated secret from the store (and this process's copy): once the operator
 * configures one, the generated key must never come back into use.
 */
export async function discardGeneratedSecret(db: Db): Promise<void> {
  generated.delete(db);
  await deleteSetting(db, GENERATED_KEY);
}

/** A 32-byte key for one purpose: HKDF-SHA256 of the deployment secret, the purpose as its info. */
export async function derivedKey(db: Db, configured: string | undefined, purpose: KeyPurpose): Promise<Buffer> {
  const secret = await deploymentSecret(db, configured);
  return Buffer.from(hkdfSync('sha256', secret, 'rampart', `rampart/${purpose}/v1`, 32));
}
