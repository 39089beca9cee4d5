/**
 * The scheduler: fires scans whose next_run_at has come. Due scans are locked with FOR UPDATE
 * SKIP LOCKED and advanced in the same transaction that queues their run, so each period fires
 * exactly once however many schedulers run; a unique (scan, period) index guards it again.
 * A scan that was due several times while the service was down fires once, then moves to its
 * next occurrence after now.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Run, Scan } from '../db/schema.js';
import type { Logger } from '../shared/logger.js';
import { lockDueScans, setNextRunAt } from '../scans/scans.service.js';
import { advance, scheduleOf } from '../scans/scan-schedule.js';
import { nextOccurrenceAfter } from '../scans/schedule.js';
import type { RunQueue } from '../scans/run-queue.js';
import { AWAITING_AGENT, endMissedRun, endOverdueAgentRun, enqueueRun, findCurrentRun } from '../scans/runs.service.js';
import { queueRunEndNotices } from './run-end.js';

const BATCH = 100;

/** The error of a scheduled Unmanaged run that no agent took before the next was due. */
export function missedRunError(nextDue: Date): string {
  return `No agent took this run before the next one was due (${nextDue.toISOString()}): run the agent with --daemon to run scheduled scans.`;
}

/** The error of a scheduled Unmanaged run an agent still held when the next was due. */
export function overdueRunError(nextDue: Date): string {
  return `The agent was still running this scan when the next run was due (${nextDue.toISOString()}): it was stopped so that the schedule goes on. Narrow the targets, or choose a longer agent frequency.`;
}

/**
 * Whether a run has had a whole period of the scan's schedule by `due`: queued by an earlier
 * period, or (a rerun) queued at least one period's length ago.
 */
function hadAPeriod(run: Run, scan: Scan, due: Date): boolean {
  if (run.scheduled_for) return run.scheduled_for < due;
  const schedule = scheduleOf(scan);
  const next = schedule ? nextOccurrenceAfter(schedule, due) : null;
  return next !== null && due.getTime() - run.queued_at.getTime() >= next.getTime() - due.getTime();
}

/**
 * An Unmanaged scan's period: the previous run still awaiting an agent (none took it) ends as
 * missed; one an agent has held for a whole period is stopped (cancelled, `deadline`: hung, or
 * longer than its period; the agent hears it at its next heartbeat). Either ends with its report
 * email and webhook events, and the new run awaits an agent. A run an agent took within this
 * period (a rerun) is left alone and the period skipped, as for a managed scan.
 */
async function queueAgentRun(trx: Db, config: Config, scan: Scan) {
  const current = await findCurrentRun(trx, scan.id);
  const due = scan.next_run_at ?? new Date();
  const ended =
    current?.lease_owner === null && current.progress === AWAITING_AGENT
      ? await endMissedRun(trx, current.id, missedRunError(due))
      : current?.lease_owner?.startsWith('agent:') && hadAPeriod(current, scan, due)
        ? await endOverdueAgentRun(trx, current.id, overdueRunError(due))
        : undefined;
  if (ended) await queueRunEndNotices(trx, config, scan, ended);
  return enqueueRun(trx, undefined, { scanId: scan.id, trigger: 'schedule', scheduledFor: scan.next_run_at, progress: AWAITING_AGENT });
}

/** Fires every scan due at `now`; returns how many runs it queued (Unmanaged scans' included). */
export async function fireDueScans(db: Db, config: Config, now: Date, log: Logger): Promise<number> {
  let queued = 0;
  for (;;) {
    const fired = await db.transaction().execute(async (trx) => {
      const due = await lockDueScans(trx, now, BATCH);
      for (const scan of due) {
        const schedule = scheduleOf(scan);
        const run =
          scan.scan_frequency === 'Unmanaged'
            ? await queueAgentRun(trx, config, scan)
            : await enqueueRun(trx, undefined, { scanId: scan.id, trigger: 'schedule', scheduledFor: scan.next_run_at });
        if (run) queued++;
        else log.info({ scan_id: scan.id }, 'scheduled run skipped: the previous run is still going');
        await setNextRunAt(trx, scan.id, schedule ? advance(schedule, now) : null);
      }
      return due.length;
    });
    if (fired < BATCH) return queued;
  }
}

export class Scheduler {
  #timer: NodeJS.Timeout | undefined;
  #tick: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly options: { intervalMs: number; config: Config; queue: RunQueue; log: Logger; clock?: () => Date },
  ) {}

  start(): void {
    if (this.#timer) return;
    const tick = () => {
      this.#tick = this.tick().finally(() => {
        if (this.#timer) this.#timer = setTimeout(tick, this.options.intervalMs);
      });
    };
    this.#timer = setTimeout(tick, 0);
  }

  async tick(): Promise<void> {
    try {
      const queued = await fireDueScans(this.db, this.options.config, (this.options.clock ?? (() => new Date()))(), this.options.log);
      if (queued > 0) {
        this.options.log.info({ runs: queued }, 'scheduled runs queued');
        this.options.queue.notify();
      }
    } catch (error) {
      this.options.log.error({ err: error }, 'scheduler could not reach the store; retrying');
    }
  }

  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#tick;
  }
}
