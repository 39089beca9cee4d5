/** SQL for scans. Every read is scoped to the owning account. */
import { sql, type Insertable, type Updateable } from 'kysely';
import type { Db } from '../db/database.js';
import type { Scan, ScansTable } from '../db/schema.js';
import { containsPattern } from '../db/like-pattern.js';

export function insertScan(db: Db, scan: Insertable<ScansTable>): Promise<Scan> {
  return db.insertInto('scans').values(scan).returningAll().executeTakeFirstOrThrow();
}

export function findScan(db: Db, userId: number, uuid: string): Promise<Scan | undefined> {
  return db.selectFrom('scans').selectAll().where('user_id', '=', userId).where('uuid', '=', uuid).executeTakeFirst();
}

export function findScanById(db: Db, id: number): Promise<Scan | undefined> {
  return db.selectFrom('scans').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * A scan by uuid whoever owns it: only for a caller that has proved its right to the scan some
 * other way (a signed report link); every request of an account uses findScan.
 */
export function findScanByUuid(db: Db, uuid: string): Promise<Scan | undefined> {
  return db.selectFrom('scans').selectAll().where('uuid', '=', uuid).executeTakeFirst();
}

/** The account's scans, newest first, each with the progress of its latest run and when a run last ended. */
export function listScans(db: Db, userId: number) {
  return db
    .selectFrom('scans')
    .selectAll('scans')
    .select((eb) =>
      eb
        .selectFrom('runs')
        .select('runs.progress')
        .whereRef('runs.scan_id', '=', 'scans.id')
        .orderBy('runs.run_index', 'desc')
        .limit(1)
        .as('current_progress'),
    )
    // When its latest run ended (the list page's "last run"); the API's resource leaves it out.
    .select((eb) =>
      eb
        .selectFrom('runs')
        .select((inner) => inner.fn.max('runs.completed_at').as('completed_at'))
        .whereRef('runs.scan_id', '=', 'scans.id')
        .as('last_completed_at'),
    )
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .execute();
}

export async function updateScan(db: Db, id: number, changes: Updateable<ScansTable>): Promise<Scan> {
  return db
    .updateTable('scans')
    .set({ ...changes, updated_at: sql`now()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteScan(db: Db, id: number): Promise<void> {
  await db.deleteFrom('scans').where('id', '=', id).execute();
}

/**
 * Locks up to `limit` scans due at `now`, skipping scans another scheduler holds: each due
 * period is seen by exactly one scheduler.
 */
export function lockDueScans(db: Db, now: Date, limit: number): Promise<Scan[]> {
  return db
    .selectFrom('scans')
    .selectAll()
    .where('next_run_at', '<=', now)
    // A disabled account's schedules do not fire; they catch up when an admin enables it again.
    .where((eb) => eb.not(eb.exists(eb.selectFrom('users').select('users.id').whereRef('users.id', '=', 'scans.user_id').where('users.disabled_at', 'is not', null))))
    .orderBy('next_run_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

export async function setNextRunAt(db: Db, id: number, nextRunAt: Date | null): Promise<void> {
  await db.updateTable('scans').set({ next_run_at: nextRunAt }).where('id', '=', id).execute();
}

/** Ids of the account's scans whose name holds `text` (case-insensitive). */
export async function scanIdsNamedLike(db: Db, userId: number, text: string): Promise<number[]> {
  const rows = await db.selectFrom('scans').select('id').where('user_id', '=', userId).where('scan_name', 'ilike', containsPattern(text)).execute();
  return rows.map((row) => row.id);
}
