/**
 * A worker: claims runs from the queue (the runs table) up to its concurrency, keeps each lease
 * alive with heartbeats, and executes them. Runs whose worker died are put back in the queue or
 * failed by the lease reaper (lease-reaper.ts), a loop of its own. `rampart serve` runs one
 * worker in process; `rampart worker` runs one alone; any number share a PostgreSQL store.
 * A worker claims only runs of the scan types it serves (`types`), so a worker without a ZAP
 * daemon never takes a ZAP run from one that has it.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Run, ScanType } from '../db/schema.js';
import { executeRun, type ExecutorDeps } from './run-executor.js';
import type { RunQueue } from '../scans/run-queue.js';
import { claimRun, releaseLease, renewLease } from '../scans/runs.service.js';

export interface WorkerOptions {
  /** The scan types whose runs this worker claims. */
  types: readonly ScanType[];
  concurrency: number;
  leaseSeconds: number;
  pollMs: number;
  queue: RunQueue;
}

export class RunWorker {
  readonly id = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  readonly #deps: ExecutorDeps;
  readonly #options: WorkerOptions;
  readonly #active = new Map<number, { controller: AbortController; done: Promise<void> }>();
  #stopped = true;
  #wake: (() => void) | undefined;
  #loop: Promise<void> | undefined;
  #unsubscribe: (() => void)[] = [];

  constructor(deps: ExecutorDeps, options: WorkerOptions) {
    this.#deps = deps;
    this.#options = options;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#unsubscribe = [
      this.#options.queue.onQueued(() => this.#wake?.()),
      this.#options.queue.onCancel((runId) => this.#active.get(runId)?.controller.abort(new Error('scan deleted'))),
    ];
    this.#loop = this.#run();
  }

  /** Stops claiming, aborts the runs in flight and hands them back to the queue at once. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const off of this.#unsubscribe) off();
    this.#wake?.();
    await this.#loop;
    for (const { controller } of this.#active.values()) controller.abort(new Error('worker stopping'));
    await Promise.all([...this.#active.values()].map((a) => a.done));
  }

  async #run(): Promise<void> {
    const { db, log } = this.#deps;
    while (!this.#stopped) {
      try {
        while (!this.#stopped && this.#active.size < this.#options.concurrency) {
          const run = await claimRun(db, this.id, this.#options.leaseSeconds, this.#options.types);
          if (!run) break;
          this.#execute(run);
        }
      } catch (error) {
        log.error({ err: error }, 'worker could not reach the store; retrying');
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.#options.pollMs);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  #execute(run: Run): void {
    const { db, log } = this.#deps;
    const controller = new AbortController();
    const heartbeat = setInterval(() => {
      renewLease(db, run.id, this.id, this.#options.leaseSeconds)
        .then((kept) => {
          if (!kept) controller.abort(new Error('lease lost'));
        })
        .catch((error: unknown) => log.warn({ err: error, run_id: run.id }, 'heartbeat failed'));
    }, Math.max(500, (this.#options.leaseSeconds * 1000) / 3));
    log.info({ run_id: run.id, scan_id: run.scan_id, attempt: run.attempts, worker: this.id }, 'run claimed');
    const done = executeRun(this.#deps, run, this.id, controller.signal)
      .then(async (finished) => {
        if (!finished && this.#stopped) await releaseLease(db, run.id, this.id);
        log.info({ run_id: run.id, finished }, finished ? 'run finished' : 'run abandoned');
      })
      .catch((error: unknown) => log.error({ err: error, run_id: run.id }, 'run crashed'))
      .finally(() => {
        clearInterval(heartbeat);
        this.#active.delete(run.id);
        this.#wake?.();
      });
    this.#active.set(run.id, { controller, done });
  }
}
