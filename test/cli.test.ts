import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openTestStore, STORE_KIND, tempDir } from './helpers/app.js';
import { freePort, runCli, startServe } from './helpers/cli.js';

/** Environment for a child rampart on a fresh store of the kind under test. */
async function cliEnv(t: Parameters<typeof tempDir>[0]): Promise<Record<string, string | undefined>> {
  const dataDir = await tempDir(t);
  const storeEnv = STORE_KIND === 'postgres' ? (await openTestStore(t, { migrate: false })).env : {};
  return { RAMPART_DATA_DIR: dataDir, RAMPART_LOG_LEVEL: 'info', ...storeEnv };
}

test(`CLI: --help on every command`, async () => {
  for (const args of [['--help'], ['serve', '--help'], ['migrate', '--help'], ['user', 'create', '--help'], ['key', 'create', '--help'], ['key', 'list', '--help'], ['key', 'delete', '--help']]) {
    const res = await runCli(args, {});
    assert.equal(res.code, 0, args.join(' '));
    assert.match(res.stdout, /Usage: rampart/, args.join(' '));
  }
});

test(`CLI: accounts and keys on the store directly (${STORE_KIND})`, async (t) => {
  const env = await cliEnv(t);

  const migrated = await runCli(['migrate'], env);
  assert.equal(migrated.code, 0, migrated.stderr);
  assert.match(migrated.stdout, /0001-foundation/);

  const created = await runCli(['user', 'create', '--email', 'Ops@Example.com', '--password', 'long enough pass', '--name', 'Ops', '--role', 'admin'], env);
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, /Created user \d+: Ops <Ops@Example.com>, role admin/);

  const key = await runCli(['key', 'create', '--email', 'ops@example.com', '--name', 'ci'], env);
  assert.equal(key.code, 0, key.stderr);
  const lines = key.stdout.trim().split('\n');
  const apiKey = lines.at(-1)!;
  assert.match(apiKey, /^rk_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/, 'the key alone on the last line');

  const listed = await runCli(['key', 'list', '--email', 'ops@example.com'], env);
  assert.equal(listed.code, 0);
  assert.ok(listed.stdout.includes(apiKey.slice(0, 11)), 'the prefix is listed');
  assert.ok(!listed.stdout.includes(apiKey), 'the key itself never is');

  const deleted = await runCli(['key', 'delete', '--email', 'ops@example.com', '--key', apiKey.slice(0, 11)], env);
  assert.equal(deleted.code, 0, deleted.stderr);
  const emptied = await runCli(['key', 'list', '--email', 'ops@example.com'], env);
  assert.equal(emptied.code, 0, emptied.stderr);
  assert.match(emptied.stdout, /has no API keys/);

  const bad: [string[], RegExp][] = [
    [['user', 'create', '--email', 'ops@example.com', '--password', 'long enough pass'], /email has already been taken/],
    [['user', 'create', '--email', 'not-an-email', '--password', 'long enough pass'], /valid email address/],
    [['user', 'create', '--email', 'x@example.com', '--password', 'short'], /at least 12 characters/],
    [['user', 'create', '--email', 'x@example.com', '--password', 'long enough pass', '--role', 'emperor'], /role is invalid/],
    [['user', 'create', '--password', 'long enough pass'], /required option '--email <email>'/],
    [['key', 'create', '--email', 'nobody@example.com'], /No account with email nobody@example.com/],
    [['key', 'delete', '--email', 'ops@example.com', '--key', 'rk_00000000'], /API key not found/],
    [['serve', '--port', 'eighty'], /must be a port number/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ];
  for (const [args, message] of bad) {
    const res = await runCli(args, env);
    assert.notEqual(res.code, 0, args.join(' '));
    assert.match(res.stderr, message, args.join(' '));
  }
});

test(`CLI: serve answers, admin commands reach its store, logs keep secrets, SIGTERM stops it (${STORE_KIND})`, async (t) => {
  const env = await cliEnv(t);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const serveEnv = { ...env, RAMPART_PORT: String(port), RAMPART_BASE_URL: base };
  const server = startServe(t, serveEnv);
  await server.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('Rampart ') && l.msg.includes('listening'));
  await server.waitForLog((l) => typeof l.msg === 'string' && l.msg.includes('bin/rampart.js user create'));

  // While serve holds the embedded store, the CLI goes through it.
  const created = await runCli(['user', 'create', '--email', 'live@example.com', '--password', 'long enough pass'], serveEnv);
  assert.equal(created.code, 0, created.stderr);
  const key = (await runCli(['key', 'create', '--email', 'live@example.com'], serveEnv)).stdout.trim().split('\n').at(-1)!;
  assert.match(key, /^rk_/);

  const exchange = await fetch(`${base}/api/token?key=${key}`, { method: 'POST' });
  assert.equal(exchange.status, 200);
  const { token } = (await exchange.json()) as { token: string };
  const me = await fetch(`${base}/api/user`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(me.status, 200);
  assert.equal(((await me.json()) as { email: string }).email, 'live@example.com');
  // Sent where it does not belong, the token is refused and still kept out of the log.
  assert.equal((await fetch(`${base}/api/user?api_token=${token}`)).status, 401);
  const refreshed = await fetch(`${base}/api/refresh`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  assert.equal(refreshed.status, 200);
  const requestId = refreshed.headers.get('x-request-id');

  const logged = await server.waitForLog((l) => l.reqId === requestId && l.msg === 'request completed');
  assert.equal((logged.res as { statusCode: number }).statusCode, 200);
  const text = JSON.stringify(server.logs);
  assert.ok(text.includes('[REDACTED]'), 'the key in the token URL is masked');
  assert.ok(!text.includes(key), 'the API key is never logged');
  assert.ok(!text.includes(key.slice(12)), 'no part of the key secret is logged');
  assert.ok(!text.includes(token), 'tokens are never logged');
  assert.ok(!text.includes('long enough pass'), 'passwords are never logged');

  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
  assert.ok(server.logs.some((l) => l.msg === 'shutting down'));
  assert.equal(fs.existsSync(path.join(env.RAMPART_DATA_DIR!, 'rampart.lock')), false, 'the store lock is released');
});
