/**
 * Browser tests of the web application: a real listening Rampart (its base URL is the address it
 * listens on, so mailed links work) and Debian's Chromium driven by playwright-core. One browser
 * per test file; each test gets its own context (its own cookies). `checkPage` runs axe-core on the
 * page, fails on any serious or critical violation and on any console error (a CSP violation is
 * one), and saves a screenshot to docs/screenshots/.
 */
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Engine } from '../../src/engines/engine.js';
import type { ScanType } from '../../src/shared/scan-types.js';
import { createUser } from '../../src/accounts/users.service.js';
import { startSession } from '../../src/accounts/sessions.service.js';
import type { User } from '../../src/db/schema.js';
import { cookieNames } from '../../src/web/web-context.js';
import type { BackgroundOptions } from '../../src/runs/background.js';
import type { Config } from '../../src/config.js';
import { buildTestApp, startTestBackground, type TestApp } from './app.js';
import { findFreeLoopbackPort } from '../../src/shared/free-port.js';

export const CHROMIUM = process.env.RAMPART_TEST_CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOTS = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../docs/screenshots');

/** Skips the test when Debian's Chromium is absent, naming the package; returns whether it may run. */
export function requireChromium(t: TestContext): boolean {
  if (existsSync(CHROMIUM)) return true;
  t.skip(`needs Chromium at ${CHROMIUM} (Debian package chromium: apt-get install chromium)`);
  return false;
}


export interface WebServer extends TestApp {
  /** The base URL it listens on, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  /** The browser contexts of `newPage` on this server: closed before the server is. */
  contexts: Set<BrowserContext>;
}

/** Rampart listening on a loopback port, its base URL that address; stopped after the test. */
export async function startWebServer(
  t: TestContext,
  options: {
    env?: Record<string, string>;
    /** Settings that are no environment variable (e.g. where the agent bundle is). */
    config?: Partial<Config>;
    engines?: Partial<Record<ScanType, Engine>>;
    clock?: () => Date;
    /**
     * Starts the in-process background as `rampart serve` does: the run worker (with report mail
     * and webhook deliveries) and, when `scheduler` is true, the scheduler. `lookup` resolves
     * webhook host names (a test receiver's name to 127.0.0.1).
     */
    background?: { scheduler?: boolean; lookup?: BackgroundOptions['lookup'] };
  } = {},
): Promise<WebServer> {
  const port = await findFreeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  // `after` hooks run in the order they were added: this one, added before the store's, stops the
  // background while the store is still open.
  // The pages go first: a page still open keeps polling the server (its live regions) on a
  // keep-alive connection, and the server's close would wait for that connection for ever.
  const contexts = new Set<BrowserContext>();
  let stopBackground: (() => Promise<void>) | undefined;
  t.after(async () => {
    await Promise.all([...contexts].map((context) => context.close()));
    await stopBackground?.();
  });
  const ctx = await buildTestApp(t, {
    env: { RAMPART_BASE_URL: url, RAMPART_ALLOW_TARGETS: '127.0.0.0/8', ...options.env },
    ...(options.engines ? { engines: options.engines } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.config ? { config: options.config } : {}),
  });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  if (options.background) {
    const background = startTestBackground(ctx, {
      mail: true,
      scheduler: options.background.scheduler ?? false,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.background.lookup ? { lookup: options.background.lookup } : {}),
    });
    stopBackground = () => background.stop();
  }
  return { ...ctx, url, contexts };
}

let browser: Promise<Browser> | undefined;

/** The test file's Chromium, launched on first use and closed when the process's tests end. */
export function sharedBrowser(): Promise<Browser> {
  browser ??= chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // The machine's network is closed: no background traffic, no component updates, no sandbox as root.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  return browser;
}

/** Closes the shared browser: call from a top-level `after` of each browser test file. */
export async function closeBrowser(): Promise<void> {
  if (!browser) return;
  const open = browser;
  browser = undefined;
  await (await open).close();
}

export interface TestPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and page errors seen so far (CSP violations appear here). */
  problems: string[];
}

/** A fresh browser context and page (no cookies), closed after the test. */
export async function newPage(t: TestContext, server: WebServer): Promise<TestPage> {
  const context = await (await sharedBrowser()).newContext({ baseURL: server.url, acceptDownloads: true, viewport: { width: 1280, height: 800 } });
  server.contexts.add(context);
  t.after(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems: string[] = [];
  page.on('console', (message) => {
    // A failed load is reported below with its URL (a 404 page's own document is not a problem).
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text());
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && response.request().resourceType() !== 'document' && response.request().resourceType() !== 'fetch') {
      problems.push(`${response.status()} for ${response.request().resourceType()} ${response.url()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return { page, context, problems };
}

/**
 * Signs a browser in as a new (or given) account without the sign-in form: the account is made
 * verified and a session is started in the store, its cookie put in the context.
 */
export async function signInAs(server: WebServer, tp: TestPage, input: { role?: string; email?: string; user?: User } = {}): Promise<User> {
  const user =
    input.user ??
    (await createUser(server.store.db, {
      email: input.email ?? `person-${Math.random().toString(16).slice(2, 10)}@example.com`,
      password: 'a long enough password for tests',
      role: input.role ?? 'trial',
      emailVerified: true,
    }));
  const session = await startSession(server.store.db, user, { idleMinutes: 60, maxHours: 2 }, {});
  await tp.context.addCookies([{ name: cookieNames(false).session, value: session.token, url: server.url, httpOnly: true, sameSite: 'Lax' }]);
  return user;
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * The checks every page passes: no serious or critical axe-core violation (WCAG 2.1 A and AA
 * rules), no console error or CSP violation so far; then a full-page screenshot named `name`
 * into docs/screenshots/ (the documentation shows them). Throws with the list of problems.
 */
export async function checkPage(tp: TestPage, name: string): Promise<void> {
  const { page } = tp;
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: unknown[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] });
    return result.violations;
  })) as AxeViolation[];
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const problems = [
    ...serious.map((v) => `axe ${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`),
    ...tp.problems.map((p) => `console: ${p}`),
  ];
  if (problems.length > 0) throw new Error(`page ${name} (${page.url()}) has problems:\n${problems.join('\n')}`);
  await fs.mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true, animations: 'disabled' });
}

/** Decodes a quoted-printable body (nodemailer's encoding of long text lines). */
function decodeQuotedPrintable(text: string): string {
  return text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The newest mail written to `<data dir>/mail/` for `to`, decoded; undefined when none. */
export async function latestMail(server: WebServer, to: string): Promise<{ subject: string; text: string; file: string } | undefined> {
  const dir = path.join(server.dataDir, 'mail');
  const files = existsSync(dir) ? (await fs.readdir(dir)).filter((f) => f.endsWith('.eml')).sort() : [];
  for (const file of files.reverse()) {
    const raw = await fs.readFile(path.join(dir, file), 'utf8');
    const [head = '', ...body] = raw.split(/\r?\n\r?\n/);
    if (!new RegExp(`^To: .*${to.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'mi').test(head)) continue;
    const subject = /^Subject: (.*)$/m.exec(head)?.[1] ?? '';
    const text = /quoted-printable/i.test(head) ? decodeQuotedPrintable(body.join('\n\n')) : body.join('\n\n');
    return { subject, text, file };
  }
  return undefined;
}

/** The first link in a text that starts with `prefix`. */
export function linkIn(text: string, prefix: string): string {
  const match = new RegExp(`${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[^\\s<>"]*`).exec(text);
  if (!match) throw new Error(`no link starting ${prefix} in:\n${text}`);
  return match[0];
}
