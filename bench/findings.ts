/**
 * bench/findings: seeds 1,000,000 findings over 10 accounts (in SQL, in batches), then measures
 * six representative list queries with autocannon — latency (p50/p99) one request at a time, then
 * requests per second and p99 with 10 connections at once — and the full CSV export of one
 * account (time and peak RSS of this process, which serves it).
 *
 *   npm run bench:findings [-- --findings 1000000 --duration 5]          (embedded PGlite)
 *   DATABASE_URL=postgres://... npm run bench:findings                    (PostgreSQL)
 *
 * On PostgreSQL, `--keep <schema>` seeds into that schema the first time and keeps it, and later
 * runs with the same name reuse the seeded findings (for measuring one change after another).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { migrateToLatest, openStore } from '../src/db/database.js';
import { createUser } from '../src/accounts/users.service.js';
import { createApiKey } from '../src/accounts/api-keys.service.js';

const { values } = parseArgs({
  options: { findings: { type: 'string', default: '1000000' }, duration: { type: 'string', default: '5' }, keep: { type: 'string' } },
});
const TOTAL = Number(values.findings);
const JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123';
/** Tokens name the service they are for: the export server must be the same service. */
const BASE_URL = 'http://bench.rampart.test';
const ACCOUNTS = 10;
const url = process.env.DATABASE_URL;
if (values.keep && !url) throw new Error('--keep needs DATABASE_URL: a PGlite store lives in a temporary directory');
const schema = values.keep ?? `bench_${randomBytes(4).toString('hex')}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-bench-findings-'));
const store = await openStore({ databaseUrl: url, dataDir: url ? '' : dataDir, schema, poolSize: 10 });

let closed = false;

/** Kilobytes of a /proc/<pid>/status field (VmRSS now, VmHWM the peak so far). */
function procKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0);
}

/**
 * The full export of one account, served by a Rampart process of its own (`rampart api` on
 * PostgreSQL, `rampart serve` on the PGlite directory), so that its peak RSS, read from the
 * kernel (VmHWM), is the server's alone: not the seeding's, nor this client's.
 */
async function measureExport(token: string): Promise<string> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/rampart.js');
  const child = spawn(process.execPath, [bin, url ? 'api' : 'serve'], {
    env: {
      ...process.env,
      RAMPART_DATA_DIR: dataDir,
      RAMPART_DB_SCHEMA: schema,
      RAMPART_JWT_SECRET: JWT_SECRET,
      RAMPART_BASE_URL: BASE_URL,
      RAMPART_RATE_LIMITS: 'admin=100000000',
      RAMPART_LOG_LEVEL: 'warn',
      RAMPART_PORT: String(port),
      RAMPART_HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    for (let status = 0; status !== 200; ) {
      status = await fetch(`${base}/api/user`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status, () => 0);
      if (status !== 0 && status !== 200) throw new Error(`the export server answered ${status}`);
      if (status === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const before = procKb(child.pid!, 'VmRSS');
    const started = performance.now();
    const response = await fetch(`${base}/api/vulnerabilities/export`, { headers: { authorization: `Bearer ${token}` } });
    let bytes = 0;
    let rows = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 0x0a) rows++;
    }
    const seconds = (performance.now() - started) / 1000;
    const peak = procKb(child.pid!, 'VmHWM');
    return (
      `export of one account (${(rows - 1).toLocaleString('en')} rows, ${(bytes / 1e6).toFixed(0)} MB): ${seconds.toFixed(1)} s; ` +
      `server peak RSS ${(peak / 1024).toFixed(0)} MB (${(before / 1024).toFixed(0)} MB before the export, in its own process)`
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

/** 10 scans, 1,000 targets and TOTAL / ACCOUNTS findings for one account, in a few statements. */
async function seedAccount(userId: number): Promise<void> {
  // 10 scans and 1,000 targets per account; findings spread over them.
  await sql`
    insert into scans (uuid, user_id, scan_name, scan_type, scan_target, targets, scan_frequency, scan_time_zone, scan_email)
    select gen_random_uuid(), ${userId}, 'Scan ' || s, 'Rampart', '10.0.0.0/22', '[]', 'Daily', 'UTC', 'ops@example.com'
    from generate_series(1, 10) s`.execute(store.db);
  await sql`
    insert into targets (user_id, target, type, status, last_scan)
    select ${userId}, '10.0.' || (t / 256) || '.' || (t % 256), 'Ip', 'Active', now() - (t || ' minutes')::interval
    from generate_series(0, 999) t`.execute(store.db);
  // Inserted in one statement each, the account's scans and targets have consecutive ids.
  const firstScan = (await store.db.selectFrom('scans').select((eb) => eb.fn.min('id').as('id')).where('user_id', '=', userId).executeTakeFirstOrThrow()).id as number;
  const firstTarget = (await store.db.selectFrom('targets').select((eb) => eb.fn.min('id').as('id')).where('user_id', '=', userId).executeTakeFirstOrThrow()).id as number;
  const perAccount = Math.floor(TOTAL / ACCOUNTS);
  for (let done = 0; done < perAccount; done += 50_000) {
    const n = Math.min(50_000, perAccount - done);
    await sql`
      insert into findings (user_id, scan_id, target_id, run_index, fingerprint, name, description, solution, threat, cvss_base,
                            cve, hostname, host_ip, port, protocol, service, scan_type, engine, rule_id, evidence, status)
      select ${userId},
             ${firstScan}::bigint + i % 10,
             ${firstTarget}::bigint + i % 1000,
             0, md5(${userId}::text || '-' || i),
             (array['Open port', 'Redis without authentication', 'TLS 1.0 accepted', 'Expired certificate', 'Missing HSTS', 'Directory listing', 'OpenSSH regreSSHion', 'Apache path traversal'])[1 + i % 8] || ' ' || (i % 5000),
             'Seeded finding for the benchmark.', 'Fix it.',
             (array['Critical', 'High', 'Medium', 'Low', 'Informational'])[1 + i % 5],
             round((random() * 10)::numeric, 1)::float8,
             case when i % 7 = 0 then array['CVE-2024-' || (1000 + i % 9000)] else '{}' end,
             '10.0.' || ((i % 1000) / 256) || '.' || ((i % 1000) % 256), '10.0.' || ((i % 1000) / 256) || '.' || ((i % 1000) % 256),
             1 + i % 1200, 'tcp', 'http', 'Rampart', 'rampart', 'rampart:rule-' || (i % 50), 'evidence ' || i,
             (array['Unresolved', 'Unresolved', 'Unresolved', 'Accepted', 'False Positive'])[1 + i % 5]
      from generate_series(${done}::int, ${done + n - 1}::int) i`.execute(store.db);
  }
}

try {
  await migrateToLatest(store);
  const seedStarted = performance.now();
  const tokens: string[] = [];
  const config = loadConfig({ RAMPART_DATA_DIR: dataDir, RAMPART_JWT_SECRET: JWT_SECRET, RAMPART_BASE_URL: BASE_URL, RAMPART_RATE_LIMITS: 'admin=100000000', RAMPART_LOG_LEVEL: 'warn', RAMPART_PORT: '0' });
  const app = await buildApp({ config, store, logLevel: 'warn' });
  for (let a = 0; a < ACCOUNTS; a++) {
    const email = `bench${a}@example.com`;
    const existing = values.keep ? await store.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst() : undefined;
    const kept = existing !== undefined;
    const user = existing ?? (await createUser(store.db, { email, password: 'benchmark-password', role: 'admin' }));
    const { key } = await createApiKey(store.db, user.id);
    tokens.push((await app.inject({ method: 'POST', url: `/api/token?key=${key}` })).json().token);
    if (!kept) {
      await seedAccount(user.id);
      process.stderr.write(`seeded account ${a + 1}/${ACCOUNTS}\n`);
    }
  }
  // What autovacuum would have done by then (also after a migration rewrote a kept table):
  // statistics, and the visibility map index-only scans need.
  await sql`vacuum analyze`.execute(store.db);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  console.log(`store: ${url ? 'PostgreSQL' : 'PGlite'}; ${TOTAL.toLocaleString('en')} findings over ${ACCOUNTS} accounts, seeded in ${seedSeconds.toFixed(0)} s`);

  const queries: [string, string][] = [
    ['filter (severity=High, status=Unresolved)', '/api/vulnerabilities?severity=High&status=Unresolved'],
    ['search (search=redis)', '/api/vulnerabilities?search=redis'],
    ['default order (threat, then cvss_base)', '/api/vulnerabilities'],
    ['sort by cvss_base', '/api/vulnerabilities?sort=cvss_base'],
    ['sort by name asc', '/api/vulnerabilities?sort=name&direction=asc'],
    ['deep page (page 5000)', '/api/vulnerabilities?page=5000&per_page=20'],
  ];
  console.log(`${''.padEnd(44)} ${'1 connection'.padEnd(24)} 10 connections`);
  for (const [label, path] of queries) {
    const measure = (connections: number) =>
      autocannon({ url: `${address}${path}`, headers: { authorization: `Bearer ${tokens[0]}` }, connections, duration: Number(values.duration) });
    const single = await measure(1);
    const loaded = await measure(10);
    const errors = single.non2xx + loaded.non2xx + single.errors + loaded.errors;
    console.log(
      `${label.padEnd(44)} p50 ${String(single.latency.p50).padStart(4)} ms  p99 ${String(single.latency.p99).padStart(4)} ms   ` +
        `${loaded.requests.average.toFixed(0).padStart(5)} req/s  p99 ${String(loaded.latency.p99).padStart(5)} ms${errors ? `  (${errors} errors or non-2xx)` : ''}`,
    );
  }

  // autocannon stops at its deadline with requests still in flight; let them finish.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await app.close();
  await store.close();
  closed = true;
  console.log(await measureExport(tokens[0]!));
} finally {
  if (values.keep) {
    if (!closed) await store.close().catch(() => undefined);
  } else if (closed) {
    if (url) {
      const cleanup = await openStore({ databaseUrl: url, dataDir: '', schema, poolSize: 1 });
      await sql`drop schema ${sql.id(schema)} cascade`.execute(cleanup.db);
      await cleanup.close();
    }
  } else {
    if (url) await sql`drop schema ${sql.id(schema)} cascade`.execute(store.db);
    await store.close().catch(() => undefined);
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
