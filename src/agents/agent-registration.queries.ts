/** SQL for agent registrations (verified-email one-time codes). */
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { AgentRegistration } from '../db/schema.js';

export async function insertRegistration(
  db: Db,
  row: {
    id: string;
    email: string;
    name: string | null;
    key_name: string | null;
    code_hash: string;
    claim_token_hash: string;
    client_address: string;
    expires_at: Date;
    created_at: Date;
  },
): Promise<void> {
  await db.insertInto('agent_registrations').values(row).execute();
}

/**
 * Serialises the starts for one email address and one client address until the transaction ends,
 * so two parallel starts cannot both see room under a cap and both send a code. Email first, then
 * client, in every transaction: no two can wait on each other.
 */
export async function lockStarts(db: Db, email: string, clientAddress: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`agent-auth:email:${email.toLowerCase()}`}, 0))`.execute(db);
  await sql`select pg_advisory_xact_lock(hashtextextended(${`agent-auth:client:${clientAddress}`}, 0))`.execute(db);
}

/**
 * When the `max`-th newest start since `since` was made, for one email address or one client
 * address: undefined while fewer than `max` were made (room left); otherwise the slot frees when
 * that start leaves the window.
 */
export async function maxthRecentStart(
  db: Db,
  by: { email: string } | { clientAddress: string },
  since: Date,
  max: number,
): Promise<Date | undefined> {
  // Each side matches its index: (lower(email), created_at) and (client_address, created_at).
  const [column, value] = 'email' in by ? [sql`lower(email)`, by.email.toLowerCase()] : [sql`client_address`, by.clientAddress];
  const row = await db
    .selectFrom('agent_registrations')
    .select('created_at')
    .where(column, '=', value)
    .where('created_at', '>', since)
    .orderBy('created_at', 'desc')
    .offset(max - 1)
    .limit(1)
    .executeTakeFirst();
  return row?.created_at;
}

/**
 * Reserves one claim attempt, atomically: counts it only if the registration is open (not claimed,
 * not expired, attempts left) and the claim token matches, and returns the row as it is after the
 * count. Only a request that got a row may compare its code, so parallel guesses cannot outrun
 * the limit.
 */
export function reserveAttempt(
  db: Db,
  input: { id: string; claimTokenHash: string; maxAttempts: number; now: Date },
): Promise<AgentRegistration | undefined> {
  return db
    .updateTable('agent_registrations')
    .set({ attempts: sql`attempts + 1` })
    .where('id', '=', input.id)
    .where('claim_token_hash', '=', input.claimTokenHash)
    .where('attempts', '<', input.maxAttempts)
    .where('claimed_at', 'is', null)
    .where('expires_at', '>', input.now)
    .returningAll()
    .executeTakeFirst();
}

export function findRegistration(db: Db, id: string): Promise<AgentRegistration | undefined> {
  return db.selectFrom('agent_registrations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Marks the registration claimed; false when another request claimed it first. */
export async function markClaimed(db: Db, id: string, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('agent_registrations')
    .set({ claimed_at: now })
    .where('id', '=', id)
    .where('claimed_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
