/**
 * Executes one claimed run: picks the engine, feeds it the scan's targets, and stores what it
 * yields as it arrives — progress (throttled), host states, findings in batches — then completes
 * the run. Writes are conditioned on this worker still holding the lease, so a worker that lost
 * its run (deleted scan, expired lease) changes nothing.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Run } from '../db/schema.js';
import { EngineError, type Engine, type EngineEvent, type Finding, type JobTarget } from '../engines/engine.js';
import type { AddressGuard } from '../shared/address-guard.js';
import type { Logger } from '../shared/logger.js';
import { FINDINGS_BATCH, judgeRunFindings, recordFindings, type FindingContext } from '../findings/findings.service.js';
import { findScanById } from '../scans/scans.service.js';
import { ensureTargets, recordHostStates } from '../targets/targets.service.js';
import { createVulnerabilityLookup } from '../vulndb/vulndb.service.js';
import type { EngineRegistry } from './engines.js';
import { queueRunEndNotices } from './run-end.js';
import { finishRun, recordProgress } from '../scans/runs.service.js';

export interface ExecutorDeps {
  db: Db;
  config: Config;
  guard: AddressGuard;
  engines: EngineRegistry;
  log: Logger;
}

const PROGRESS_INTERVAL_MS = 500;
/** Notes kept per run: enough to explain a run, never a flood. */
const MAX_NOTES = 20;
const FINDINGS_FLUSH_MS = 1000;

/** The worker no longer holds the run's lease: what it was about to commit is rolled back. */
class LeaseLost extends Error {}

/** Runs the job to its end. Returns false when the run was abandoned (aborted) and not completed. */
export async function executeRun(deps: ExecutorDeps, run: Run, workerId: string, signal: AbortSignal): Promise<boolean> {
  const { db, log } = deps;
  const scan = await findScanById(db, run.scan_id);
  if (!scan) return false;
  // The findings are labelled, the run ends, and its report email and webhook events are queued,
  // in one transaction: a worker that lost the run's lease commits none of it.
  const finish = (result: Parameters<typeof finishRun>[3], judge?: { complete: boolean }) =>
    db
      .transaction()
      .execute(async (trx) => {
        const lifecycle = judge ? await judgeRunFindings(trx, { id: run.id, scanId: scan.id, runIndex: run.run_index, complete: judge.complete }) : undefined;
        const finished = await finishRun(trx, run.id, workerId, lifecycle ? { ...result, lifecycle } : result);
        if (!finished) throw new LeaseLost();
        await queueRunEndNotices(trx, deps.config, scan, finished);
      })
      .catch((error: unknown) => {
        if (!(error instanceof LeaseLost)) throw error;
      });

  const engine = deps.engines.forScanType(scan.scan_type);
  const counts = { hostsUp: 0, hostsDown: 0, findings: 0 };
  if (typeof engine === 'string') {
    await finish({ outcome: 'failed', error: engine, ...counts });
    return true;
  }

  const targets = scan.targets as JobTarget[];
  const named = targets.filter((t) => t.kind !== 'cidr').map((t) => (t.kind === 'url' ? new URL(t.value).hostname : t.value));
  const ctx: FindingContext = {
    userId: scan.user_id,
    scanId: scan.id,
    runId: run.id,
    runIndex: run.run_index,
    scanType: scan.scan_type,
    engine: engine.name,
    targetIds: await ensureTargets(db, scan.user_id, named),
  };

  const hosts = new Map<string, boolean>();
  // Engine warnings, deduplicated, become the run's notes (e.g. "no vulnerability database").
  const notes: string[] = [];
  const vulnerabilities = (await createVulnerabilityLookup(db)) ?? undefined;
  const vulnDbSyncedAt = vulnerabilities?.syncedAt ?? null;
  let pending: Finding[] = [];
  // The first progress write comes at once (with the engine's name), then every half second.
  let lastProgress = 0;
  let lastFlush = Date.now();
  const flush = async () => {
    if (pending.length === 0) return;
    // CIDR hosts become targets when they answer; link their findings to them.
    const unknown = [...new Set(pending.map((f) => f.hostname))].filter((h) => !ctx.targetIds.has(h));
    if (unknown.length) for (const [name, id] of await ensureTargets(db, scan.user_id, unknown)) ctx.targetIds.set(name, id);
    counts.findings += await recordFindings(db, ctx, pending);
    pending = [];
    lastFlush = Date.now();
  };

  try {
    const job = {
      targets,
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
    for await (const event of engine.run(job) as AsyncIterable<EngineEvent>) {
      if (signal.aborted) break;
      switch (event.type) {
        case 'progress':
          // Throttled; 100% is recorded by the completion itself.
          if (event.percent > run.progress_percent && event.percent < 100 && Date.now() - lastProgress >= PROGRESS_INTERVAL_MS) {
            run.progress_percent = event.percent;
            lastProgress = Date.now();
            await recordProgress(db, run.id, workerId, { percent: event.percent, engine: engine.name, engineVersion: engine.version, ...counts });
          }
          break;
        case 'host':
          // A name counts as up if any of its addresses answered.
          hosts.set(event.hostname, (hosts.get(event.hostname) ?? false) || event.state === 'up');
          counts.hostsUp = [...hosts.values()].filter(Boolean).length;
          counts.hostsDown = hosts.size - counts.hostsUp;
          break;
        case 'finding':
          pending.push(event.finding);
          if (pending.length >= FINDINGS_BATCH || Date.now() - lastFlush >= FINDINGS_FLUSH_MS) await flush();
          break;
        case 'log':
          log[event.level]({ run_id: run.id, engine: engine.name }, event.message);
          if (event.level === 'warn' && notes.length < MAX_NOTES && !notes.includes(event.message)) notes.push(event.message);
          break;
      }
    }
    if (signal.aborted) return false;
    await flush();
    // Named hosts the engine never reported (unresolvable, or refused by the guard) did not answer.
    for (const name of named) if (!hosts.has(name)) hosts.set(name, false);
    counts.hostsUp = [...hosts.values()].filter(Boolean).length;
    counts.hostsDown = hosts.size - counts.hostsUp;
    // Ranges only contribute the hosts that answered.
    const states = new Map([...hosts].filter(([name, up]) => up || named.includes(name)));
    await recordHostStates(db, scan.user_id, states, new Date());
    await finish({ outcome: 'succeeded', error: null, engine, notes, vulnDbSyncedAt, ...counts }, { complete: true });
    return true;
  } catch (error) {
    if (signal.aborted) return false;
    const message = error instanceof EngineError ? error.message : 'The scan engine failed unexpectedly; the worker log has the details.';
    log.error({ err: error, run_id: run.id }, 'run failed');
    await flush().catch(() => undefined);
    const failed = { outcome: 'failed' as const, error: message, engine, notes, vulnDbSyncedAt, ...counts };
    // Labels are a bonus on a failed run: if they cannot be settled, the run still ends as failed.
    await finish(failed, { complete: false }).catch(async (judging: unknown) => {
      log.error({ err: judging, run_id: run.id }, 'labelling the failed run\'s findings failed');
      await finish(failed);
    });
    return true;
  }
}

export type { Engine };
