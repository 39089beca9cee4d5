/**
 * The lease reaper: finds runs whose worker stopped heart-beating and either puts them back in
 * the queue (once) or fails them. It is its own loop, started by every long-running role (API,
 * worker, scheduler), so a dead worker's run is handled even when no worker has a free slot or
 * no worker is alive at all. Any number of reapers may run: each row is locked with SKIP LOCKED.
 *
 * A run's life after its worker dies: lease expired → re-queued ("Queued", attempts kept) with a
 * takeover deadline one lease away → claimed by a worker as attempt 2, or failed at the deadline
 * with NOT_TAKEN_OVER. Attempt 2's worker dying too fails the run with OUT_OF_ATTEMPTS.
 *
 * A run held by a local agent (lease owner `agent:...`) whose lease expired goes back to
 * "Awaiting agent" instead, with no attempts limit (docs/AGENT.md).
 */
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../shared/logger.js';
import { PollLoop } from '../shared/poll-loop.js';
import { findScanById } from '../scans/scans.service.js';
import type { RunQueue } from '../scans/run-queue.js';
import { queueRunEndNotices } from './run-end.js';
import { failExpiredRuns, requeueExpiredRuns, returnExpiredAgentRuns } from '../scans/runs.service.js';

/** A run is tried at most twice: once, and once more if its first worker died. */
export const MAX_RUN_ATTEMPTS = 2;
const OUT_OF_ATTEMPTS = 'The worker running this scan stopped responding twice; the run was stopped. Run the scan again.';

/** The error of a re-queued run that no worker claimed within the takeover window. */
export function notTakenOverError(seconds: number): string {
  return `The worker running this scan stopped and no worker took it over within ${seconds} s; the run was stopped. Run the scan again.`;
}

export interface ReaperDeps {
  db: Db;
  config: Config;
  log: Logger;
  queue: RunQueue;
}

/** One pass: re-queues runs with an attempt left, fails the rest; returns how many of each. */
export async function reapExpiredLeases(deps: ReaperDeps): Promise<{ requeued: number; failed: number; awaitingAgent: number }> {
  const { db, config, log } = deps;
  const seconds = config.worker.leaseSeconds;
  const returned = await returnExpiredAgentRuns(db);
  for (const run of returned) log.warn({ run_id: run.id, agent_id: run.agent_id }, 'run awaits an agent again: its agent stopped responding');
  const requeued = await requeueExpiredRuns(db, MAX_RUN_ATTEMPTS, seconds);
  for (const run of requeued) log.warn({ run_id: run.id, attempts: run.attempts }, 'run re-queued: its worker stopped responding');
  if (requeued.length) deps.queue.notify();
  // The failure, its report email and its webhook events commit together, as a worker's would.
  const failed = await db.transaction().execute(async (trx) => {
    const runs = await failExpiredRuns(trx, MAX_RUN_ATTEMPTS, { outOfAttempts: OUT_OF_ATTEMPTS, notTakenOver: notTakenOverError(seconds) });
    for (const run of runs) {
      const scan = await findScanById(trx, run.scan_id);
      if (scan) await queueRunEndNotices(trx, config, scan, run);
    }
    return runs;
  });
  for (const run of failed) log.warn({ run_id: run.id, error: run.error }, 'run failed: its worker stopped responding');
  return { requeued: requeued.length, failed: failed.length, awaitingAgent: returned.length };
}

/** Reaps every half lease: a dead worker's run waits at most 1.5 leases to be re-queued. */
export function createLeaseReaper(deps: ReaperDeps): PollLoop {
  const tick = async () => {
    await reapExpiredLeases(deps);
    return false;
  };
  return new PollLoop(tick, (deps.config.worker.leaseSeconds * 1000) / 2, (error) => deps.log.error({ err: error }, 'lease reaper could not reach the store; retrying'));
}
