/** SQL for targets: one row per scanned host (name or address) per account. */
import { sql } from 'kysely';
import type { Db } from '../db/database.js';

export interface TargetKey {
  target: string;
  type: 'Domain' | 'Ip';
}

/** Creates the targets that do not exist yet (status Unknown); returns the ids of all of them. */
export async function ensureTargets(db: Db, userId: number, targets: TargetKey[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  if (targets.length === 0) return ids;
  await db
    .insertInto('targets')
    .values(targets.map((t) => ({ user_id: userId, target: t.target, type: t.type })))
    .onConflict((oc) => oc.columns(['user_id', 'target']).doNothing())
    .execute();
  const rows = await db
    .selectFrom('targets')
    .select(['id', 'target'])
    .where('user_id', '=', userId)
    .where('target', 'in', targets.map((t) => t.target))
    .execute();
  for (const row of rows) ids.set(row.target, row.id);
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
