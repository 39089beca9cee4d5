/** SQL for browser sessions (web_sessions). */
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { User, WebSession } from '../db/schema.js';

export async function insertSession(db: Db, row: { id_hash: string; user_id: number; idle_expires_at: Date; expires_at: Date; user_agent: string | null; address: string | null }): Promise<void> {
  await db.insertInto('web_sessions').values(row).execute();
}

/**
 * The live session of a cookie and its account, sliding its idle expiry forward. A session past
 * either expiry, or of a disabled account, is not returned.
 */
export async function touchSession(db: Db, idHash: string, idleExpiresAt: Date): Promise<{ session: WebSession; user: User } | undefined> {
  const session = await db
    .updateTable('web_sessions')
    .set({ last_seen_at: sql`now()`, idle_expires_at: sql`least(${idleExpiresAt}::timestamptz, expires_at)` })
    .where('id_hash', '=', idHash)
    .where('idle_expires_at', '>', sql<Date>`now()`)
    .where('expires_at', '>', sql<Date>`now()`)
    .returningAll()
    .executeTakeFirst();
  if (!session) return undefined;
  const user = await db.selectFrom('users').selectAll().where('id', '=', session.user_id).where('disabled_at', 'is', null).executeTakeFirst();
  return user ? { session, user } : undefined;
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('id_hash', '=', idHash).execute();
}

/** Ends every session of an account, but the one kept (a password change keeps the browser that made it). */
export async function deleteUserSessions(db: Db, userId: number, keepIdHash?: string): Promise<number> {
  let query = db.deleteFrom('web_sessions').where('user_id', '=', userId);
  if (keepIdHash) query = query.where('id_hash', '!=', keepIdHash);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

