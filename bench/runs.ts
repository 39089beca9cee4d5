/**
 * bench/runs: how fast the run queue drains. Seeds N queued runs (each a minimal real scan: one
 * closed port on 127.0.0.1), then times `rampart worker` processes draining them: one worker,
 * then three. Needs PostgreSQL, since separate worker processes share it.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:runs [-- --runs 1000 --concurrency 8]
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { migrateToLatest, openStore, type Store } from '../src/db/database.js';
import { createUser } from '../src/accounts/users.service.js';
import { BIN } from '../test/helpers/cli.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '1000' }, concurrency: { type: 'string', default: '8' } } });
const RUNS = Number(values.runs);
const url = process.env.DATABASE_URL;
if (!url) {
  console.error('bench/runs needs PostgreSQL: set DATABASE_URL (separate worker processes share it).');
  process.exit(2);
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

async function seed(store: Store, userId: number): Promise<void> {
  const targets = JSON.stringify([{ kind: 'ip', value: '127.0.0.1' }]);
  for (let done = 0; done < RUNS; done += 500) {
    const batch = Array.from({ length: Math.min(500, RUNS - done) }, () => ({
      uuid: randomUUID(), user_id: userId, scan_name: 'bench', scan_type: 'Rampart' as const, scan_target: '127.0.0.1', targets,
      scan_frequency: 'One-time' as const, scan_time_zone: 'UTC', scan_email: 'bench@example.com',
    }));
    const scans = await store.db.insertInto('scans').values(batch).returning('id').execute();
    // Held by a placeholder lease until every worker is up, so process start is not timed.
    await store.db
      .insertInto('runs')
      .values(scans.map((s) => ({ scan_id: s.id, run_index: 0, trigger: 'create' as const, lease_owner: 'bench-hold', lease_expires_at: new Date(Date.now() + 3_600_000) })))
      .execute();
  }
}

/** Starts a worker process and resolves once it logs that it is running. */
function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'worker'], { env: { ...env, RAMPART_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] });
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      if (buffered.includes('run worker started')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before starting`)));
  });
}

async function drain(workers: number, env: NodeJS.ProcessEnv, store: Store): Promise<number> {
  const children = await Promise.all(Array.from({ length: workers }, () => startWorker(env)));
  const started = performance.now();
  await store.db.updateTable('runs').set({ lease_owner: null, lease_expires_at: null }).where('lease_owner', '=', 'bench-hold').execute();
  for (;;) {
    const row = await store.db.selectFrom('runs').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'current').executeTakeFirstOrThrow();
    if (Number(row.n) === 0) break;
    // Poll gently: the bench shares the machine's cores with what it measures.
    await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(children.map((c) => new Promise((r) => (c.removeAllListeners('exit'), c.once('exit', r), c.kill('SIGTERM')))));
  return seconds;
}

const schema = `bench_${randomBytes(4).toString('hex')}`;
const store = await openStore({ databaseUrl: url, dataDir: '', schema, poolSize: 4 });
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-bench-runs-'));
try {
  await migrateToLatest(store);
  const user = await createUser(store.db, { email: 'bench@example.com', password: 'benchmark-password' });
  const env = {
    ...process.env, DATABASE_URL: url, RAMPART_DB_SCHEMA: schema, RAMPART_DATA_DIR: dataDir, RAMPART_LOG_LEVEL: 'warn',
    RAMPART_ALLOW_TARGETS: '127.0.0.1/32', RAMPART_SCAN_PORTS: String(await closedPort()),
    RAMPART_WORKER_CONCURRENCY: values.concurrency, RAMPART_WORKER_POLL_MS: '50',
  };
  const results: [number, number][] = [];
  for (const workers of [1, 3]) {
    await sql`delete from runs`.execute(store.db);
    await sql`delete from scans`.execute(store.db);
    await seed(store, user.id);
    const seconds = await drain(workers, env, store);
    const failed = await store.db.selectFrom('runs').select('id').where('outcome', '<>', 'succeeded').execute();
    if (failed.length) throw new Error(`${failed.length} runs did not succeed`);
    results.push([workers, seconds]);
  }
  console.log(`runs per test: ${RUNS} (each: claim, scan one closed port on 127.0.0.1, store, complete); worker concurrency ${values.concurrency}`);
  for (const [workers, seconds] of results) {
    console.log(`${workers} worker process${workers > 1 ? 'es' : ''}: ${seconds.toFixed(2)} s, ${(RUNS / seconds).toFixed(0)} runs claimed and completed per second (timed from release, workers already running)`);
  }
  console.log(`ratio 3 workers / 1 worker: ${(results[0]![1] / results[1]![1]).toFixed(2)}x`);
} finally {
  await sql`drop schema ${sql.id(schema)} cascade`.execute(store.db);
  await store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
