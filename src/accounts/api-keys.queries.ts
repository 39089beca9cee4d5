/** SQL for API keys. Keys are found by the SHA-256 of the whole key, never by the key itself. */
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { ApiKey, User } from '../db/schema.js';

export function insertApiKey(db: Db, key: { user_id: number; name: string; prefix: string; key_hash: string }): Promise<ApiKey> {
  return db.insertInto('api_keys').values(key).returningAll().executeTakeFirstOrThrow();
}

/** The key with that hash and its owner, stamping last_used_at in the same statement. */
export async function useApiKeyByHash(db: Db, keyHash: string): Promise<{ key: ApiKey; user: User } | undefined> {
  const key = await db
    .updateTable('api_keys')
    .set({ last_used_at: sql`now()` })
    .where('key_hash', '=', keyHash)
    .returningAll()
    .executeTakeFirst();
  if (!key) return undefined;
  const user = await db.selectFrom('users').selectAll().where('id', '=', key.user_id).executeTakeFirst();
  return user ? { key, user } : undefined;
}

export function listApiKeys(db: Db, userId: number): Promise<ApiKey[]> {
  return db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

export async function apiKeyExists(db: Db, id: number, userId: number): Promise<boolean> {
  const row = await db.selectFrom('api_keys').select('id').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return row !== undefined;
}

/** Deletes the user's key matching the prefix or the hash; returns the deleted key. */
export function deleteApiKey(db: Db, userId: number, match: { prefix?: string; keyHash?: string }): Promise<ApiKey | undefined> {
  return db
    .deleteFrom('api_keys')
    .where('user_id', '=', userId)
    .where((eb) =>
      eb.or([
        ...(match.prefix ? [eb('prefix', '=', match.prefix)] : []),
        ...(match.keyHash ? [eb('key_hash', '=', match.keyHash)] : []),
      ]),
    )
    .returningAll()
    .executeTakeFirst();
}

/** Deletes the user's key with that id (another account's key is not touched); returns it. */
export function deleteApiKeyById(db: Db, userId: number, id: number): Promise<ApiKey | undefined> {
  return db.deleteFrom('api_keys').where('id', '=', id).where('user_id', '=', userId).returningAll().executeTakeFirst();
}

/** Deletes every API key of an account; returns how many there were. */
export async function deleteUserApiKeys(db: Db, userId: number): Promise<number> {
  const rows = await db.deleteFrom('api_keys').where('user_id', '=', userId).returning('id').execute();
  return rows.length;
}
