/** `rampart serve`: the API (and, as later roles land, the workers) in one process. */
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import type { Config } from '../config.js';
import { migrateToLatest, openStore } from '../db/database.js';
import { countUsers } from '../accounts/users.service.js';
import { VERSION } from '../shared/version.js';
import { acquireLock, startAdminChannel } from './admin-channel.js';

export interface RunningServer {
  app: FastifyInstance;
  stop(): Promise<void>;
}

export async function serve(config: Config): Promise<RunningServer> {
  const started = performance.now();
  const embedded = !config.databaseUrl;
  const releaseLock = embedded ? acquireLock(config.dataDir) : () => {};
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, schema: config.dbSchema });
  let stopAdmin: () => Promise<void> = async () => {};
  let app: FastifyInstance | undefined;
  try {
    const applied = await migrateToLatest(store);
    app = await buildApp({ config, store });
    if (applied.length) app.log.info({ migrations: applied }, 'applied migrations');
    await app.listen({ port: config.port, host: config.host });
    if (embedded) stopAdmin = await startAdminChannel(config.dataDir, store);
  } catch (error) {
    await app?.close();
    await store.close();
    releaseLock();
    throw error;
  }
  const log = app.log;
  log.info(
    { version: VERSION, store: embedded ? `pglite:${config.dataDir}` : 'postgres', base_url: config.baseUrl, startup_ms: Math.round(performance.now() - started) },
    `Rampart ${VERSION} listening on ${config.baseUrl}`,
  );
  if ((await countUsers(store.db)) === 0) {
    log.info(
      'The store has no accounts yet. Create the first one and its API key with:\n' +
        '  npx rampart user create --email you@example.com --password "<at least 8 characters>" --role admin\n' +
        '  npx rampart key create --email you@example.com\n' +
        `then exchange the key: curl -X POST "${config.baseUrl}/api/token?key=<key>"`,
    );
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      log.info('shutting down');
      await stopAdmin();
      await app!.close();
      await store.close();
      releaseLock();
    })());
  return { app, stop };
}
