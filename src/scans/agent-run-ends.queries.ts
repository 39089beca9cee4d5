/**
 * SQL for the ends of runs that await or are held by a local agent (lease owner `agent:<lease
 * hash>`): given back when the agent goes quiet, missed when none took one, stopped when one is
 * still held as the next is due.
 */
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { Run } from '../db/schema.js';
import { AWAITING_AGENT } from './runs.queries.js';

/**
 * Puts runs whose local agent stopped heart-beating back to awaiting an agent: the lease is
 * cleared (any agent may take the run; the old attempt's lease hash too, so its late `complete`
 * is a 409, never a replayed 200) and the attempt's chunks stay until the next take. No
 * attempts limit: an agent's machine may sleep or lose its network many times.
 */
export async function returnExpiredAgentRuns(db: Db): Promise<Run[]> {
  const result = await sql<Run>`
    update runs set lease_owner = null, lease_expires_at = null, agent_lease_hash = null, progress = ${AWAITING_AGENT}
    where id in (
      select id from runs
      where status = 'current' and lease_owner like 'agent:%' and lease_expires_at < now()
      for update skip locked
    )
    returning *`.execute(db);
  return result.rows;
}

/**
 * Ends a run no local agent took before the next one was due: completed, failed, `Missed`.
 * Undefined when an agent took it meanwhile (it is then left to finish). No attempt finished it,
 * so no lease hash stays (an old attempt's `complete` is a 409) and its chunks are deleted.
 */
export async function endMissedRun(db: Db, runId: number, error: string): Promise<Run | undefined> {
  const missed = await db
    .updateTable('runs')
    .set({ status: 'completed', outcome: 'failed', progress: 'Missed', error, error_kind: 'missed', completed_at: sql`now()`, lease_expires_at: null, agent_lease_hash: null })
    .where('id', '=', runId)
    .where('status', '=', 'current')
    .where('lease_owner', 'is', null)
    .where('progress', '=', AWAITING_AGENT)
    .returningAll()
    .executeTakeFirst();
  if (missed) await db.deleteFrom('agent_chunks').where('run_id', '=', runId).execute();
  return missed;
}

/**
 * Ends a run a local agent still holds when the next one is due (a hung scan, or one longer than
 * its period): cancelled, failure kind `deadline`. The attempt's lease hash stays, so that its next
 * heartbeat answers `cancel` (the agent stops) and its `complete` is a 409; its chunks are deleted.
 * Undefined when the run ended meanwhile, or is locked: an agent completing it holds the run's
 * row and then needs the scan's, which the scheduler holds, so waiting here would deadlock.
 */
export async function endOverdueAgentRun(db: Db, runId: number, error: string): Promise<Run | undefined> {
  const result = await sql<Run>`
    update runs set status = 'completed', outcome = 'cancelled', progress = 'Cancelled', error = ${error},
      error_kind = 'deadline', completed_at = now(), lease_owner = null, lease_expires_at = null
    where id in (
      select id from runs where id = ${runId} and status = 'current' and lease_owner like 'agent:%'
      for update skip locked
    )
    returning *`.execute(db);
  const ended = result.rows[0];
  if (ended) await db.deleteFrom('agent_chunks').where('run_id', '=', runId).execute();
  return ended;
}
