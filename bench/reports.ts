/**
 * bench/reports: seeds one completed run with 10,000 findings (in SQL), then renders its report
 * in each format, each in a process of its own reading from the store, and prints the time and
 * that process's peak RSS (VmHWM, from the kernel). Goal: every format under 5 s and 300 MB.
 *
 *   npm run bench:reports [-- --findings 10000]          (embedded PGlite)
 *   DATABASE_URL=postgres://... npm run bench:reports     (PostgreSQL)
 *   npm run bench:reports -- --formats pdf,csv            (some formats only; all by default)
 *   npm run bench:reports -- --keep                       (leave the seeded store, to profile a render)
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { migrateToLatest, openStore } from '../src/db/database.js';
import { createUser } from '../src/accounts/users.service.js';
import { findReportRun, loadRunReport, renderReport, REPORT_FORMATS, type ReportFormat } from '../src/reports/reports.service.js';
import { findScanById } from '../src/scans/scans.service.js';

const { values } = parseArgs({
  options: {
    findings: { type: 'string', default: '10000' },
    formats: { type: 'string', default: REPORT_FORMATS.join(',') },
    keep: { type: 'boolean', default: false },
    render: { type: 'string' },
    schema: { type: 'string' },
    'data-dir': { type: 'string' },
  },
});
const url = process.env.DATABASE_URL;

/** Megabytes of this process's VmRSS (now) or VmHWM (the peak so far), from the kernel. */
function rssMb(field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return Number(match?.[1] ?? 0) / 1024;
}

/** Child mode: render one format of the seeded run to nowhere and report time, size and peak RSS. */
async function renderOne(format: ReportFormat, schema: string, dataDir: string): Promise<void> {
  const store = await openStore({ databaseUrl: url, dataDir: url ? '' : dataDir, schema, poolSize: 4 });
  try {
    const config = loadConfig({ RAMPART_DATA_DIR: dataDir, RAMPART_LOG_LEVEL: 'silent' });
    const scan = (await findScanById(store.db, 1))!;
    // The store's own share: PGlite's WebAssembly heap lives in this process.
    const baseMb = rssMb('VmRSS');
    const started = performance.now();
    const run = await findReportRun(store.db, scan, 0);
    const record = await loadRunReport({ db: store.db, config, clock: () => new Date() }, scan, run, { role: 'pro' });
    const loadSeconds = (performance.now() - started) / 1000;
    let bytes = 0;
    for await (const chunk of renderReport(record, format) as AsyncIterable<Buffer | string>) bytes += chunk.length;
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(JSON.stringify({ format, seconds, loadSeconds, bytes, peakMb: rssMb('VmHWM'), baseMb }) + '\n');
  } finally {
    await store.close();
  }
}

async function seed(schema: string, dataDir: string, total: number): Promise<void> {
  const store = await openStore({ databaseUrl: url, dataDir: url ? '' : dataDir, schema, poolSize: 2 });
  try {
    await migrateToLatest(store);
    const user = await createUser(store.db, { email: 'bench@example.com', password: 'benchmark-password', role: 'pro' });
    await sql`
      insert into scans (uuid, user_id, scan_name, scan_type, scan_target, targets, scan_frequency, scan_time_zone, scan_email, include_attack_narrative)
      values (gen_random_uuid(), ${user.id}, 'Bench perimeter', 'Rampart', '10.0.0.0/22', '[]', 'Weekly', 'UTC', 'ops@example.com', true)`.execute(store.db);
    await sql`
      insert into runs (scan_id, run_index, status, outcome, progress, progress_percent, trigger, engine, engine_version, started_at, completed_at, hosts_up, findings_count, new_findings)
      values (1, 0, 'completed', 'succeeded', 'Completed', 100, 'create', 'rampart', '1.0.0', now() - interval '10 minutes', now(), 1000, ${total}, ${total})`.execute(store.db);
    await sql`
      insert into findings (user_id, scan_id, run_id, run_index, fingerprint, name, description, solution, threat, cvss_base, cve, cwe,
                            hostname, host_ip, port, protocol, service, scan_type, engine, engines, engine_evidence, rule_id, evidence, "references", lifecycle)
      select ${user.id}, 1, 1, 0, md5(i::text),
             (array['Open port', 'Redis without authentication', 'TLS 1.0 accepted', 'Expired certificate', 'Missing HSTS', 'Directory listing', 'OpenSSH regreSSHion', 'Apache path traversal'])[1 + i % 8] || ' ' || i,
             'A seeded finding of the benchmark, with a description of ordinary length for a real check: what was found and why it matters to the service.',
             'Upgrade the service, or restrict who can reach it, and scan again.',
             (array['Critical', 'High', 'Medium', 'Low', 'Informational'])[1 + i % 5],
             case when i % 5 = 4 then null else round((9.9 - (i % 5) * 2.2)::numeric, 1)::float8 end,
             case when i % 7 = 0 then array['CVE-2024-' || (1000 + i % 9000)] else '{}' end,
             case when i % 7 = 0 then 'CWE-22' else null end,
             '10.0.' || ((i % 1000) / 256) || '.' || ((i % 1000) % 256), '10.0.' || ((i % 1000) / 256) || '.' || ((i % 1000) % 256),
             1 + i % 1200, 'tcp', 'http', 'Rampart', 'rampart', array['rampart'], jsonb_build_object('rampart', 'evidence'),
             'rampart:rule-' || (i % 50), 'HTTP/1.1 200 OK' || chr(10) || 'Server: Apache/2.4.49 (Unix)' || chr(10) || repeat('x', 200),
             array['https://nvd.nist.gov/vuln/detail/CVE-2024-' || (1000 + i % 9000)], 'new'
      from generate_series(1, ${total}) i`.execute(store.db);
    await sql`insert into run_findings (run_id, finding_id, lifecycle) select 1, id, 'new' from findings`.execute(store.db);
    await sql`vacuum analyze`.execute(store.db);
  } finally {
    await store.close();
  }
}

function child(format: ReportFormat, schema: string, dataDir: string): Promise<{ format: string; seconds: number; loadSeconds: number; bytes: number; peakMb: number; baseMb: number }> {
  const script = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [script, '--render', format, '--schema', schema, '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    proc.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`rendering ${format} exited with ${code}`))));
  });
}

/** Drops the seeded schema (PostgreSQL) and the data directory (PGlite). */
async function dropSeed(schema: string, dataDir: string): Promise<void> {
  if (url) {
    const store = await openStore({ databaseUrl: url, dataDir: '', schema, poolSize: 1 });
    await sql`drop schema ${sql.id(schema)} cascade`.execute(store.db);
    await store.close();
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}

if (values.render) {
  await renderOne(values.render as ReportFormat, values.schema!, values['data-dir']!);
} else {
  const total = Number(values.findings);
  const formats = values.formats.split(',').map((f) => f.trim());
  const unknown = formats.filter((f) => !(REPORT_FORMATS as readonly string[]).includes(f));
  if (unknown.length > 0) throw new Error(`unknown format ${unknown.join(', ')}; formats are ${REPORT_FORMATS.join(', ')}`);
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-bench-reports-'));
  try {
    const seedStarted = performance.now();
    await seed(schema, dataDir, total);
    console.log(`store: ${url ? 'PostgreSQL' : 'PGlite'}; one run of ${total.toLocaleString('en')} findings, seeded in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s`);
    console.log('(each format rendered in its own process: load from the store, render, discard the bytes; goal < 5 s and < 300 MB)');
    console.log('(the first format also writes the attack narrative, which is then stored on the run)');
    for (const format of formats as ReportFormat[]) {
      const r = await child(format, schema, dataDir);
      const verdict = r.seconds < 5 && r.peakMb < 300 ? 'ok' : 'over the goal';
      console.log(
        `${format.padEnd(5)} ${r.seconds.toFixed(2).padStart(6)} s (record ${r.loadSeconds.toFixed(2)} s)  peak RSS ${r.peakMb.toFixed(0).padStart(4)} MB ` +
          `(${r.baseMb.toFixed(0)} MB with the store open, before rendering)  ${(r.bytes / 1e6).toFixed(1).padStart(6)} MB  ${verdict}`,
      );
    }
  } finally {
    if (values.keep) {
      // The seeded store stays, for profiling one render as the bench runs it.
      console.log(`kept (render again with the same DATABASE_URL): node dist/bench/reports.js --render pdf --schema ${schema} --data-dir ${dataDir}`);
    } else {
      await dropSeed(schema, dataDir);
    }
  }
}
