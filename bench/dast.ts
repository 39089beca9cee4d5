/**
 * bench/dast: Rampart's web scanner (the engine of ZAP scans) on the team's deliberately
 * vulnerable test application (test/helpers/vuln-app, with MariaDB when installed), scored
 * against the application's own truth: each vulnerable page says which finding it must produce
 * (`expect`), and every finding on a safe twin (under /safe/) is a false positive.
 *
 *   npm run bench:dast
 *
 * Printed: wall time, requests sent, peak RSS, findings per rule, the classes found and missed,
 * and the false positives. When `wapiti` is on PATH, it scans the same application in the same
 * run (its default modules plus crlf and csrf), and both are printed side by side, wapiti's
 * categories mapped to our rules where the mapping is clear.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';
import type { EngineEvent, Finding } from '../src/engines/engine.js';
import { createWebEngine } from '../src/engines/web/web.engine.js';
import { LOOPBACK_EGRESS } from '../test/helpers/egress.js';
import { startVulnApp, type VulnApp } from '../test/helpers/vuln-app/app.js';
import { startVulnDatabase } from '../test/helpers/vuln-app/database.js';

const run = promisify(execFile);

/** wapiti's modules for the classes the application has (its defaults, plus crlf and csrf). */
const WAPITI_MODULES = 'blindsql,cookieflags,crlf,csp,csrf,exec,file,http_headers,permanentxss,redirect,sql,ssrf,xss';
/** wapiti 3.0.4's categories, as our rule ids (where the mapping is clear). */
const WAPITI_CATEGORIES: Record<string, string> = {
  'SQL Injection': 'rampart:web-sql-injection',
  'Blind SQL Injection': 'rampart:web-sql-injection',
  'Cross Site Scripting': 'rampart:web-xss-reflected',
  'Stored Cross Site Scripting': 'rampart:web-xss-stored',
  'Commands execution': 'rampart:web-command-injection',
  'Path Traversal': 'rampart:web-path-traversal',
  'Open Redirect': 'rampart:web-open-redirect',
  'CRLF Injection': 'rampart:web-crlf-injection',
  'Cross Site Request Forgery': 'rampart:web-csrf',
  'Unrestricted File Upload': 'rampart:web-file-upload',
};

/** Just enough of a TestContext for the test helpers: cleanups run at the end, skips are printed. */
function benchContext(): { t: TestContext; cleanup(): Promise<void> } {
  const cleanups: Array<() => unknown> = [];
  const t = {
    after: (fn: () => unknown) => void cleanups.push(fn),
    skip: (message?: string) => console.log(`  (${message ?? 'skipped'})`),
    diagnostic: (message: string) => console.log(`  ${message}`),
  } as unknown as TestContext;
  return {
    t,
    async cleanup() {
      for (const fn of cleanups.reverse()) await fn();
    },
  };
}

interface Score {
  name: string;
  seconds: number;
  requests: number | null;
  /** Findings as (rule id, path, parameter). */
  findings: Array<{ ruleId: string; path: string; parameter: string | null }>;
}

/** The expected classes found and missed, and the false positives (findings on safe twins). */
function judge(app: VulnApp, score: Score): { found: string[]; missed: string[]; falsePositives: string[] } {
  const found: string[] = [];
  const missed: string[] = [];
  for (const p of app.pages.filter((p) => p.expect)) {
    const { ruleId, parameter } = p.expect!;
    const hit = score.findings.some((f) => f.ruleId === ruleId && f.path === p.path && (parameter === null || f.parameter === parameter));
    (hit ? found : missed).push(`${ruleId.replace('rampart:web-', '')} ${p.path}`);
  }
  const falsePositives = score.findings.filter((f) => f.path.startsWith('/safe/')).map((f) => `${f.ruleId} ${f.path} ${f.parameter ?? ''}`);
  return { found, missed, falsePositives };
}

async function scanWithRampart(app: VulnApp): Promise<Score & { peakRss: number; perRule: Map<string, number> }> {
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
  const began = performance.now();
  const findings: Finding[] = [];
  let requests = 0;
  try {
    const engine = createWebEngine();
    const events = engine.run({
      targets: [{ kind: 'url', value: app.url }],
      ports: 'default',
      limits: { connectTimeoutMs: 5000, readTimeoutMs: 10_000, maxConcurrency: 64, ratePerSecond: 0 },
      guard: LOOPBACK_EGRESS.guard,
      egress: LOOPBACK_EGRESS,
      signal: AbortSignal.timeout(30 * 60_000),
      options: { rate_per_second: 1000, concurrency: 16 },
    });
    for await (const event of events as AsyncIterable<EngineEvent>) {
      if (event.type === 'finding') findings.push(event.finding);
      else if (event.type === 'log' && /requests sent\.$/.test(event.message)) requests += Number(/: (\d+) requests sent/.exec(event.message)?.[1] ?? 0);
      else if (event.type === 'incomplete' || (event.type === 'log' && event.level === 'warn')) console.log(`  rampart: ${event.type === 'incomplete' ? 'incomplete: ' : ''}${event.message}`);
    }
  } finally {
    clearInterval(sampler);
  }
  const perRule = new Map<string, number>();
  for (const f of findings) perRule.set(f.ruleId, (perRule.get(f.ruleId) ?? 0) + 1);
  return {
    name: 'rampart-web',
    seconds: (performance.now() - began) / 1000,
    requests,
    peakRss,
    perRule,
    findings: findings.map((f) => ({ ruleId: f.ruleId, path: new URL(f.url!).pathname, parameter: f.parameter ?? null })),
  };
}

interface WapitiReport {
  vulnerabilities?: Record<string, Array<{ path?: string; parameter?: string; method?: string }>>;
}

async function scanWithWapiti(app: VulnApp): Promise<(Score & { categories: Map<string, number> }) | null> {
  try {
    await run('wapiti', ['--version'], { timeout: 30_000 });
  } catch {
    console.log('wapiti is not installed (Debian package wapiti): no comparison.');
    return null;
  }
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rampart-bench-wapiti-'));
  const output = path.join(dir, 'report.json');
  const began = performance.now();
  try {
    await run(
      'wapiti',
      ['-u', app.url, '--scope', 'folder', '--flush-session', '-m', WAPITI_MODULES, '-f', 'json', '-o', output, '--store-session', path.join(dir, 'session'), '--store-config', path.join(dir, 'config'), '-v', '0', '--no-bugreport', '--max-scan-time', '1800'],
      { timeout: 40 * 60_000, maxBuffer: 64 * 1024 * 1024 },
    );
    const seconds = (performance.now() - began) / 1000;
    const report = JSON.parse(await fs.readFile(output, 'utf8')) as WapitiReport;
    const categories = new Map<string, number>();
    const findings: Score['findings'] = [];
    for (const [category, list] of Object.entries(report.vulnerabilities ?? {})) {
      if (list.length === 0) continue;
      categories.set(category, list.length);
      for (const item of list) {
        const ruleId = WAPITI_CATEGORIES[category] ?? `wapiti:${category}`;
        findings.push({ ruleId, path: new URL(item.path ?? '/', app.url).pathname, parameter: item.parameter ?? null });
      }
    }
    return { name: 'wapiti 3', seconds, requests: null, categories, findings };
  } catch (error) {
    console.log(`wapiti failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    return null;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { t, cleanup } = benchContext();
  try {
    const db = await startVulnDatabase(t);
    const app = await startVulnApp(t, { db });
    const expected = app.pages.filter((p) => p.expect).length;
    console.log(`Test application: ${app.pages.length} pages, ${expected} vulnerable pages with an expected finding${db ? '' : ' (no MariaDB: SQL pages left out)'}.`);

    const ours = await scanWithRampart(app);
    const ourScore = judge(app, ours);
    console.log(`\nrampart-web: ${ours.seconds.toFixed(1)} s, ${ours.requests} requests, peak RSS ${(ours.peakRss / 1024 / 1024).toFixed(0)} MiB, ${ours.findings.length} findings`);
    for (const [rule, n] of [...ours.perRule].sort()) console.log(`  ${String(n).padStart(4)}  ${rule}`);
    console.log(`  found ${ourScore.found.length} of ${expected}: ${ourScore.found.join(', ') || '-'}`);
    console.log(`  missed: ${ourScore.missed.join(', ') || '-'}`);
    console.log(`  false positives (findings under /safe/): ${ourScore.falsePositives.length}${ourScore.falsePositives.length ? `: ${ourScore.falsePositives.join('; ')}` : ''}`);

    const theirs = await scanWithWapiti(app);
    if (theirs) {
      const theirScore = judge(app, theirs);
      console.log(`\nwapiti: ${theirs.seconds.toFixed(1)} s, ${theirs.findings.length} findings`);
      for (const [category, n] of [...theirs.categories].sort()) console.log(`  ${String(n).padStart(4)}  ${category}${WAPITI_CATEGORIES[category] ? ` (${WAPITI_CATEGORIES[category]})` : ''}`);
      console.log(`  found ${theirScore.found.length} of ${expected}: ${theirScore.found.join(', ') || '-'}`);
      console.log(`  false positives (findings under /safe/): ${theirScore.falsePositives.length}${theirScore.falsePositives.length ? `: ${theirScore.falsePositives.join('; ')}` : ''}`);
      console.log('\n                      rampart-web     wapiti');
      console.log(`  wall time (s)     ${ours.seconds.toFixed(1).padStart(11)} ${theirs.seconds.toFixed(1).padStart(10)}`);
      console.log(`  findings          ${String(ours.findings.length).padStart(11)} ${String(theirs.findings.length).padStart(10)}`);
      console.log(`  expected found    ${`${ourScore.found.length}/${expected}`.padStart(11)} ${`${theirScore.found.length}/${expected}`.padStart(10)}`);
      console.log(`  false positives   ${String(ourScore.falsePositives.length).padStart(11)} ${String(theirScore.falsePositives.length).padStart(10)}`);
    }
  } finally {
    await cleanup();
  }
}

await main();
