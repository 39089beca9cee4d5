/**
 * Imported results (POST /api/scans/{uuid}/results, `rampart import`): a file's hosts and
 * findings become a completed run of the scan, recorded through the same run recorder as a
 * worker's run, so labels, target states, the report email and webhook events follow as for any
 * run. The whole import is one transaction: an error thrown while reading the events (a parse
 * error) leaves nothing behind.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Run, Scan } from '../db/schema.js';
import type { EngineEvent } from '../engines/engine.js';
import { AppError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { startRunRecorder, type RecorderOptions, type RunEnd } from './run-recorder.js';
import { AWAITING_AGENT, insertImportRun, lockCurrentRunForImport } from '../scans/runs.service.js';

const IN_PROGRESS = 'A run of this scan is in progress; upload the results when it has ended.';

/** Where imported results come from: the importing tool, and what it read. */
export interface ImportSource {
  engine: { name: string; version: string };
  events: AsyncIterable<EngineEvent>;
}

/** The run imported results go to: the run awaiting its agent, else a new one; 409 while a worker runs one. */
async function importTarget(trx: Db, scanId: number): Promise<Run> {
  const current = await lockCurrentRunForImport(trx, scanId);
  if (current) {
    if (current.progress === AWAITING_AGENT && current.lease_owner === null) return current;
    throw new AppError('conflict', IN_PROGRESS, { context: { scan_id: scanId, run_id: current.id } });
  }
  const created = await insertImportRun(trx, scanId);
  // A worker's run queued between the lock and the insert (a schedule coming due).
  if (!created) throw new AppError('conflict', IN_PROGRESS, { context: { scan_id: scanId } });
  return created;
}

/**
 * Feeds `events` to a run recorder of `run` and ends the run with `end`, inside the transaction
 * `deps.db`: every way a whole batch of results becomes a run (an upload, a local agent's
 * completed attempt) goes through here. `ended` is false when `options.owner` no longer holds the
 * run (the caller decides what that means); whatever `events` throws is rethrown.
 */
export async function recordRunEvents(
  deps: { db: Db; config: Config; log: Logger },
  run: Run,
  scan: Scan,
  options: RecorderOptions,
  events: AsyncIterable<EngineEvent> | Iterable<EngineEvent>,
  end: RunEnd,
): Promise<{ ended: boolean; findings: number }> {
  const recorder = await startRunRecorder(deps, run, scan, options);
  for await (const event of events) await recorder.record(event);
  const ended = await recorder.finish(end);
  return { ended, findings: recorder.counts.findings };
}

/**
 * Records `source` as a completed run of `scan`, in one transaction; returns the run's index and
 * how many findings it stored. Throws AppError 'conflict' while a worker runs the scan, and
 * rethrows whatever `source.events` throws (nothing is kept then).
 */
export async function importRun(
  deps: { db: Db; config: Config; log: Logger },
  scan: Scan,
  source: ImportSource,
): Promise<{ runIndex: number; findings: number }> {
  const work = async (trx: Db) => {
    const run = await importTarget(trx, scan.id);
    const recorded = await recordRunEvents(
      { ...deps, db: trx },
      run,
      scan,
      { owner: null, engine: source.engine, unreportedTargetsDown: false, vulnDbSyncedAt: null },
      source.events,
      { outcome: 'succeeded', error: null, complete: true },
    );
    if (!recorded.ended) throw new AppError('conflict', IN_PROGRESS, { context: { scan_id: scan.id, run_id: run.id } });
    deps.log.info({ scan_id: scan.id, run_id: run.id, engine: source.engine.name, findings: recorded.findings }, 'results imported');
    return { runIndex: run.run_index, findings: recorded.findings };
  };
  return deps.db.isTransaction ? work(deps.db) : deps.db.transaction().execute(work);
}
