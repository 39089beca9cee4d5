/**
 * The scheduler: fires scans whose next_run_at has come. Due scans are locked with FOR UPDATE
 * SKIP LOCKED and advanced in the same transaction that queues their run, so each period fires
 * exactly once however many schedulers run; a unique (scan, period) index guards it again.
 * A scan that was due several times while the service was down fires once, then moves to its
 * next occurrence after now.
 */
import type { Db } from '../db/database.js';
import type { Logger } from '../shared/logger.js';
import { lockDueScans, setNextRunAt } from '../scans/scans.service.js';
import { advance, scheduleOf } from '../scans/scan-schedule.js';
import type { RunQueue } from '../scans/run-queue.js';
import { enqueueRun } from '../scans/runs.service.js';

const BATCH = 100;

/** Fires every scan due at `now`; returns how many runs it queued. */
export async function fireDueScans(db: Db, now: Date, log: Logger): Promise<number> {
  let queued = 0;
  for (;;) {
    const fired = await db.transaction().execute(async (trx) => {
      const due = await lockDueScans(trx, now, BATCH);
      for (const scan of due) {
        const schedule = scheduleOf(scan);
        const run = await enqueueRun(trx, undefined, { scanId: scan.id, trigger: 'schedule', scheduledFor: scan.next_run_at });
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
    private readonly options: { intervalMs: number; queue: RunQueue; log: Logger; clock?: () => Date },
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
      const queued = await fireDueScans(this.db, (this.options.clock ?? (() => new Date()))(), this.options.log);
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
