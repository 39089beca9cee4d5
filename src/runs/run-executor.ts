/**
 * Executes one claimed run: picks the engine, builds its job from the scan, and feeds what the
 * engine yields to the run recorder (run-recorder.ts), which stores it under this worker's lease
 * and ends the run.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Run } from '../db/schema.js';
import { EngineError, type Engine, type EngineEvent, type JobTarget } from '../engines/engine.js';
import type { AddressGuard } from '../shared/address-guard.js';
import type { Logger } from '../shared/logger.js';
import { findScanById } from '../scans/scans.service.js';
import { createVulnerabilityLookup } from '../vulndb/vulndb.service.js';
import type { EngineRegistry } from './engines.js';
import { startRunRecorder } from './run-recorder.js';

export interface ExecutorDeps {
  db: Db;
  config: Config;
  guard: AddressGuard;
  engines: EngineRegistry;
  log: Logger;
}

/** Runs the job to its end. Returns false when the run was abandoned (aborted) and not completed. */
export async function executeRun(deps: ExecutorDeps, run: Run, workerId: string, signal: AbortSignal): Promise<boolean> {
  const { db, log } = deps;
  const scan = await findScanById(db, run.scan_id);
  if (!scan) return false;
  const engine = deps.engines.forScanType(scan.scan_type);
  if (typeof engine === 'string') {
    const recorder = await startRunRecorder(deps, run, scan, { owner: workerId, engine: null });
    await recorder.finish({ outcome: 'failed', error: engine, complete: false });
    return true;
  }
  const vulnerabilities = (await createVulnerabilityLookup(db)) ?? undefined;
  const recorder = await startRunRecorder(deps, run, scan, {
    owner: workerId,
    engine: { name: engine.name, version: engine.version },
    vulnDbSyncedAt: vulnerabilities?.syncedAt ?? null,
  });
  const job = {
    targets: scan.targets as JobTarget[],
    ports: deps.config.scan.ports,
    limits: {
      connectTimeoutMs: deps.config.scan.connectTimeoutMs,
      readTimeoutMs: deps.config.scan.readTimeoutMs,
      maxConcurrency: deps.config.scan.maxConcurrency,
      ratePerSecond: deps.config.scan.ratePerSecond,
    },
    guard: deps.guard,
    signal,
    ...(vulnerabilities ? { vulnerabilities } : {}),
  };
  try {
    for await (const event of engine.run(job) as AsyncIterable<EngineEvent>) {
      if (signal.aborted) break;
      await recorder.record(event);
    }
    if (signal.aborted) return false;
    await recorder.finish({ outcome: 'succeeded', error: null, complete: true });
    return true;
  } catch (error) {
    if (signal.aborted) return false;
    const message = error instanceof EngineError ? error.message : 'The scan engine failed unexpectedly; the worker log has the details.';
    log.error({ err: error, run_id: run.id }, 'run failed');
    await recorder.finish({ outcome: 'failed', error: message, complete: false });
    return true;
  }
}

export type { Engine };
