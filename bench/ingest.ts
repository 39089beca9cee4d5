/**
 * bench/ingest: findings recorded per second through the run recorder (importRun: one run, one
 * transaction, labels and the run's end included), beside the peer: a plain multi-row INSERT of
 * the same rows into findings. Each measurement gets a fresh migrated store of its own, on the
 * embedded store (PGlite) and on PostgreSQL (DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test;
 * skipped, saying so, when it does not answer). The recorder is measured twice: the first import
 * inserts every finding, the second finds them all again (upserts, labelled still open).
 *
 *   npm run bench:ingest [-- --findings 100000 --hosts 1000 --stores pglite,postgres]
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql, type Insertable } from 'kysely';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { migrateToLatest, openStore, type Store } from '../src/db/database.js';
import type { FindingsTable, Scan } from '../src/db/schema.js';
import type { EngineEvent, Finding } from '../src/engines/engine.js';
import { createUser } from '../src/accounts/users.service.js';
import { fingerprintOf } from '../src/findings/findings.service.js';
import { importRun } from '../src/runs/run-import.service.js';
import { findScanById } from '../src/scans/scans.service.js';

const { values } = parseArgs({
  options: {
    findings: { type: 'string', default: '100000' },
    hosts: { type: 'string', default: '1000' },
    stores: { type: 'string', default: 'pglite,postgres' },
  },
});
const TOTAL = Number(values.findings);
const HOSTS = Number(values.hosts);
/** Rows per statement of the peer: a plain multi-row INSERT, well under 65,535 bind parameters. */
const PEER_BATCH = 1_000;
const PG_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const log = pino({ level: 'silent' });

const hostOf = (i: number) => `10.0.${Math.floor((i % HOSTS) / 256)}.${(i % HOSTS) % 256}`;

/** Finding i: spread over the hosts, one port and rule per finding on its host, ordinary sizes. */
function findingOf(i: number): Finding {
  const host = hostOf(i);
  return {
    hostname: host,
    hostIp: host,
    port: 1 + Math.floor(i / HOSTS),
    protocol: 'tcp',
    service: 'http',
    ruleId: `bench:rule-${i % 50}`,
    name: `Benchmark finding ${i}`,
    description: 'A finding of the ingest benchmark, with a description of ordinary length: what was found and why it matters.',
    solution: 'Upgrade the service, or restrict who can reach it, and scan again.',
    threat: (['Critical', 'High', 'Medium', 'Low', 'Informational'] as const)[i % 5]!,
    cvssBase: i % 5 === 4 ? null : 9.9 - (i % 5) * 2.2,
    cvssVector: null,
    cve: i % 7 === 0 ? [`CVE-2024-${1000 + (i % 9000)}`] : [],
    cwe: i % 7 === 0 ? 'CWE-22' : null,
    evidence: `HTTP/1.1 200 OK\nServer: Apache/2.4.49 (Unix)\n${'x'.repeat(200)}`,
    references: i % 7 === 0 ? [`https://nvd.nist.gov/vuln/detail/CVE-2024-${1000 + (i % 9000)}`] : [],
  };
}

async function* events(): AsyncIterable<EngineEvent> {
  for (let h = 0; h < HOSTS; h++) yield { type: 'host', hostname: hostOf(h), address: hostOf(h), state: 'up' };
  for (let i = 0; i < TOTAL; i++) yield { type: 'finding', finding: findingOf(i) };
}

/** A fresh migrated store with one account and one scan; `drop` removes it. */
async function freshStore(kind: 'pglite' | 'postgres'): Promise<{ store: Store; scan: Scan; drop: () => Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-bench-ingest-'));
  const schema = `bench_ingest_${randomBytes(4).toString('hex')}`;
  const store = await openStore(kind === 'postgres' ? { databaseUrl: PG_URL, dataDir: '', schema, poolSize: 2 } : { dataDir });
  await migrateToLatest(store);
  const user = await createUser(store.db, { email: 'bench@example.com', password: 'benchmark-password', role: 'pro' });
  await sql`
    insert into scans (uuid, user_id, scan_name, scan_type, scan_target, targets, scan_frequency, scan_time_zone, scan_email)
    values (gen_random_uuid(), ${user.id}, 'Ingest', 'Rampart', '10.0.0.0/22', '[]', 'Weekly', 'UTC', 'ops@example.com')`.execute(store.db);
  const scan = (await findScanById(store.db, 1))!;
  return {
    store,
    scan,
    drop: async () => {
      if (kind === 'postgres') await sql`drop schema ${sql.id(schema)} cascade`.execute(store.db);
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The peer: the rows the recorder would store, in plain multi-row INSERTs; findings per second. */
async function peer(kind: 'pglite' | 'postgres'): Promise<number> {
  const { store, scan, drop } = await freshStore(kind);
  try {
    // The same rows: linked to a run and to their hosts' targets, as the recorder links them.
    const run = await sql<{ id: number }>`
      insert into runs (scan_id, run_index, trigger, status) values (${scan.id}, 0, 'import', 'completed') returning id`.execute(store.db);
    const runId = run.rows[0]!.id;
    const hostNames = Array.from({ length: Math.min(HOSTS, TOTAL) }, (_, h) => hostOf(h));
    await store.db.insertInto('targets').values(hostNames.map((target) => ({ user_id: scan.user_id, target, type: 'Ip' as const }))).execute();
    const targetIds = new Map((await store.db.selectFrom('targets').select(['id', 'target']).execute()).map((t) => [t.target, Number(t.id)]));
    const started = performance.now();
    for (let from = 0; from < TOTAL; from += PEER_BATCH) {
      const rows: Insertable<FindingsTable>[] = [];
      for (let i = from; i < Math.min(TOTAL, from + PEER_BATCH); i++) {
        const f = findingOf(i);
        rows.push({
          user_id: scan.user_id, scan_id: scan.id, target_id: targetIds.get(f.hostname) ?? null, run_id: runId, run_index: 0, fingerprint: fingerprintOf(scan.user_id, f),
          name: f.name, description: f.description, solution: f.solution, threat: f.threat, cvss_base: f.cvssBase, cvss_vector: f.cvssVector,
          cve: f.cve, cwe: f.cwe, hostname: f.hostname, host_ip: f.hostIp, port: f.port, protocol: f.protocol, service: f.service,
          scan_type: 'Rampart', engine: 'bench', rule_id: f.ruleId, evidence: f.evidence, engines: ['bench'],
          engine_evidence: JSON.stringify({ bench: f.evidence }), references: f.references, kev: false, epss: null,
        });
      }
      await store.db.insertInto('findings').values(rows).execute();
    }
    return TOTAL / ((performance.now() - started) / 1000);
  } finally {
    await drop();
  }
}

/** Through the recorder: two imports of the same findings; findings per second of each. */
async function recorder(kind: 'pglite' | 'postgres'): Promise<[number, number]> {
  const { store, scan, drop } = await freshStore(kind);
  const config = loadConfig({ RAMPART_DATA_DIR: os.tmpdir(), RAMPART_LOG_LEVEL: 'silent' });
  try {
    const rates: number[] = [];
    for (let round = 0; round < 2; round++) {
      const started = performance.now();
      const result = await importRun({ db: store.db, config, log }, scan, { engine: { name: 'bench', version: '1' }, events: events() });
      if (result.findings !== TOTAL) throw new Error(`the recorder stored ${result.findings} findings of ${TOTAL}`);
      rates.push(TOTAL / ((performance.now() - started) / 1000));
    }
    return [rates[0]!, rates[1]!];
  } finally {
    await drop();
  }
}

async function reachable(): Promise<boolean> {
  try {
    const store = await openStore({ databaseUrl: PG_URL, dataDir: '', poolSize: 1 });
    await sql`select 1`.execute(store.db).finally(() => store.close());
    return true;
  } catch {
    return false;
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en').padStart(8);
console.log(`${TOTAL.toLocaleString('en')} findings over ${HOSTS.toLocaleString('en')} hosts; findings per second (goal: recorder >= 50,000/s on PostgreSQL)`);
for (const kind of values.stores.split(',').map((s) => s.trim()) as ('pglite' | 'postgres')[]) {
  if (kind === 'postgres' && !(await reachable())) {
    console.log(`postgres: skipped, nothing answers at ${PG_URL.replace(/\/\/[^@]*@/, '//')}`);
    continue;
  }
  const plain = await peer(kind);
  const [first, again] = await recorder(kind);
  console.log(
    `${kind.padEnd(8)} plain INSERT ${fmt(plain)}/s   recorder ${fmt(first)}/s (${(first / plain).toFixed(2)}x)   ` +
      `same findings again ${fmt(again)}/s (${(again / plain).toFixed(2)}x)`,
  );
}
