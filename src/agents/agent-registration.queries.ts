/** SQL for agent registrations (verified-email one-time codes). */
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { AgentRegistration } from '../db/schema.js';

export async function insertRegistration(
  db: Db,
  row: { id: string; email: string; name: string | null; key_name: string | null; code_hash: string; expires_at: Date },
): Promise<void> {
  await db.insertInto('agent_registrations').values(row).execute();
}

export async function countRecentRegistrations(db: Db, email: string, since: Date): Promise<number> {
  const row = await db
    .selectFrom('agent_registrations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The registration if it can still be claimed: not claimed, not expired, attempts left. */
export function findOpenRegistration(db: Db, id: string, maxAttempts: number): Promise<AgentRegistration | undefined> {
  return db
    .selectFrom('agent_registrations')
    .selectAll()
    .where('id', '=', id)
    .where('claimed_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now()`)
    .where('attempts', '<', maxAttempts)
    .executeTakeFirst();
}

export async function recordFailedAttempt(db: Db, id: string): Promise<void> {
  await db.updateTable('agent_registrations').set({ attempts: sql`attempts + 1` }).where('id', '=', id).execute();
}

/** Marks the registration claimed; false when another request claimed it first. */
export async function markClaimed(db: Db, id: string): Promise<boolean> {
  const row = await db
    .updateTable('agent_registrations')
    .set({ claimed_at: sql`now()` })
    .where('id', '=', id)
    .where('claimed_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
