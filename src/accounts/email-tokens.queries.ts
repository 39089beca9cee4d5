/** SQL for the one-time links sent by email (email_tokens). */
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { EmailToken, EmailTokenPurpose } from '../db/schema.js';

export async function insertEmailToken(db: Db, row: { token_hash: string; user_id: number; purpose: EmailTokenPurpose; email: string; expires_at: Date }): Promise<void> {
  await db.insertInto('email_tokens').values(row).execute();
}

/**
 * Spends a token: marks it used and returns it, only if it exists, has this purpose, is unused and
 * has not expired. One statement, so two clicks on one link cannot both succeed.
 */
export function useEmailToken(db: Db, tokenHash: string, purpose: EmailTokenPurpose): Promise<EmailToken | undefined> {
  return db
    .updateTable('email_tokens')
    .set({ used_at: sql`now()` })
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .returningAll()
    .executeTakeFirst();
}

/** A token as stored, spent or not (to tell an expired or used link from an unknown one). */
export function findEmailToken(db: Db, tokenHash: string): Promise<EmailToken | undefined> {
  return db.selectFrom('email_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** How many links of a purpose an account was sent since a moment (the resend rate limit). */
export async function countEmailTokensSince(db: Db, userId: number, purpose: EmailTokenPurpose, since: Date): Promise<{ count: number; latest: Date | null }> {
  const row = await db
    .selectFrom('email_tokens')
    .select((eb) => [eb.fn.countAll<string>().as('count'), eb.fn.max('created_at').as('latest')])
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), latest: row.latest ? new Date(row.latest as Date) : null };
}

/** Voids an account's unused links of a purpose (a new password voids the other reset links). */
export async function voidEmailTokens(db: Db, userId: number, purpose: EmailTokenPurpose): Promise<void> {
  await db.updateTable('email_tokens').set({ used_at: sql`now()` }).where('user_id', '=', userId).where('purpose', '=', purpose).where('used_at', 'is', null).execute();
}

/** Voids an account's unused links of every purpose given (a new password, a disabled account or a claim voids them). */
export async function voidEmailTokensOf(db: Db, userId: number, purposes: EmailTokenPurpose[]): Promise<void> {
  await db.updateTable('email_tokens').set({ used_at: sql`now()` }).where('user_id', '=', userId).where('purpose', 'in', purposes).where('used_at', 'is', null).execute();
}
