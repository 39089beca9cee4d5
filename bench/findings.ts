/**
 * bench/findings: seeds 1,000,000 findings over 10 accounts (in SQL, in batches), then measures
 * latency (p50/p99) and requests per second of five representative list queries with autocannon,
 * and the full CSV export of one account (time and peak RSS of this process, which serves it).
 *
 *   npm run bench:findings [-- --findings 1000000 --duration 5]          (embedded PGlite)
 *   DATABASE_URL=postgres://... npm run bench:findings                    (PostgreSQL)
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { migrateToLatest, openStore } from '../src/db/database.js';
import { createUser } from '../src/accounts/users.service.js';
import { createApiKey } from '../src/accounts/api-keys.service.js';

const { values } = parseArgs({ options: { findings: { type: 'string', default: '1000000' }, duration: { type: 'string', default: '5' } } });
const TOTAL = Number(values.findings);
const ACCOUNTS = 10;
const url = process.env.DATABASE_URL;
const schema = `bench_${randomBytes(4).toString('hex')}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-bench-findings-'));
const store = await openStore({ databaseUrl: url, dataDir: url ? '' : dataDir, schema, poolSize: 10 });

try {
  await migrateToLatest(store);
  const seedStarted = performance.now();
  const tokens: string[] = [];
  const config = loadConfig({ RAMPART_DATA_DIR: dataDir, RAMPART_JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123', RAMPART_RATE_LIMITS: 'admin=100000000', RAMPART_LOG_LEVEL: 'warn', RAMPART_PORT: '0' });
  const app = await buildApp({ config, store, logLevel: 'warn' });
  for (let a = 0; a < ACCOUNTS; a++) {
    const user = await createUser(store.db, { email: `bench${a}@example.com`, password: 'benchmark-password', role: 'admin' });
    const { key } = await createApiKey(store.db, user.id);
    tokens.push((await app.inject({ method: 'POST', url: `/api/token?key=${key}` })).json().token);
    // 10 scans and 1,000 targets per account; findings spread over them.
    await sql`
      insert into scans (uuid, user_id, scan_name, scan_type, scan_target, targets, scan_frequency, scan_time_zone, scan_email)
      select gen_random_uuid(), ${user.id}, 'Scan ' || s, 'Rampart', '10.0.0.0/22', '[]', 'Daily', 'UTC', 'ops@example.com'
      from generate_series(1, 10) s`.execute(store.db);
    await sql`
      insert into targets (user_id, target, type, status, last_scan)
      select ${user.id}, '10.0.' || (t / 256) || '.' || (t % 256), 'Ip', 'Active', now() - (t || ' minutes')::interval
      from generate_series(0, 999) t`.execute(store.db);
    // Inserted in one statement each, the account's scans and targets have consecutive ids.
    const firstScan = (await store.db.selectFrom('scans').select((eb) => eb.fn.min('id').as('id')).where('user_id', '=', user.id).executeTakeFirstOrThrow()).id as number;
    const firstTarget = (await store.db.selectFrom('targets').select((eb) => eb.fn.min('id').as('id')).where('user_id', '=', user.id).executeTakeFirstOrThrow()).id as number;
    const perAccount = Math.floor(TOTAL / ACCOUNTS);
    for (let done = 0; done < perAccount; done += 50_000) {
      const n = Math.min(50_000, perAccount - done);
      await sql`
        insert into findings (user_id, scan_id, target_id, run_index, fingerprint, name, description, solution, threat, cvss_base,
                              cve, hostname, host_ip, port, protocol, service, scan_type, engine, rule_id, evidence, status)
        select ${user.id},
               ${firstScan}::bigint + i % 10,
               ${firstTarget}::bigint + i % 1000,
               0, md5(${user.id}::text || '-' || i),
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
    process.stderr.write(`seeded account ${a + 1}/${ACCOUNTS}\n`);
  }
  await sql`analyze`.execute(store.db);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  console.log(`store: ${url ? 'PostgreSQL' : 'PGlite'}; ${TOTAL.toLocaleString('en')} findings over ${ACCOUNTS} accounts, seeded in ${seedSeconds.toFixed(0)} s`);

  const queries: [string, string][] = [
    ['filter (severity=High, status=Unresolved)', '/api/vulnerabilities?severity=High&status=Unresolved'],
    ['search (search=redis)', '/api/vulnerabilities?search=redis'],
    ['sort by cvss_base (default)', '/api/vulnerabilities'],
    ['sort by name asc', '/api/vulnerabilities?sort=name&direction=asc'],
    ['deep page (page 5000)', '/api/vulnerabilities?page=5000&per_page=20'],
  ];
  for (const [label, path] of queries) {
    const result = await autocannon({
      url: `${address}${path}`,
      headers: { authorization: `Bearer ${tokens[0]}` },
      connections: 10,
      duration: Number(values.duration),
    });
    console.log(`${label.padEnd(44)} p50 ${String(result.latency.p50).padStart(4)} ms  p99 ${String(result.latency.p99).padStart(4)} ms  ${result.requests.average.toFixed(0).padStart(5)} req/s  (${result.non2xx} non-2xx)`);
  }

  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const before = process.memoryUsage().rss;
  const exportStarted = performance.now();
  const response = await fetch(`${address}/api/vulnerabilities/export`, { headers: { authorization: `Bearer ${tokens[0]}` } });
  let bytes = 0;
  let rows = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 0x0a) rows++;
  }
  clearInterval(sampler);
  console.log(
    `export of one account (${(rows - 1).toLocaleString('en')} rows, ${(bytes / 1e6).toFixed(0)} MB): ${((performance.now() - exportStarted) / 1000).toFixed(1)} s, ` +
      `peak RSS ${(peak / 1e6).toFixed(0)} MB (before ${(before / 1e6).toFixed(0)} MB; server and client in this one process)`,
  );
  await app.close();
} finally {
  if (url) await sql`drop schema ${sql.id(schema)} cascade`.execute(store.db);
  await store.close().catch(() => undefined);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
