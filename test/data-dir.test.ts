/**
 * The data directory is private to the account running Rampart: `rampart serve` and the CLI,
 * started with umask 0, leave nothing in it that group or others can read or write (store files,
 * lock, admin socket, mail, login scripts), and refuse a directory that others can enter.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { buildTestApp, openTestStore, signUp, STORE_KIND, tempDir } from './helpers/app.js';
import { freePort, runCli, startServe } from './helpers/cli.js';
import { standInEngines } from './helpers/scripted-engines.js';

/** Every path under `dir` (and `dir` itself) whose mode lets group or others in: `find dir -perm /077`. */
function openToOthers(dir: string): string[] {
  const found: string[] = [];
  const visit = (file: string) => {
    const stat = fs.lstatSync(file);
    if ((stat.mode & 0o077) !== 0) found.push(`${path.relative(dir, file) || '.'} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(file)) visit(path.join(file, name));
  };
  visit(dir);
  return found;
}

/** A data directory that does not exist yet, and the environment of the store under test. */
async function freshEnv(t: TestContext): Promise<Record<string, string | undefined>> {
  const dataDir = path.join(await tempDir(t), 'data');
  const storeEnv = STORE_KIND === 'postgres' ? (await openTestStore(t, { migrate: false })).env : {};
  return { RAMPART_DATA_DIR: dataDir, RAMPART_LOG_LEVEL: 'info', ...storeEnv };
}

const listening = (l: Record<string, unknown>) => typeof l.msg === 'string' && l.msg.includes('listening');

test(`serve with umask 0 keeps every file of the data directory private (${STORE_KIND})`, async (t) => {
  const env = await freshEnv(t);
  const dataDir = env.RAMPART_DATA_DIR!;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const serveEnv = { ...env, RAMPART_PORT: String(port), RAMPART_BASE_URL: base };
  const server = startServe(t, serveEnv, { umask: 0 });
  await server.waitForLog(listening);

  // Files of every kind: accounts in the store, mail (no SMTP server: .eml files). Login scripts
  // (ZAP scans) are tested in process below, so that no run of this serve starts a login.
  assert.equal((await runCli(['user', 'create', '--email', 'ops@example.com', '--password', 'long enough pass', '--role', 'admin'], serveEnv, { umask: 0 })).code, 0);
  const key = (await runCli(['key', 'create', '--email', 'ops@example.com'], serveEnv, { umask: 0 })).stdout.trim().split('\n').at(-1)!;
  const { token } = (await (await fetch(`${base}/api/token?key=${key}`, { method: 'POST' })).json()) as { token: string };
  assert.ok(token, 'the API issued a token');
  const registered = await fetch(`${base}/agent/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'agent@example.com' }) });
  assert.equal(registered.status, 202);

  const present = fs.readdirSync(dataDir).sort();
  const expected = STORE_KIND === 'pglite' ? ['admin.sock', 'mail', 'pglite', 'rampart.lock'] : ['mail'];
  assert.deepEqual(present, expected);
  assert.equal(fs.statSync(dataDir).mode & 0o777, 0o700);
  assert.deepEqual(openToOthers(dataDir), []);

  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
});

test(`a ZAP scan's login script is stored private under umask 0 (${STORE_KIND})`, async (t) => {
  // In process, with a stand-in engine, so that no run starts a login.
  const ctx = await buildTestApp(t, { engines: standInEngines() });
  const user = await signUp(ctx, { role: 'pro' });
  const previous = process.umask(0);
  try {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/new-scan',
      headers: user.auth,
      payload: {
        scan_name: 'Login', scan_type: 'ZAP', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com',
        scan_target: 'https://93.184.216.34/app', zap_authenticated: true, zap_login_script: Buffer.from('print("login")\n').toString('base64'),
      },
    });
    assert.equal(res.statusCode, 200, res.body);
  } finally {
    process.umask(previous);
  }
  assert.ok(fs.readdirSync(path.join(ctx.dataDir, 'login-scripts')).length === 1, 'the script was written');
  assert.deepEqual(openToOthers(path.join(ctx.dataDir, 'login-scripts')), []);
});

test('the CLI on the embedded store with umask 0 creates a private data directory', async (t) => {
  if (STORE_KIND !== 'pglite') return t.skip('the CLI opens only the embedded store itself');
  const env = await freshEnv(t);
  const created = await runCli(['user', 'create', '--email', 'cli@example.com', '--password', 'long enough pass'], env, { umask: 0 });
  assert.equal(created.code, 0, created.stderr);
  assert.ok(fs.readdirSync(path.join(env.RAMPART_DATA_DIR!, 'pglite')).length > 0, 'the store was written');
  assert.deepEqual(openToOthers(env.RAMPART_DATA_DIR!), []);

  // What an earlier version left readable inside a private directory is tightened at the next start.
  const old = path.join(env.RAMPART_DATA_DIR!, 'mail', 'old.eml');
  fs.mkdirSync(path.dirname(old), { mode: 0o755 });
  fs.writeFileSync(old, 'To: someone\n', { mode: 0o644 });
  fs.chmodSync(path.dirname(old), 0o755);
  fs.chmodSync(old, 0o644);
  assert.equal((await runCli(['migrate'], env, { umask: 0 })).code, 0);
  assert.deepEqual(openToOthers(env.RAMPART_DATA_DIR!), []);
});

test(`a data directory open to others is refused unless RAMPART_ALLOW_INSECURE_DATA_DIR is set (${STORE_KIND})`, async (t) => {
  const env = await freshEnv(t);
  const dataDir = env.RAMPART_DATA_DIR!;
  fs.mkdirSync(dataDir, { mode: 0o755 });
  fs.chmodSync(dataDir, 0o755);
  const serveEnv = { ...env, RAMPART_PORT: String(await freePort()) };
  const refusals: { command: string; code: number | null | 'listening'; stderr: string }[] = [];
  // serve either exits or, were it to accept the directory, listens (and is stopped at the end).
  const serve = startServe(t, serveEnv);
  const code = await Promise.race([serve.exited, serve.waitForLog(listening).then(() => 'listening' as const, () => serve.exited)]);
  refusals.push({ command: 'serve', code, stderr: serve.stderr() });
  if (STORE_KIND === 'pglite') {
    const migrate = await runCli(['migrate'], serveEnv);
    refusals.push({ command: 'migrate', code: migrate.code, stderr: migrate.stderr });
  }
  for (const refused of refusals) {
    assert.equal(refused.code, 1, refused.command);
    assert.ok(refused.stderr.includes(`data directory ${dataDir} is open to other users (mode 0755)`), refused.stderr);
    assert.ok(refused.stderr.includes(`Run: chmod 700 '${dataDir}'`), refused.stderr);
    assert.match(refused.stderr, /RAMPART_ALLOW_INSECURE_DATA_DIR/);
  }
  assert.deepEqual(fs.readdirSync(dataDir), [], 'nothing was written');

  // Allowed: the CLI opens the store, serve starts (and is stopped when the test ends).
  if (STORE_KIND === 'pglite') assert.equal((await runCli(['migrate'], { ...env, RAMPART_ALLOW_INSECURE_DATA_DIR: '1' })).code, 0);
  await startServe(t, { ...serveEnv, RAMPART_ALLOW_INSECURE_DATA_DIR: 'true' }).waitForLog(listening);
});
