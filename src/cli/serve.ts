/**
 * The long-running roles. `rampart serve` is all of them in one process (the embedded default);
 * `rampart api`, `rampart worker` and `rampart scheduler` run one role each, for scale-out on
 * PostgreSQL.
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import type { Config } from '../config.js';
import { migrateToLatest, openStore } from '../db/database.js';
import { countUsers } from '../accounts/users.service.js';
import { createAddressGuard } from '../shared/address-guard.js';
import { createLogger, type Logger } from '../shared/logger.js';
import { VERSION } from '../shared/version.js';
import { startBackground } from '../runs/background.js';
import { createMailer } from '../mail/mailer.js';
import { RunQueue } from '../scans/run-queue.js';
import { acquireLock, startAdminChannel, type AdminHandler } from './admin-channel.js';
import { runAdminCommand } from './admin-commands.js';
import { secureDataDir } from './data-dir.js';
import type { ScanType } from '../shared/scan-types.js';

export interface Roles {
  api: boolean;
  worker: boolean;
  scheduler: boolean;
}

export interface RunningServer {
  app: FastifyInstance | undefined;
  log: Logger;
  stop(): Promise<void>;
}

/**
 * Starts the roles over one store. `workerTypes`: the scan types the worker claims (default: every
 * type with an engine on this deployment).
 */
export async function serve(config: Config, roles: Roles = { api: true, worker: true, scheduler: true }, options: { workerTypes?: ScanType[] } = {}): Promise<RunningServer> {
  const started = performance.now();
  const embedded = !config.databaseUrl;
  if (embedded && !roles.api) {
    throw new Error('Separate worker and scheduler processes need a shared PostgreSQL store (set DATABASE_URL). On the embedded store, `rampart serve` runs the workers and the scheduler itself.');
  }
  // On PostgreSQL too: mail and login scripts are written there.
  secureDataDir(config.dataDir, { create: embedded, allowInsecure: config.allowInsecureDataDir });
  const releaseLock = embedded ? acquireLock(config.dataDir) : () => {};
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, schema: config.dbSchema });
  const queue = new RunQueue();
  let stopAdmin: () => Promise<void> = async () => {};
  let app: FastifyInstance | undefined;
  let log: Logger = createLogger(config.logLevel);
  try {
    const applied = await migrateToLatest(store);
    if (roles.api) {
      app = await buildApp({ config, store, queue });
      log = app.log;
      await app.listen({ port: config.port, host: config.host });
      if (embedded) {
        const run: AdminHandler = (cmd, context) => runAdminCommand(store, cmd, { ...context, config, log });
        stopAdmin = await startAdminChannel(config.dataDir, run, (error) => log.error({ err: error }, 'admin command failed'));
      }
    }
    if (applied.length) log.info({ migrations: applied }, 'applied migrations');
  } catch (error) {
    await app?.close();
    await store.close();
    releaseLock();
    throw error;
  }
  const background = startBackground({
    db: store.db,
    config,
    guard: app?.ctx.guard ?? createAddressGuard(config.allowTargets),
    queue,
    log,
    worker: roles.worker,
    scheduler: roles.scheduler,
    // The API's registry when there is an API: what it accepts is what the worker serves.
    ...(app ? { engines: app.ctx.engines } : {}),
    ...(options.workerTypes ? { types: options.workerTypes } : {}),
    mailer: app?.ctx.mailer ?? createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir }),
  });

  const role = Object.entries(roles).filter(([, on]) => on).map(([name]) => name).join('+');
  const details = { version: VERSION, roles: role, store: embedded ? `pglite:${config.dataDir}` : 'postgres', startup_ms: Math.round(performance.now() - started) };
  if (app) {
    log.info({ ...details, base_url: config.baseUrl }, `Rampart ${VERSION} listening on ${config.baseUrl}`);
    if ((await countUsers(store.db)) === 0) {
      log.info(
        {},
        'The store has no accounts yet. Create the first one and its API key with:\n' +
          '  ./bin/rampart.js user create --email you@example.com --password "<at least 12 characters>" --role admin\n' +
          '  ./bin/rampart.js key create --email you@example.com\n' +
          `then exchange the key: curl -X POST "${config.baseUrl}/api/token?key=<key>"`,
      );
    }
  } else {
    log.info(details, `Rampart ${VERSION} ${role} started`);
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      log.info({}, 'shutting down');
      await stopAdmin();
      await app?.close();
      await background.stop();
      await store.close();
      releaseLock();
    })());
  return { app, log, stop };
}
