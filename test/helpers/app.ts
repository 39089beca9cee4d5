/**
 * Test harness: builds the real app on a fresh store — in-memory PGlite by default, or an isolated
 * schema of the PostgreSQL in DATABASE_URL — and tears it down after the test.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import type { DestinationStream } from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { migrateToLatest, openStore, type Store } from '../../src/db/database.js';
import type { Mailer } from '../../src/mail/mailer.js';
import { createUser } from '../../src/accounts/users.service.js';
import { createApiKey } from '../../src/accounts/api-keys.service.js';
import type { Engine } from '../../src/engines/engine.js';
import { createEngineRegistry } from '../../src/engines/registry.js';
import type { ScanType } from '../../src/shared/scan-types.js';
import pino from 'pino';
import { startBackground, type Background, type BackgroundOptions } from '../../src/runs/background.js';

const require = createRequire(import.meta.url);

export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret-0123456789';
export const STORE_KIND = process.env.DATABASE_URL ? 'postgres' : 'pglite';

export interface TestStore {
  store: Store;
  /** The environment that reaches the same store from another process. */
  env: { DATABASE_URL?: string; RAMPART_DB_SCHEMA?: string };
}

/**
 * One migrated in-memory cluster, made on first use: every PGlite test store starts as a copy of
 * it (about 0.4 s where creating and migrating a cluster takes 1.8 s on a quiet machine, 9 s on a
 * loaded one). It is kept in the temporary directory for the other test processes, under a digest
 * of the compiled migrations and the PGlite version, so a changed migration makes a new one.
 */
let migratedSnapshot: Promise<Blob> | undefined;
function migratedPgliteSnapshot(): Promise<Blob> {
  migratedSnapshot ??= (async () => {
    const file = await snapshotFile();
    const kept = await fs.readFile(file).catch(() => undefined);
    if (kept) return new Blob([kept]);
    const store = await openStore({ dataDir: 'memory://' });
    try {
      await migrateToLatest(store);
      const made = await store.snapshot!();
      // Written aside, then renamed: a process reading it never sees half a file.
      const partial = `${file}.${process.pid}.partial`;
      await fs.writeFile(partial, Buffer.from(await made.arrayBuffer()));
      await fs.rename(partial, file);
      // Those of earlier migrations are of no more use (42 MB each).
      for (const name of await fs.readdir(os.tmpdir())) {
        if (name.startsWith('rampart-test-pglite-') && name.endsWith('.tar') && name !== path.basename(file)) await fs.rm(path.join(os.tmpdir(), name), { force: true });
      }
      return made;
    } finally {
      await store.close();
    }
  })();
  return migratedSnapshot;
}

/** Where the migrated cluster of these migrations and this PGlite is kept. */
async function snapshotFile(): Promise<string> {
  const migrations = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../src/db/migrations');
  const digest = createHash('sha256');
  for (const name of (await fs.readdir(migrations)).filter((n) => n.endsWith('.js')).sort()) {
    digest.update(name).update(await fs.readFile(path.join(migrations, name)));
  }
  // The package's own manifest (its exports do not name it): beside its dist/ folder.
  const pglite = path.resolve(path.dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
  digest.update(JSON.parse(await fs.readFile(pglite, 'utf8')).version);
  return path.join(os.tmpdir(), `rampart-test-pglite-${digest.digest('hex').slice(0, 16)}.tar`);
}

/** A fresh, migrated store; removed when the test ends. */
export async function openTestStore(t: TestContext, options: { migrate?: boolean } = {}): Promise<TestStore> {
  const migrate = options.migrate ?? true;
  const url = process.env.DATABASE_URL;
  if (!url) {
    const store = await openStore({ dataDir: 'memory://', ...(migrate ? { snapshot: await migratedPgliteSnapshot() } : {}) });
    // Applies nothing on the snapshot; kept so that a store is migrated whatever it started from.
    if (migrate) await migrateToLatest(store);
    t.after(() => store.close());
    return { store, env: {} };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const store = await openStore({ databaseUrl: url, dataDir: '', schema, poolSize: 4 });
  if (migrate) await migrateToLatest(store);
  t.after(async () => {
    await store.close();
    await dropTestSchema(url, schema, t);
  });
  return { store, env: { DATABASE_URL: url, RAMPART_DB_SCHEMA: schema } };
}

/**
 * Removes a test's schema. `after` hooks run in the order they were added, so a process the test
 * started later (`rampart serve` on this schema) may still hold connections and locks here: after a
 * deadlock or a lock wait, its connections are ended and the drop tried again. Never thrown: a failed hook
 * would skip the hooks after it, leaving their processes running and the test file never ending.
 */
async function dropTestSchema(url: string, schema: string, t: TestContext): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      // Tried first as is; then without the connections still on the schema.
      if (attempt > 1) {
        await client.query(
          `select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and pid <> pg_backend_pid()`,
          [`rampart:${schema}`],
        );
      }
      await client.query(`set lock_timeout = '5s'`);
      await client.query(`drop schema if exists ${schema} cascade`);
      return;
    } catch (error) {
      if (attempt === 5) {
        t.diagnostic(`schema ${schema} left in place: ${(error as Error).message}`);
        return;
      }
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

export async function tempDir(t: TestContext): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rampart-test-'));
  // Retried: `after` hooks run in the order they were added, so a process the test started later
  // (a server on this data directory) may still be writing in it while it is removed.
  // Never thrown: a failed hook would skip the hooks after it, leaving their processes running.
  t.after(() => fs.rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }).catch(() => undefined));
  return dir;
}

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  config: Config;
  dataDir: string;
}

export async function buildTestApp(
  t: TestContext,
  options: {
    env?: Record<string, string>;
    config?: Partial<Config>;
    mailer?: Mailer;
    store?: Store;
    clock?: () => Date;
    logStream?: DestinationStream;
    /** Engines serving these scan types instead of the deployment's (ZAP and Nuclei have none): see scripted-engines.ts. */
    engines?: Partial<Record<ScanType, Engine>>;
  } = {},
): Promise<TestApp> {
  const dataDir = await tempDir(t);
  const config = loadConfig(
    { RAMPART_DATA_DIR: dataDir, RAMPART_JWT_SECRET: TEST_JWT_SECRET, RAMPART_BASE_URL: 'http://rampart.test', ...options.env },
    options.config,
  );
  // Closed before the store: `after` hooks run in the order they were added, and a request still
  // in flight (a browser's poll) must finish on an open store, or closing the app waits for ever.
  let built: FastifyInstance | undefined;
  t.after(() => built?.close());
  const store = options.store ?? (await openTestStore(t)).store;
  const app = await buildApp({
    config,
    store,
    // With a stream, every line the app writes at any level, as `rampart serve` would write it.
    logLevel: options.logStream ? 'trace' : 'silent',
    ...(options.logStream ? { logStream: options.logStream } : {}),
    ...(options.mailer ? { mailer: options.mailer } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.engines ? { engines: createEngineRegistry(config, options.engines) } : {}),
  });
  built = app;
  return { app, store, config, dataDir };
}

/** An account with an API key, and a bearer token for it. */
export async function signUp(
  ctx: TestApp,
  input: { email?: string; role?: string } = {},
): Promise<{ userId: number; key: string; keyId: number; token: string; auth: { authorization: string } }> {
  const user = await createUser(ctx.store.db, {
    email: input.email ?? `user-${randomBytes(4).toString('hex')}@example.com`,
    password: 'correct horse battery',
    role: input.role ?? 'trial',
  });
  const created = await createApiKey(ctx.store.db, user.id, 'test');
  const res = await ctx.app.inject({ method: 'POST', url: `/api/token?key=${encodeURIComponent(created.key)}` });
  if (res.statusCode !== 200) throw new Error(`token exchange failed: ${res.statusCode} ${res.body}`);
  const token = (res.json() as { token: string }).token;
  return { userId: user.id, key: created.key, keyId: created.record.id, token, auth: { authorization: `Bearer ${token}` } };
}

/**
 * The in-process background of `rampart serve` for a test app: the run worker with webhook
 * deliveries (and report mail when `mail`), the scheduler when `scheduler`, on the app's engines.
 * The caller stops it (before the store closes, where it matters).
 */
export function startTestBackground(
  ctx: TestApp,
  options: { scheduler?: boolean; mail?: boolean; clock?: () => Date; lookup?: BackgroundOptions['lookup'] } = {},
): Background {
  return startBackground({
    db: ctx.store.db,
    config: ctx.config,
    guard: ctx.app.ctx.guard,
    queue: ctx.app.ctx.queue,
    log: pino({ level: process.env.TEST_LOG ?? 'silent' }),
    worker: true,
    scheduler: options.scheduler ?? false,
    engines: ctx.app.ctx.engines,
    ...(options.mail ? { mailer: ctx.app.ctx.mailer } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
}
