/**
 * bench/web: the web application's budgets (issue 17): JavaScript on first load under 200 KB
 * compressed, and the first page rendered in under 1 s on loopback. A real `rampart serve` on the
 * embedded store, Debian's Chromium through playwright-core, every main page loaded cold (a new
 * browser context: empty cache) `--runs` times. The peer, measured in the same run and process, is
 * the Swagger UI of /docs (an established front end served by the same server).
 *
 *   npm run bench:web [-- --runs 5]
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { BIN, freePort } from '../test/helpers/cli.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const RUNS = Number(values.runs);
const CHROMIUM = process.env.RAMPART_TEST_CHROMIUM ?? '/usr/bin/chromium';
const JS_BUDGET = 200 * 1024;
const RENDER_BUDGET_MS = 1000;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rampart-bench-web-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = { ...process.env, RAMPART_DATA_DIR: dataDir, RAMPART_PORT: String(port), RAMPART_BASE_URL: base, RAMPART_LOG_LEVEL: 'warn' };
const server = spawn(process.execPath, [BIN, 'serve'], { env, stdio: 'ignore' });
for (;;) {
  try {
    if ((await fetch(`${base}/sign-in`)).ok) break;
  } catch {
    /* not listening yet */
  }
  if (server.exitCode !== null) throw new Error('rampart serve exited during start-up');
  await new Promise((r) => setTimeout(r, 20));
}

interface Load {
  jsGzip: number;
  cssGzip: number;
  htmlGzip: number;
  fcpMs: number;
  loadMs: number;
}

/** One cold load of `url` in a new context (optionally signed in with `cookies`). */
async function coldLoad(browser: Browser, url: string, cookies: Parameters<import('playwright-core').BrowserContext['addCookies']>[0]): Promise<Load> {
  const context = await browser.newContext();
  if (cookies.length > 0) await context.addCookies(cookies);
  const page = await context.newPage();
  const sizes = { js: 0, css: 0, html: 0 };
  const pending: Promise<void>[] = [];
  page.on('response', (response) => {
    const type = response.request().resourceType();
    const kind = type === 'script' ? 'js' : type === 'stylesheet' ? 'css' : type === 'document' ? 'html' : undefined;
    if (!kind) return;
    pending.push(
      response
        .body()
        .then((body) => void (sizes[kind] += gzipSync(body).length))
        .catch(() => undefined),
    );
  });
  await page.goto(url, { waitUntil: 'load' });
  await Promise.all(pending);
  // The paint entry can be recorded after the load event: observed (buffered) rather than read once.
  const timing = await page.evaluate(async () => {
    const fcp = await new Promise<number>((resolve) => {
      new PerformanceObserver((list) => {
        const entry = list.getEntriesByName('first-contentful-paint')[0];
        if (entry) resolve(entry.startTime);
      }).observe({ type: 'paint', buffered: true });
      setTimeout(() => resolve(Number.NaN), 5000);
    });
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    return { fcp, load: nav.loadEventEnd };
  });
  await context.close();
  return { jsGzip: sizes.js, cssGzip: sizes.css, htmlGzip: sizes.html, fcpMs: timing.fcp, loadMs: timing.load };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const email = `bench-${Date.now()}@example.com`;
  const password = 'a benchmark password of some length';
  execFileSync(process.execPath, [BIN, 'user', 'create', '--email', email, '--password', password, '--role', 'admin'], { env });
  // Sign in through the form, as a person would, and keep the session cookie for the cold loads.
  const signIn = await browser.newContext();
  const page = await signIn.newPage();
  await page.goto(`${base}/sign-in`);
  await page.locator('#f-email').fill(email);
  await page.locator('#f-password').fill(password);
  await Promise.all([page.waitForURL(`${base}/`), page.getByRole('button', { name: 'Sign in' }).click()]);
  const cookies = await signIn.cookies();
  await signIn.close();

  const pages: [string, boolean][] = [
    ['/sign-in', false],
    ['/', true],
    ['/scans', true],
    ['/scans/new', true],
    ['/vulnerabilities', true],
    ['/targets', true],
    ['/webhooks', true],
    ['/settings', true],
    ['/settings/api-keys', true],
  ];
  console.log(`bench/web: ${RUNS} cold loads per page, rampart serve on PGlite, ${CHROMIUM}`);
  console.log('page                 JS (gzip)   CSS (gzip)  HTML (gzip)  first paint  load');
  let worstJs = 0;
  let worstFcp = 0;
  for (const [pathname, signedIn] of pages) {
    const loads: Load[] = [];
    for (let i = 0; i < RUNS; i++) loads.push(await coldLoad(browser, `${base}${pathname}`, signedIn ? cookies : []));
    const js = median(loads.map((l) => l.jsGzip));
    const fcp = median(loads.map((l) => l.fcpMs));
    worstJs = Math.max(worstJs, js);
    worstFcp = Math.max(worstFcp, fcp);
    console.log(
      `${pathname.padEnd(20)} ${kb(js).padStart(9)}  ${kb(median(loads.map((l) => l.cssGzip))).padStart(10)}  ${kb(median(loads.map((l) => l.htmlGzip))).padStart(11)}  ${`${fcp.toFixed(0)} ms`.padStart(11)}  ${`${median(loads.map((l) => l.loadMs)).toFixed(0)} ms`.padStart(6)}`,
    );
  }
  const peer: Load[] = [];
  for (let i = 0; i < RUNS; i++) peer.push(await coldLoad(browser, `${base}/docs/static/index.html`, []));
  const peerJs = median(peer.map((l) => l.jsGzip));
  const peerFcp = median(peer.map((l) => l.fcpMs));
  console.log(`${'peer: Swagger UI'.padEnd(20)} ${kb(peerJs).padStart(9)}  ${kb(median(peer.map((l) => l.cssGzip))).padStart(10)}  ${kb(median(peer.map((l) => l.htmlGzip))).padStart(11)}  ${`${peerFcp.toFixed(0)} ms`.padStart(11)}`);
  console.log('');
  console.log(`JavaScript, largest page: ${kb(worstJs)} of the ${kb(JS_BUDGET)} budget (${((worstJs / JS_BUDGET) * 100).toFixed(1)}%); Swagger UI loads ${(peerJs / Math.max(1, worstJs)).toFixed(0)}x as much`);
  console.log(`First paint, slowest page (median): ${worstFcp.toFixed(0)} ms of the ${RENDER_BUDGET_MS} ms budget; Swagger UI ${peerFcp.toFixed(0)} ms (ratio ${(peerFcp / worstFcp).toFixed(2)})`);
  if (worstJs > JS_BUDGET || worstFcp > RENDER_BUDGET_MS) process.exitCode = 1;
} finally {
  await browser.close();
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
