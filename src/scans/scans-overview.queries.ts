/**
 * SQL for the dashboard's boxes of scans and runs: one bounded statement per box. Current runs
 * are few (the `runs_queue_idx` partial index holds only them), and an account's scheduled scans
 * are read in due order through `scans_user_id_idx`.
 */
import type { Db } from '../db/database.js';

/** The account's scheduled scans, the soonest due first, at most `limit`. */
export function scansDueNext(db: Db, userId: number, limit: number) {
  return db
    .selectFrom('scans')
    .select(['uuid', 'scan_name', 'scan_type', 'scan_target', 'scan_frequency', 'scan_time_zone', 'next_run_at'])
    .where('user_id', '=', userId)
    .where('next_run_at', 'is not', null)
    .orderBy('next_run_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The account's current runs (queued, running, awaiting an agent), the oldest queued first, at most `limit`. */
export function currentRuns(db: Db, userId: number, limit: number) {
  return db
    .selectFrom('runs')
    .innerJoin('scans', 'scans.id', 'runs.scan_id')
    .select([
      'scans.uuid',
      'scans.scan_name',
      'scans.scan_type',
      'runs.run_index',
      'runs.progress',
      'runs.progress_percent',
      'runs.trigger',
      'runs.queued_at',
      'runs.started_at',
    ])
    .where('runs.status', '=', 'current')
    .where('scans.user_id', '=', userId)
    .orderBy('runs.queued_at')
    .orderBy('runs.id')
    .limit(limit)
    .execute();
}
