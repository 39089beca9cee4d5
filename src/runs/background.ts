/**
 * Starts the background roles — run workers and the scheduler — over one store, and the lease
 * reaper, which every long-running process runs whatever its roles (the API alone included).
 */
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { AddressGuard } from '../shared/address-guard.js';
import type { Logger } from '../shared/logger.js';
import type { Mailer } from '../mail/mailer.js';
import { ReportMailWorker } from '../reports/report-mail.worker.js';
import { WebhookWorker } from '../webhooks/webhook.worker.js';
import { createEngineRegistry, type EngineRegistry } from '../engines/registry.js';
import type { ScanType } from '../db/schema.js';
import type { RunQueue } from '../scans/run-queue.js';
import { createAccountHousekeeping } from '../accounts/housekeeping.service.js';
import { createLeaseReaper } from './lease-reaper.js';
import { Scheduler } from './scheduler.js';
import { RunWorker } from './worker.js';

export interface BackgroundOptions {
  db: Db;
  config: Config;
  guard: AddressGuard;
  queue: RunQueue;
  log: Logger;
  worker: boolean;
  scheduler: boolean;
  engines?: EngineRegistry;
  /** The scan types the worker claims (default: every type with an engine on this deployment). */
  types?: readonly ScanType[];
  /** Sends report emails beside the run worker; without it none are sent by this process. */
  mailer?: Mailer;
  clock?: () => Date;
  /** Name resolution for webhook deliveries (tests); the system resolver otherwise. */
  lookup?: (hostname: string) => Promise<string[]>;
}

export interface Background {
  worker: RunWorker | undefined;
  scheduler: Scheduler | undefined;
  stop(): Promise<void>;
}

export function startBackground(options: BackgroundOptions): Background {
  const { db, config, queue, log } = options;
  const engines = options.engines ?? createEngineRegistry(config);
  const types = options.types ?? engines.availableTypes();
  const worker = options.worker
    ? new RunWorker(
        { db, config, guard: options.guard, engines, log },
        { types, concurrency: config.worker.concurrency, leaseSeconds: config.worker.leaseSeconds, pollMs: config.worker.pollMs, queue },
      )
    : undefined;
  const mail =
    options.worker && options.mailer
      ? new ReportMailWorker({ db, config, clock: options.clock ?? (() => new Date()) }, options.mailer, log, config.worker.pollMs)
      : undefined;
  const webhooks = options.worker
    ? new WebhookWorker({ db, config, guard: options.guard, log, ...(options.lookup ? { lookup: options.lookup } : {}) })
    : undefined;
  const scheduler = options.scheduler ? new Scheduler(db, { intervalMs: config.schedulerIntervalMs, config, queue, log }) : undefined;
  const reaper = createLeaseReaper({ db, config, log, queue });
  reaper.start();
  const housekeeping = createAccountHousekeeping(db, log);
  housekeeping.start();
  worker?.start();
  mail?.start();
  webhooks?.start();
  scheduler?.start();
  if (worker) {
    log.info({ worker: worker.id, concurrency: config.worker.concurrency, scan_types: types }, 'run worker started');
    // Said at start, not per run: such runs are claimed only to fail with the registry's reason.
    for (const type of types) {
      const choice = engines.forScanType(type);
      if (!choice.available) log.warn({ scan_type: type }, `this worker claims ${type} runs but has no engine for them: they will fail. ${choice.reason}`);
    }
  }
  if (scheduler) log.info({ interval_ms: config.schedulerIntervalMs }, 'scheduler started');
  return {
    worker,
    scheduler,
    async stop() {
      await scheduler?.stop();
      await reaper.stop();
      await housekeeping.stop();
      await worker?.stop();
      await mail?.stop();
      await webhooks?.stop();
    },
  };
}
