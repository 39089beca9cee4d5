/**
 * Executes one claimed run: picks the engine, builds its job from the scan, and feeds what the
 * engine yields to the run recorder (run-recorder.ts), which stores it under this worker's lease
 * and ends the run.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Run } from '../db/schema.js';
import { EngineError, type Engine, type EngineEvent, type JobTarget } from '../engines/engine.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { AddressGuard } from '../shared/address-guard.js';
import { createEgress } from '../shared/egress.js';
import type { Logger } from '../shared/logger.js';
import { loginScriptOf } from '../scans/login-scripts.js';
import { findScanById } from '../scans/scans.service.js';
import { createVulnerabilityLookup } from '../vulndb/vulndb.service.js';
import { failureOf, unavailableFailure } from './run-errors.js';
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
  const choice = deps.engines.forScanType(scan.scan_type);
  if (!choice.available) {
    // A worker told to serve a type this deployment has no engine for (e.g. an old scan's run).
    const failure = unavailableFailure(choice.reason);
    const recorder = await startRunRecorder(deps, run, scan, { owner: workerId, engine: null });
    recorder.note(failure.note);
    await recorder.finish({ outcome: 'failed', error: failure.error, errorKind: failure.kind, complete: false });
    return true;
  }
  const engine = choice.engine;
  const vulnerabilities = (await createVulnerabilityLookup(db)) ?? undefined;
  const recorder = await startRunRecorder(deps, run, scan, {
    owner: workerId,
    engine: { name: engine.name, version: engine.version },
    vulnDbSyncedAt: vulnerabilities?.syncedAt ?? null,
  });
  // A fallback says so first (e.g. OpenVas scans run by Rampart's scanner).
  if (choice.note) recorder.note(choice.note);
  try {
    const loginScript = await readLoginScript(deps.config.dataDir, scan);
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
      // One egress per run: its remembered verdicts live as long as the run.
      egress: createEgress({ guard: deps.guard, connectTimeoutMs: deps.config.scan.connectTimeoutMs }),
      options: scan.engine_options,
      signal,
      ...(vulnerabilities ? { vulnerabilities } : {}),
      ...(loginScript !== undefined ? { loginScript } : {}),
    };
    for await (const event of engine.run(job) as AsyncIterable<EngineEvent>) {
      if (signal.aborted) break;
      await recorder.record(event);
    }
    if (signal.aborted) return false;
    await recorder.finish({ outcome: 'succeeded', error: null, complete: true });
    return true;
  } catch (error) {
    if (signal.aborted) return false;
    const failure = failureOf(error);
    log.error({ err: error, run_id: run.id, error_kind: failure.kind }, 'run failed');
    recorder.note(failure.note);
    await recorder.finish({ outcome: 'failed', error: failure.error, errorKind: failure.kind, complete: false });
    return true;
  }
}

/**
 * The login script of an authenticated ZAP scan: the text kept in the store (or, for scans stored
 * before it was, the file in the data directory); undefined for every other scan.
 */
async function readLoginScript(dataDir: string, scan: Parameters<typeof loginScriptOf>[1]): Promise<string | undefined> {
  try {
    return (await loginScriptOf(dataDir, scan)) ?? undefined;
  } catch (error) {
    // The path is the server's business: the run's error says what to do.
    throw new EngineError('config', "The scan's login script is no longer stored on this deployment: upload it again with the scan (zap_login_script).", { cause: error });
  }
}

export type { Engine };
