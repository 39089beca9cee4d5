/**
 * The one run recorder: every way findings arrive (a built-in engine run by a worker, an uploaded
 * file, later the agent) feeds its engine events here, and the recorder stores them — host states,
 * progress (throttled), findings in batches, notes — then ends the run: its findings labelled, its
 * counts, the hosts' target states, its report email and webhook events, in one transaction.
 *
 * Writes are conditioned on the run's lease when a worker holds one (`owner`), so a worker that
 * lost its run changes nothing; with no owner (an import) they require that no worker holds it.
 * Given a transaction (`db.isTransaction`), the recorder works inside it and opens none of its own.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Run, RunErrorKind, Scan } from '../db/schema.js';
import type { EngineEvent, Finding, JobTarget } from '../engines/engine.js';
import type { Logger } from '../shared/logger.js';
import { FINDINGS_BATCH, judgeRunFindings, recordFindings, type FindingContext } from '../findings/findings.service.js';
import { ensureTargets, recordHostStates } from '../targets/targets.service.js';
import { queueRunEndNotices } from './run-end.js';
import { finishRun, recordProgress } from '../scans/runs.service.js';
import { hostOf } from '../scans/targets.js';

/** Notes kept per run: enough to explain a run, never a flood. */
export const MAX_NOTES = 20;
const PROGRESS_INTERVAL_MS = 500;
const FINDINGS_FLUSH_MS = 1000;
/** Findings buffered before a flush; recordFindings writes them FINDINGS_BATCH rows a statement. */
const FLUSH_AT = FINDINGS_BATCH;

export interface RunRecorder {
  /** Feeds one engine event (progress, host, finding, log). */
  record(event: EngineEvent): Promise<void>;
  /** A sentence for the run's notes (deduplicated, at most MAX_NOTES). */
  note(message: string): void;
  /** Flushes, labels, ends the run and queues its notices; false when the lease was lost. */
  finish(end: RunEnd): Promise<boolean>;
  readonly counts: { hostsUp: number; hostsDown: number; findings: number };
}

/** How a run ends: its outcome, the error sentence and its kind for a failure, and whether it saw everything. */
export interface RunEnd {
  outcome: 'succeeded' | 'failed';
  error: string | null;
  /** Whose fault a failure was (run-errors.ts); null for a success. */
  errorKind?: RunErrorKind | null;
  complete: boolean;
}

export interface RecorderDeps {
  db: Db;
  config: Config;
  log: Logger;
}

export interface RecorderOptions {
  /** The worker holding the run's lease; null when none does (imports). */
  owner: string | null;
  /** What produced the events; null when no engine could run (the run's engine stays unset). */
  engine: { name: string; version: string; detail?: string | null } | null;
  /**
   * Whether the scan's named targets that no host event reported count as down (a scan probed
   * them; default). An import reports only the hosts its file holds.
   */
  unreportedTargetsDown?: boolean;
  /** When the vulnerability database the engine matched against was synced (null: none). */
  vulnDbSyncedAt?: Date | null;
}

/** The worker no longer holds the run's lease: what it was about to commit is rolled back. */
class LeaseLost extends Error {}

/** The host names a scan's targets name (ranges name none: their hosts count when they answer). */
function namedHosts(scan: Scan): string[] {
  return (scan.targets as JobTarget[]).filter((t) => t.kind !== 'cidr').map(hostOf);
}

/** Starts recording `run` of `scan`: makes sure its named targets exist, then takes events. */
export async function startRunRecorder(deps: RecorderDeps, run: Run, scan: Scan, options: RecorderOptions): Promise<RunRecorder> {
  const { db, log } = deps;
  // What really ran: an engine's `engine` event refines its name, version and detail line.
  const identity = options.engine ? { name: options.engine.name, version: options.engine.version, detail: options.engine.detail ?? null } : null;
  const named = new Set(namedHosts(scan));
  const ctx: FindingContext = {
    userId: scan.user_id,
    scanId: scan.id,
    runId: run.id,
    runIndex: run.run_index,
    scanType: scan.scan_type,
    engine: identity?.name ?? 'none',
    targetIds: await ensureTargets(db, scan.user_id, [...named]),
  };
  const counts = { hostsUp: 0, hostsDown: 0, findings: 0 };
  // A name counts as up if any of its addresses answered. Counters move with each change, so a
  // host event costs O(1) however many hosts the run has seen.
  const hosts = new Map<string, boolean>();
  const setHost = (name: string, up: boolean) => {
    const before = hosts.get(name);
    if (before === undefined) {
      hosts.set(name, up);
      if (up) counts.hostsUp++;
      else counts.hostsDown++;
    } else if (!before && up) {
      hosts.set(name, true);
      counts.hostsDown--;
      counts.hostsUp++;
    }
  };
  const notes: string[] = [];
  // The engine said it may have missed something: the run ends incomplete, whatever its outcome.
  let incomplete = false;
  let progressPercent = run.progress_percent;
  let pending: Finding[] = [];
  // The first progress write comes at once (with the engine's name), then every half second.
  let lastProgress = 0;
  let lastFlush = Date.now();

  const flush = async () => {
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    lastFlush = Date.now();
    // Hosts of ranges (and of imported files) become targets when they appear; link findings to them.
    const unknown = new Set<string>();
    for (const f of batch) if (!ctx.targetIds.has(f.hostname)) unknown.add(f.hostname);
    if (unknown.size) for (const [name, id] of await ensureTargets(db, scan.user_id, [...unknown])) ctx.targetIds.set(name, id);
    counts.findings += await recordFindings(db, ctx, batch);
  };

  const note = (message: string) => {
    if (notes.length < MAX_NOTES && !notes.includes(message)) notes.push(message);
  };

  /** The run's end, its labels, its hosts' states and its notices, committed together. */
  const end = async (trx: Db, result: Pick<RunEnd, 'outcome' | 'error' | 'errorKind'>, judge: { complete: boolean } | undefined) => {
    const lifecycle = judge ? await judgeRunFindings(trx, { id: run.id, scanId: scan.id, runIndex: run.run_index, complete: judge.complete }) : undefined;
    const finished = await finishRun(trx, run.id, options.owner, {
      ...result,
      ...counts,
      ...(identity ? { engine: identity } : {}),
      notes,
      ...(options.vulnDbSyncedAt !== undefined ? { vulnDbSyncedAt: options.vulnDbSyncedAt } : {}),
      ...(lifecycle ? { lifecycle } : {}),
    });
    if (!finished) throw new LeaseLost();
    if (result.outcome === 'succeeded') {
      // Ranges only contribute the hosts that answered; named targets are marked either way.
      const states = new Map([...hosts].filter(([name, up]) => up || named.has(name)));
      await recordHostStates(trx, scan.user_id, states, new Date());
    }
    await queueRunEndNotices(trx, deps.config, scan, finished);
  };
  const inTransaction = (work: (trx: Db) => Promise<void>) => (db.isTransaction ? work(db) : db.transaction().execute(work));
  const commitEnd = (result: Pick<RunEnd, 'outcome' | 'error' | 'errorKind'>, judge?: { complete: boolean }) =>
    inTransaction((trx) => end(trx, result, judge)).then(
      () => true,
      (error: unknown) => {
        if (error instanceof LeaseLost) return false;
        throw error;
      },
    );

  return {
    counts,
    note,
    async record(event) {
      switch (event.type) {
        case 'engine':
          if (identity) {
            Object.assign(identity, { name: event.name, version: event.version, detail: event.detail ?? null });
            ctx.engine = event.name;
          }
          break;
        case 'progress':
          // Throttled; 100% is recorded by the end itself.
          if (event.percent > progressPercent && event.percent < 100 && Date.now() - lastProgress >= PROGRESS_INTERVAL_MS) {
            progressPercent = event.percent;
            lastProgress = Date.now();
            await recordProgress(db, run.id, options.owner, {
              percent: event.percent,
              ...(identity ? { engine: identity.name, engineVersion: identity.version, engineDetail: identity.detail } : {}),
              ...counts,
            });
          }
          break;
        case 'host':
          setHost(event.hostname, event.state === 'up');
          break;
        case 'finding':
          pending.push(event.finding);
          if (pending.length >= FLUSH_AT || Date.now() - lastFlush >= FINDINGS_FLUSH_MS) await flush();
          break;
        case 'log':
          log[event.level]({ run_id: run.id, engine: ctx.engine }, event.message);
          // Engine warnings become the run's notes (e.g. "no vulnerability database").
          if (event.level === 'warn') note(event.message);
          break;
        case 'incomplete':
          log.warn({ run_id: run.id, engine: ctx.engine }, event.message);
          note(event.message);
          incomplete = true;
          break;
      }
    },
    async finish({ outcome, error, errorKind = null, complete: finished }) {
      const complete = finished && !incomplete;
      if (outcome === 'succeeded') {
        await flush();
        // Named hosts never reported (unresolvable, or refused by the guard) did not answer.
        if (options.unreportedTargetsDown ?? true) for (const name of named) setHost(name, false);
        return commitEnd({ outcome, error, errorKind }, { complete });
      }
      // A failed run keeps what it stored; its labels are a bonus: if they cannot be settled, the
      // run still ends as failed (outside a transaction: inside one, the failure is the caller's).
      if (db.isTransaction) {
        await flush();
        return commitEnd({ outcome, error, errorKind }, { complete });
      }
      await flush().catch((flushing: unknown) => log.error({ err: flushing, run_id: run.id }, "storing the failed run's last findings failed"));
      return commitEnd({ outcome, error, errorKind }, { complete }).catch((judging: unknown) => {
        log.error({ err: judging, run_id: run.id }, "labelling the failed run's findings failed");
        return commitEnd({ outcome, error, errorKind });
      });
    },
  };
}
