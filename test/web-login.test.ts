/**
 * Login scripts (src/engines/web/login/): each supported shape of script (test/fixtures/login/)
 * signs in to the authenticated test application in a real headless Chromium, and the session it
 * returns works through the real web client; a failing script fails with its own error; the
 * browser reaches only what the guard allows; the script sees none of Rampart's environment; a
 * script over its time limit, or a scan stopped mid-login, leaves no process and no directory
 * behind; a token in the page's storage becomes the bearer header; scan creation refuses
 * `zap_authenticated` where login scripts cannot run. The browser tests need Debian's chromium,
 * chromium-driver and python3-selenium (skipped, naming them, without).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EngineError } from '../src/engines/engine.js';
import type { BrowserCookie } from '../src/engines/web/contract.js';
import { createWebClient } from '../src/engines/web/http/client.js';
import { createLoginRunner } from '../src/engines/web/login/run-login.js';
import { bearerToken, toLoginSession } from '../src/engines/web/login/session.js';
import { loginScriptSupport, unprivilegedAccount } from '../src/engines/web/login/support.js';
import type { EngineRegistry } from '../src/engines/registry.js';
import { validateNewScan, validateScanUpdate } from '../src/scans/scans.validation.js';
import type { CreateScanBody } from '../src/scans/scans.schema.js';
import { AppError } from '../src/shared/errors.js';
import { createAddressGuard } from '../src/shared/address-guard.js';
import { createEgress } from '../src/shared/egress.js';
import { LOOPBACK_EGRESS } from './helpers/egress.js';
import { requireProgram, tempDir } from './helpers/daemons.js';
import { startVulnApp, type VulnApp } from './helpers/vuln-app/app.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const FIXTURES = path.resolve(here, here.includes(`${path.sep}dist${path.sep}`) ? '../../test/fixtures/login' : 'fixtures/login');
const fixture = (name: string): string => readFileSync(path.join(FIXTURES, name), 'utf8');

/** A login takes a browser start (seconds on a loaded machine): generous limits, never asserted on. */
const LOGIN_TIMEOUT_MS = 120_000;

function requireLoginPrograms(t: TestContext): boolean {
  if (!requireProgram(t, '/usr/bin/chromium', 'chromium') || !requireProgram(t, '/usr/bin/chromedriver', 'chromium-driver') || !requireProgram(t, '/usr/bin/python3', 'python3')) return false;
  if (spawnSync('/usr/bin/python3', ['-c', 'import selenium']).status !== 0) {
    t.skip('Selenium not found for /usr/bin/python3: install the Debian package python3-selenium');
    return false;
  }
  return true;
}

/**
 * What the app says of a session, through the real client: whether its index page shows the user
 * signed in, and whether a protected page is redirected to /login.
 */
async function sessionSeenByApp(app: VulnApp, cookies: BrowserCookie[]): Promise<{ signedIn: boolean; redirectedToLogin: boolean }> {
  const client = createWebClient({
    egress: LOOPBACK_EGRESS,
    start: app.url,
    signal: new AbortController().signal,
    ratePerSecond: 0,
    maxConcurrency: 2,
    timeoutMs: 10_000,
    maxRequests: 10,
    deadline: Date.now() + 60_000,
  });
  client.setCookies(cookies);
  const index = await client.send({ method: 'GET', url: app.url });
  const protectedPage = await client.send({ method: 'GET', url: new URL(app.pages.find((p) => p.link)?.link ?? '/members-only', app.url).href });
  return { signedIn: index.body.includes('Signed in.'), redirectedToLogin: protectedPage.status === 302 && protectedPage.headers.location === '/login' };
}

async function loginError(run: Promise<unknown>): Promise<EngineError> {
  const error = await run.then(
    () => assert.fail('the login should have failed'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof EngineError, String(error));
  return error;
}

const login = createLoginRunner({ timeoutMs: LOGIN_TIMEOUT_MS });
const signal = new AbortController().signal;

for (const [shape, file] of [
  ['a plain script using the driver Rampart provides', 'global-driver.py'],
  ['a script that builds its own webdriver.Chrome', 'own-chrome.py'],
  ['a Selenium IDE pytest export', 'selenium-ide.py'],
  ['a unittest script asking for Firefox', 'unittest-firefox.py'],
] as const) {
  test(`login scripts: ${shape} signs in, and its session opens protected pages`, async (t) => {
    if (!requireLoginPrograms(t)) return;
    const app = await startVulnApp(t, { login: true });
    assert.deepEqual(await sessionSeenByApp(app, []), { signedIn: false, redirectedToLogin: true });
    const session = await login({ script: fixture(file), startUrl: app.url, signal, egress: LOOPBACK_EGRESS });
    assert.equal(app.logins(), 1);
    const sid = session.cookies.find((c) => c.name === 'sid');
    assert.ok(sid, JSON.stringify(session.cookies));
    assert.equal(sid.httpOnly, true);
    assert.deepEqual(session.headers, {});
    assert.deepEqual(await sessionSeenByApp(app, session.cookies), { signedIn: true, redirectedToLogin: false });
  });
}

test('login scripts: a failing script fails the login with its own error, and no session', async (t) => {
  if (!requireLoginPrograms(t)) return;
  const app = await startVulnApp(t, { login: true });
  const error = await loginError(login({ script: fixture('failing.py'), startUrl: app.url, signal, egress: LOOPBACK_EGRESS }));
  assert.equal(error.kind, 'config');
  assert.match(error.message, /^The login script failed:/);
  assert.match(error.message, /NoSuchElementException/);
  assert.match(error.message, /user-name/);
  assert.match(error.message, /login_script\.py", line 5/, 'the traceback points at the script');
  assert.doesNotMatch(error.message, /login-runner\.py/, "the runner's own frames are left out");
  assert.ok(error.message.length < 2300, `truncated to about 2 KB (${error.message.length})`);
  assert.equal(app.logins(), 0);
});

test('login scripts: a script that signs in nowhere produces no session, and says so', async (t) => {
  if (!requireLoginPrograms(t)) return;
  const app = await startVulnApp(t, { login: true });
  const error = await loginError(login({ script: 'driver.get(target_url + "login")\n', startUrl: app.url, signal, egress: LOOPBACK_EGRESS }));
  assert.equal(error.kind, 'config');
  assert.match(error.message, /ran but produced no session \(no cookies, no token\)/);
  assert.match(error.message, /\/login/, 'names the page it ended on');
});

test('login scripts: a token the page keeps in localStorage becomes the bearer header', async (t) => {
  if (!requireLoginPrograms(t)) return;
  const app = await startVulnApp(t, { login: true });
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJl';
  const script = `driver.get(target_url)\ndriver.execute_script("localStorage.setItem('access_token', arguments[0]); localStorage.setItem('theme', 'dark')", ${JSON.stringify(jwt)})\n`;
  const session = await login({ script, startUrl: app.url, signal, egress: LOOPBACK_EGRESS });
  assert.deepEqual(session.headers, { authorization: `Bearer ${jwt}` });
  assert.equal(session.storage.local.theme, 'dark');
  assert.deepEqual(session.cookies, []);
});

test('login scripts: the browser reaches only what the guard allows, loopback included', async (t) => {
  if (!requireLoginPrograms(t)) return;
  const app = await startVulnApp(t, { login: true });
  // A server on 127.0.0.2, which this guard refuses; the script signs in, then tries to visit it.
  let reached = 0;
  const forbidden = http.createServer((_request, response) => {
    reached++;
    response.end('secret');
  });
  await new Promise<void>((resolve) => forbidden.listen(0, '127.0.0.2', resolve));
  t.after(() => new Promise<void>((resolve) => forbidden.close(() => resolve())));
  const forbiddenUrl = `http://127.0.0.2:${(forbidden.address() as AddressInfo).port}/`;
  const onlyApp = createEgress({ guard: createAddressGuard(['127.0.0.1/32']) });
  const guarded = createLoginRunner({ timeoutMs: LOGIN_TIMEOUT_MS });
  const script = `${fixture('global-driver.py')}\ndriver.get(${JSON.stringify(forbiddenUrl)})\nprint("forbidden page:", driver.page_source)\ndriver.get(target_url)\n`;
  const session = await guarded({ script, startUrl: app.url, signal, egress: onlyApp });
  assert.equal(reached, 0, 'the server on 127.0.0.2 saw no request');
  assert.ok(session.cookies.some((c) => c.name === 'sid'), 'the allowed app was reached');
});

test("login scripts: the script sees none of Rampart's environment", async (t) => {
  if (!requireLoginPrograms(t)) return;
  const app = await startVulnApp(t, { login: true });
  process.env.RAMPART_TEST_SECRET = 'must-not-leak';
  t.after(() => delete process.env.RAMPART_TEST_SECRET);
  // The script prints its environment, then fails on purpose so that its output comes back.
  const script = [
    'import os, sys',
    'print(sorted(os.environ), file=sys.stderr)',
    'print("HOME=" + os.environ["HOME"] + " CWD=" + os.getcwd() + " UID=" + str(os.getuid()), file=sys.stderr)',
    'try:',
    '    open("/proc/%d/environ" % os.getppid(), "rb").read()',
    '    print("PARENT-ENV=readable", file=sys.stderr)',
    'except PermissionError:',
    '    print("PARENT-ENV=refused", file=sys.stderr)',
    'raise SystemExit(7)',
    '',
  ].join('\n');
  const error = await loginError(login({ script, startUrl: app.url, signal, egress: LOOPBACK_EGRESS }));
  assert.match(error.message, /'PATH'/, 'the environment was printed');
  assert.doesNotMatch(error.message, /RAMPART_|DATABASE_URL|must-not-leak/);
  const keys = /\[([^\]]*)\]/.exec(error.message)?.[1]?.match(/'[^']+'/g)?.map((k) => k.slice(1, -1)) ?? [];
  // Python itself may add LC_CTYPE; nothing else beyond what the runner sets.
  assert.deepEqual(keys.filter((k) => k !== 'LC_CTYPE'), ['HOME', 'LANG', 'PATH', 'TARGET_URL', 'TMPDIR']);
  const home = /HOME=(\S+) CWD=(\S+) UID=(\d+)/.exec(error.message);
  assert.ok(home && home[1] === home[2] && home[1]!.includes('rampart-login-'), 'HOME and cwd are the private temporary directory');
  const account = unprivilegedAccount();
  if (account) {
    // Rampart as root: the script runs as nobody, and cannot read Rampart's own environment either.
    assert.equal(home[3], String(account.uid));
    assert.match(error.message, /PARENT-ENV=refused/);
  } else {
    assert.equal(home[3], String(process.getuid?.()));
  }
});

test('login scripts: a script over its time limit is killed with its browser', async (t) => {
  if (!requireLoginPrograms(t)) return;
  const app = await startVulnApp(t, { login: true });
  // The script reports where its browser runs, then hangs; the runner must kill it all.
  const script = 'import os, sys, time\ndriver.get(target_url)\nprint("BROWSER-DIR=" + os.environ["TMPDIR"], file=sys.stderr, flush=True)\ntime.sleep(3600)\n';
  const root = await tempDir(t, 'login-timeout');
  await chmod(root, 0o755); // traversable by `nobody`, whom the script runs as when the tests run as root
  const quick = createLoginRunner({ timeoutMs: 45_000, tempRoot: root });
  const error = await loginError(quick({ script, startUrl: app.url, signal, egress: LOOPBACK_EGRESS }));
  assert.equal(error.kind, 'config');
  assert.match(error.message, /did not finish within 45 s/);
  const dir = /BROWSER-DIR=(\S+)/.exec(error.message)?.[1];
  assert.ok(dir, `the script got as far as its browser: ${error.message}`);
  assert.ok(dir.startsWith(root));
  assert.deepEqual(await processesUnder(root), [], 'no process of that login is left');
  assert.deepEqual(await readdir(root), [], "the login's private directory is removed");
});

test('login scripts: a scan stopped during the login kills the browser at once', async (t) => {
  if (!requireLoginPrograms(t)) return;
  const app = await startVulnApp(t, { login: true });
  const stopped = new AbortController();
  const early = await loginError(login({ script: fixture('global-driver.py'), startUrl: app.url, signal: AbortSignal.abort(), egress: LOOPBACK_EGRESS }));
  assert.equal(early.kind, 'deadline', 'a scan stopped before the login runs no script');
  // The scan is stopped the moment the browser asks for this page (the script then hangs).
  const trap = http.createServer((_request, response) => {
    stopped.abort();
    response.end('<p>stopping</p>');
  });
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => trap.close(() => resolve())));
  const root = await tempDir(t, 'login-stop');
  await chmod(root, 0o755);
  const stoppable = createLoginRunner({ timeoutMs: LOGIN_TIMEOUT_MS, tempRoot: root });
  const script = `import time\ndriver.get(${JSON.stringify(`http://127.0.0.1:${(trap.address() as AddressInfo).port}/`)})\ntime.sleep(3600)\n`;
  const error = await loginError(stoppable({ script, startUrl: app.url, signal: stopped.signal, egress: LOOPBACK_EGRESS }));
  assert.equal(error.kind, 'deadline');
  assert.match(error.message, /stopped/);
  assert.deepEqual(await processesUnder(root), [], 'no process of that login is left');
  assert.deepEqual(await readdir(root), [], "the login's private directory is removed");
});

test('login scripts: a deployment without the programs is told which Debian packages to install', async () => {
  const missing = loginScriptSupport({ python: '/nonexistent/python3', chromedriver: '/nonexistent/chromedriver' });
  assert.equal(missing.ok, false);
  assert.match(!missing.ok ? missing.reason : '', /Python \(\/nonexistent\/python3, RAMPART_PYTHON\).*ChromeDriver.*python3-selenium, chromium and chromium-driver/);
  const runner = createLoginRunner({ timeoutMs: 10_000, python: '/nonexistent/python3' });
  const error = await loginError(runner({ script: 'pass\n', startUrl: 'http://127.0.0.1:9/', signal, egress: LOOPBACK_EGRESS }));
  assert.equal(error.kind, 'config');
  assert.match(error.message, /python3-selenium, chromium and chromium-driver/);
  const noBrowser = createLoginRunner({ timeoutMs: 60_000, chromium: '/nonexistent/chromium' });
  const browserError = await loginError(noBrowser({ script: 'pass\n', startUrl: 'http://127.0.0.1:9/', signal, egress: LOOPBACK_EGRESS }));
  assert.equal(browserError.kind, 'config');
  assert.match(browserError.message, /^The login script cannot run: .*python3-selenium, chromium and chromium-driver/s);
});

test('scan validation: zap_authenticated is refused up front where login scripts cannot run', async () => {
  const missing = loginScriptSupport({ chromium: '/nonexistent/chromium' });
  const registry = (loginScripts: () => ReturnType<typeof loginScriptSupport>): EngineRegistry => ({
    forScanType: () => ({ available: true, engine: { name: 'zap-stand-in' } as never, loginScripts }),
    availableTypes: () => ['ZAP'],
  });
  const options = (engines: EngineRegistry) => ({ role: 'pro' as const, guard: createAddressGuard([]), maxAddresses: 65_536, loginScriptMaxBytes: 262_144, engines });
  const body = {
    scan_name: 'Signed in',
    scan_type: 'ZAP',
    scan_frequency: 'One-time',
    scan_time_zone: 'UTC',
    scan_email: 'ops@example.com',
    scan_target: 'https://93.184.216.34/app',
    zap_authenticated: true,
    zap_login_script: Buffer.from('driver.get(target_url)\n').toString('base64'),
  } as CreateScanBody;
  const refusal = await validateNewScan(body, options(registry(() => missing))).then(
    () => assert.fail('accepted'),
    (e: unknown) => e,
  );
  assert.ok(refusal instanceof AppError, String(refusal));
  assert.equal(refusal.code, 'validation_failed');
  assert.deepEqual(Object.keys(refusal.errors ?? {}), ['zap_authenticated']);
  assert.match(refusal.errors?.zap_authenticated?.[0] ?? '', /Chromium \(\/nonexistent\/chromium\).*python3-selenium, chromium and chromium-driver/);
  // Where the programs are there, the same scan passes; an unauthenticated one is never asked about.
  assert.equal((await validateNewScan(body, options(registry(() => ({ ok: true }))))).loginScript, 'driver.get(target_url)\n');
  await validateNewScan({ ...body, zap_authenticated: false }, options(registry(() => missing)));
  const stored = { scan_type: 'ZAP' as const, scan_frequency: 'One-time' as const, zap_login_script: 'login-scripts/x.py', scan_start_date: null, scan_start_time: null };
  await assert.rejects(validateScanUpdate({ zap_authenticated: true }, stored, options(registry(() => missing))), AppError);
  await validateScanUpdate({ zap_authenticated: true }, stored, options(registry(() => ({ ok: true }))));
  // A new script alone turns authentication on: refused as well; removing the script is never asked about.
  const script = Buffer.from('driver.get(target_url)\n').toString('base64');
  await assert.rejects(validateScanUpdate({ zap_login_script: script }, stored, options(registry(() => missing))), AppError);
  await validateScanUpdate({ remove_login_script: true }, stored, options(registry(() => missing)));
});

test('login sessions: cookies of other hosts stay behind; the bearer rule', () => {
  const session = toLoginSession(
    {
      cookies: [
        { name: 'sid', value: 'a', domain: 'app.example.test' },
        { name: 'wide', value: 'b', domain: '.example.test' },
        { name: 'idp', value: 'c', domain: 'login.identity.test' },
      ],
      local: {},
      session: {},
      url: 'https://app.example.test/home',
    },
    'https://app.example.test/',
  );
  assert.deepEqual(session.cookies.map((c) => c.name), ['sid', 'wide']);
  const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.sig-nature_';
  const opaque = 'f3a9c1d2e4b5a6978877665544332211';
  assert.equal(bearerToken({ local: { token: opaque }, session: {} }), opaque);
  assert.equal(bearerToken({ local: { id_token: jwt, token: opaque }, session: {} }), jwt, 'a JWT before an opaque token');
  assert.equal(bearerToken({ local: { 'oidc.user:https://idp/:spa': JSON.stringify({ access_token: jwt, refresh_token: opaque }) }, session: {} }), jwt);
  assert.equal(bearerToken({ local: { jwt: JSON.stringify(jwt) }, session: {} }), jwt, 'a JSON string is unwrapped');
  assert.equal(bearerToken({ local: {}, session: { refresh_token: jwt, csrf_token: opaque, theme: 'dark', token: 'short' } }), null);
  assert.equal(bearerToken({ local: { user_name: opaque }, session: {} }), null, 'a long value under a key that names no token');
});

/** Pids of processes whose TMPDIR is `root` or under it (the runner's sweep looks for its own login's exact TMPDIR). */
async function processesUnder(root: string): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const environ = await readFile(`/proc/${name}/environ`).catch(() => null);
    const tmpdir = environ?.toString('latin1').split('\0').find((entry) => entry.startsWith('TMPDIR='));
    if (tmpdir?.slice('TMPDIR='.length).startsWith(root)) found.push(Number(name));
  }
  return found;
}
