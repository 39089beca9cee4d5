/** What the dashboard shows of an account's scans: the scheduled ones due next and the runs going now. */
import type { Db } from '../db/database.js';
import * as queries from './scans-overview.queries.js';

/** A scheduled scan as the dashboard lists it. */
export type DueScan = Awaited<ReturnType<typeof queries.scansDueNext>>[number] & { next_run_at: Date };
/** A current run as the dashboard lists it. */
export type CurrentRun = Awaited<ReturnType<typeof queries.currentRuns>>[number];

/** The account's `limit` scheduled scans due soonest. */
export async function scansDueNext(db: Db, userId: number, limit: number): Promise<DueScan[]> {
  return (await queries.scansDueNext(db, userId, limit)) as DueScan[];
}

/** The account's current runs (`Queued`, `Running n%`, `Awaiting agent`), the oldest first, at most `limit`. */
export function runsInProgress(db: Db, userId: number, limit: number): Promise<CurrentRun[]> {
  return queries.currentRuns(db, userId, limit);
}
