/** SQL for targets: one row per scanned host (name or address) per account. */
import { sql } from 'kysely';
import type { Db } from '../db/database.js';

export interface TargetKey {
  target: string;
  type: 'Domain' | 'Ip';
}

/**
 * Creates the targets that do not exist yet (status Unknown); returns the ids of all of them, in
 * one statement: the rows it inserted plus the ones that were already there.
 */
export async function ensureTargets(db: Db, userId: number, targets: TargetKey[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  if (targets.length === 0) return ids;
  const input = sql.join(targets.map((t) => sql`(${t.target}::text, ${t.type}::text)`));
  const result = await sql<{ id: number; target: string }>`
    with input (target, type) as (values ${input}),
    inserted as (
      insert into targets (user_id, target, type)
      select ${userId}, target, type from input
      on conflict (user_id, target) do nothing
      returning id, target
    )
    select id, target from inserted
    union all
    select targets.id, targets.target from targets join input using (target) where targets.user_id = ${userId}`.execute(db);
  for (const row of result.rows) ids.set(row.target, Number(row.id));
  return ids;
}

/** Records what a run saw of each host: Active if it answered, Inactive if not. */
export async function recordHostStates(
  db: Db,
  userId: number,
  states: (TargetKey & { status: 'Active' | 'Inactive' })[],
  scannedAt: Date,
): Promise<void> {
  if (states.length === 0) return;
  await db
    .insertInto('targets')
    .values(states.map((s) => ({ user_id: userId, target: s.target, type: s.type, status: s.status, last_scan: scannedAt })))
    .onConflict((oc) =>
      oc.columns(['user_id', 'target']).doUpdateSet({
        status: sql`excluded.status`,
        last_scan: sql`excluded.last_scan`,
        updated_at: sql`now()`,
      }),
    )
    .execute();
}
