/**
 * A scan's runs: the API's view of them, queueing new ones, and the queue's operations the run
 * worker, the scheduler and the lease reaper (src/runs/) use. The runs table is the queue.
 */
import type { Db } from '../db/database.js';
import type { Run, Scan } from '../db/schema.js';
import { availableFormats } from '../shared/report-formats.js';
import type { RunResource } from './scans.schema.js';
import * as agentRunEnds from './agent-run-ends.queries.js';
import * as runs from './runs.queries.js';
import type { RunQueue } from './run-queue.js';

export { AWAITING_AGENT } from './runs.queries.js';

/** Queues a run; undefined when the scan already has a current run (or the period its run). */
export async function enqueueRun(
  db: Db,
  queue: RunQueue | undefined,
  run: { scanId: number; trigger: 'create' | 'schedule' | 'rerun'; scheduledFor?: Date | null; progress?: string },
): Promise<Run | undefined> {
  const created = await runs.insertRun(db, run);
  if (created) queue?.notify();
  return created;
}

export const findCurrentRun = runs.findCurrentRun;
export const findRunById = runs.findRunById;
/** The run of the scan with this index, or its latest completed run when no index is given. */
export const findRunOfScan = runs.findRunOfScan;
/** Stores a run's attack narrative once; returns the one kept (the first writer's). */
export const keepRunNarrative = runs.keepRunNarrative;
export const previousSucceededRun = runs.previousSucceededRun;

/** Claims the oldest queued run for a worker with a lease (`FOR UPDATE SKIP LOCKED`). */
export const claimRun = runs.claimRun;
/** Extends a worker's lease on its run; false when the worker no longer holds it. */
export const renewLease = runs.renewLease;
/** Gives a run back to the queue without counting an attempt (a worker stopping). */
export const releaseLease = runs.releaseLease;
/** Puts runs whose lease expired back in the queue, once. */
export const requeueExpiredRuns = runs.requeueExpiredRuns;
/** Ends a scheduled Unmanaged run no agent took before the next was due. */
export const endMissedRun = agentRunEnds.endMissedRun;
/** Stops a scheduled Unmanaged run an agent still holds when the next is due. */
export const endOverdueAgentRun = agentRunEnds.endOverdueAgentRun;
/** Puts runs whose local agent stopped heart-beating back to awaiting an agent. */
export const returnExpiredAgentRuns = agentRunEnds.returnExpiredAgentRuns;
/** Fails runs whose lease expired once too often or that no worker took over. */
export const failExpiredRuns = runs.failExpiredRuns;
/** Stores a running run's progress and host counts. */
export const recordProgress = runs.recordProgress;
/** Completes a run with its outcome. */
export const finishRun = runs.finishRun;
/** Locks the scan's current run (if any) for an import, in the import's transaction. */
export const lockCurrentRunForImport = runs.lockCurrentRunForImport;
/** Inserts the completed-to-be run of an import, with the scan's next run index. */
export const insertImportRun = runs.insertImportRun;

export function toRunResource(run: Run): RunResource {
  return {
    run_index: run.run_index,
    run_folder: run.id,
    status: run.status,
    outcome: run.outcome,
    completed_at: run.completed_at?.toISOString() ?? null,
    scan_progress: run.progress,
    available_formats: availableFormats(run),
    trigger: run.trigger,
    engine: run.engine,
    engine_version: run.engine_version,
    engine_detail: run.engine_detail,
    queued_at: run.queued_at.toISOString(),
    started_at: run.started_at?.toISOString() ?? null,
    error: run.error,
    error_kind: run.error_kind,
    hosts_up: run.hosts_up,
    hosts_down: run.hosts_down,
    findings_count: run.findings_count,
    lifecycle: { new: run.new_findings, still_open: run.still_open_findings, fixed: run.fixed_findings, regressed: run.regressed_findings },
    notes: run.notes,
  };
}

/** GET /api/scans/{uuid}/runs. */
export async function runsSummary(db: Db, scan: Scan) {
  const all = await runs.listRuns(db, scan.id);
  const latest = all.at(-1);
  return {
    scan: {
      uuid: scan.uuid,
      name: scan.scan_name,
      type: scan.scan_type,
      current_progress: latest?.progress ?? (scan.next_run_at ? 'Scheduled' : 'Not started'),
      run_count: all.filter((r) => r.status === 'completed').length,
      total_runs: all.length,
    },
    runs: all.map(toRunResource),
  };
}
