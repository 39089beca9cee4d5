/**
 * `rampart user role`: through the admin channel while `rampart serve` holds the embedded store
 * (on PostgreSQL, straight to the store beside the server), and on the store directly.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTestStore, STORE_KIND, tempDir } from './helpers/app.js';
import { freePort, runCli, startServe } from './helpers/cli.js';

test(`CLI: user role changes a plan, live and on the store (${STORE_KIND})`, async (t) => {
  const dataDir = await tempDir(t);
  const storeEnv = STORE_KIND === 'postgres' ? (await openTestStore(t, { migrate: false })).env : {};
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { RAMPART_DATA_DIR: dataDir, RAMPART_LOG_LEVEL: 'info', RAMPART_PORT: String(port), RAMPART_BASE_URL: base, ...storeEnv };

  const help = await runCli(['user', 'role', '--help'], env);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--role <role>/);

  const server = startServe(t, env);
  await server.waitForLog((l) => typeof l.msg === 'string' && l.msg.includes('listening'));
  assert.equal((await runCli(['user', 'create', '--email', 'dana@example.com', '--password', 'long enough pass'], env)).code, 0);
  const key = (await runCli(['key', 'create', '--email', 'dana@example.com'], env)).stdout.trim().split('\n').at(-1)!;
  const { token } = (await (await fetch(`${base}/api/token?key=${key}`, { method: 'POST' })).json()) as { token: string };
  const role = async () => ((await (await fetch(`${base}/api/user`, { headers: { authorization: `Bearer ${token}` } })).json()) as { role: { name: string } }).role.name;
  assert.equal(await role(), 'trial');

  const changed = await runCli(['user', 'role', '--email', 'DANA@example.com', '--role', 'pro'], env);
  assert.equal(changed.code, 0, changed.stderr);
  assert.equal(changed.stdout, 'Changed the role of dana@example.com from trial to pro.\n');
  assert.equal(await role(), 'pro', 'the running server sees it at the next request');
  const again = await runCli(['user', 'role', '--email', 'dana@example.com', '--role', 'pro'], env);
  assert.equal(again.stdout, 'dana@example.com already has the role pro.\n');

  const bad: [string[], RegExp][] = [
    [['user', 'role', '--email', 'dana@example.com', '--role', 'emperor'], /--role: The selected role is invalid \(one of trial, basic, premium, pro, admin\)/],
    [['user', 'role', '--email', 'nobody@example.com', '--role', 'pro'], /No account with email nobody@example.com/],
    [['user', 'role', '--email', 'dana@example.com'], /required option '--role <role>'/],
  ];
  for (const [args, message] of bad) {
    const res = await runCli(args, env);
    assert.notEqual(res.code, 0, args.join(' '));
    assert.match(res.stderr, message, args.join(' '));
  }
  assert.equal(await role(), 'pro', 'refusals change nothing');

  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
  // No server: the command opens the store itself.
  const offline = await runCli(['user', 'role', '--email', 'dana@example.com', '--role', 'admin'], env);
  assert.equal(offline.code, 0, offline.stderr);
  assert.match(offline.stdout, /from pro to admin/);
  const last = await runCli(['user', 'role', '--email', 'dana@example.com', '--role', 'basic'], env);
  assert.notEqual(last.code, 0);
  assert.match(last.stderr, /only admin account; make another account admin first/);
});
