/**
 * `rampart import --scan UUID FILE` as a process: through a running `rampart serve` (the admin
 * channel when it holds the embedded store; the store directly on PostgreSQL), printing the run
 * index and counts; an unknown scan and a broken file fail with a message.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { openTestStore, STORE_KIND, tempDir } from './helpers/app.js';
import { freePort, runCli, startServe } from './helpers/cli.js';

const NMAP = `<?xml version="1.0"?>\n<!DOCTYPE nmaprun>\n<nmaprun scanner="nmap" version="7.93">` +
  `<host><status state="up"/><address addr="10.0.0.5" addrtype="ipv4"/><ports><port protocol="tcp" portid="22"><state state="open"/><service name="ssh"/></port></ports></host>` +
  `<host><status state="down"/><address addr="10.0.0.6" addrtype="ipv4"/></host></nmaprun>`;

test(`CLI: rampart import records a file as a run of the scan (${STORE_KIND})`, async (t) => {
  const dataDir = await tempDir(t);
  const storeEnv = STORE_KIND === 'postgres' ? (await openTestStore(t, { migrate: false })).env : {};
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { RAMPART_DATA_DIR: dataDir, RAMPART_LOG_LEVEL: 'info', RAMPART_PORT: String(port), RAMPART_BASE_URL: base, ...storeEnv };
  const server = startServe(t, env);
  await server.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('Rampart ') && l.msg.includes('listening'));

  assert.equal((await runCli(['user', 'create', '--email', 'ops@example.com', '--password', 'long enough pass', '--role', 'pro'], env)).code, 0);
  const key = (await runCli(['key', 'create', '--email', 'ops@example.com'], env)).stdout.trim().split('\n').at(-1)!;
  const { token } = (await (await fetch(`${base}/api/token?key=${key}`, { method: 'POST' })).json()) as { token: string };
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const scan = { scan_name: 'LAN', scan_type: 'OpenVas', scan_frequency: 'Unmanaged', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: '10.0.0.0/24' };
  const created = await fetch(`${base}/api/new-scan`, { method: 'POST', headers: auth, body: JSON.stringify(scan) });
  assert.equal(created.status, 200);
  const { uuid } = (await created.json()) as { uuid: string };

  const file = path.join(dataDir, '..', `nmap-${process.pid}.xml`);
  await writeFile(file, NMAP);
  t.after(async () => (await import('node:fs/promises')).rm(file, { force: true }));
  const first = await runCli(['import', '--scan', uuid, file], env);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /\(nmap 7\.93\) as run (\d+): 1 finding, 1 host up, 1 down\./);
  const runIndex = Number(/as run (\d+)/.exec(first.stdout)![1]);
  const again = await runCli(['import', '--scan', uuid, file], env);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, new RegExp(`as run ${runIndex + 1}: 1 finding`));

  const list = await fetch(`${base}/api/vulnerabilities?lifecycle=still_open`, { headers: auth });
  assert.equal(((await list.json()) as { meta: { total: number } }).meta.total, 1);

  const unknown = await runCli(['import', '--scan', '00000000-0000-4000-8000-000000000000', file], env);
  assert.notEqual(unknown.code, 0);
  assert.match(unknown.stderr, /Scan not found/);
  const broken = path.join(dataDir, '..', `broken-${process.pid}.txt`);
  await writeFile(broken, 'not a scan');
  t.after(async () => (await import('node:fs/promises')).rm(broken, { force: true }));
  const refused = await runCli(['import', '--scan', uuid, broken], env);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /Accepted formats/);
});
