/** SQL for OpenID Connect sign-ins in flight (oidc_logins). */
import type { Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { OidcLoginsTable } from '../db/schema.js';

/** A stored sign-in between the redirect to the provider and its callback. */
export type OidcLogin = Selectable<OidcLoginsTable>;

/** Stores a sign-in in flight. */
export async function insertOidcLogin(db: Db, row: { state_hash: string; code_verifier: string; nonce: string; return_to: string; expires_at: Date }): Promise<void> {
  await db.insertInto('oidc_logins').values(row).execute();
}

/**
 * Removes a sign-in and returns it, expired or not (the caller tells an expired one from an
 * unknown one). One statement, so two callbacks with the same state cannot both get it.
 */
export function takeOidcLogin(db: Db, stateHash: string): Promise<OidcLogin | undefined> {
  return db.deleteFrom('oidc_logins').where('state_hash', '=', stateHash).returningAll().executeTakeFirst();
}

/** Removes the sign-ins that expired before `now` (abandoned at the provider). */
export async function deleteExpiredOidcLogins(db: Db, now: Date): Promise<void> {
  await db.deleteFrom('oidc_logins').where('expires_at', '<', now).execute();
}
