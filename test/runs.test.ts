/** Runs end to end: a worker in this process scans real loopback services. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startBackground } from '../src/runs/background.js';
import { buildTestApp, signUp, STORE_KIND, type TestApp } from './helpers/app.js';
import { closedPort, startTcpServer, waitFor } from './helpers/servers.js';
import { standInEngines } from './helpers/scripted-engines.js';
import { OPENVAS_FALLBACK_NOTE } from '../src/engines/registry.js';

const silent = { info() {}, warn() {}, error() {} };

function startWorker(t: Parameters<typeof buildTestApp>[0], ctx: TestApp) {
  const background = startBackground({ db: ctx.store.db, config: ctx.config, guard: ctx.app.ctx.guard, queue: ctx.app.ctx.queue, log: silent, worker: true, scheduler: false });
  t.after(() => background.stop());
  return background;
}

/** Creates a One-time scan through the API; returns its uuid. */
async function createScan(ctx: TestApp, auth: Record<string, string>, scan: { scan_target: string; scan_type?: string; engine_options?: Record<string, unknown> }): Promise<string> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/new-scan',
    headers: auth,
    payload: { scan_name: 'loopback', scan_type: 'Rampart', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', ...scan },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().uuid;
}

async function runsOf(ctx: TestApp, auth: Record<string, string>, uuid: string) {
  const res = await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: auth });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

async function waitForRun(ctx: TestApp, auth: Record<string, string>, uuid: string, index: number) {
  return waitFor(`run ${index} of ${uuid} to complete`, async () => {
    const run = (await runsOf(ctx, auth, uuid)).runs[index];
    return run?.status === 'completed' ? run : undefined;
  });
}

test(`a Rampart run scans loopback services and stores what it found (${STORE_KIND})`, async (t) => {
  const ssh = await startTcpServer(t, { banner: () => 'SSH-2.0-OpenSSH_9.6\r\n' });
  const quiet = await startTcpServer(t);
  const closed = await closedPort();
  const ctx = await buildTestApp(t, {
    env: {
      RAMPART_ALLOW_TARGETS: '127.0.0.0/8',
      RAMPART_SCAN_PORTS: [ssh.port, quiet.port, closed].join(','),
      RAMPART_READ_TIMEOUT_MS: '300',
      RAMPART_WORKER_POLL_MS: '50',
      // The test polls the runs endpoint while it waits.
      RAMPART_RATE_LIMITS: 'basic=100000',
    },
  });
  const user = await signUp(ctx, { role: 'basic' });
  startWorker(t, ctx);

  const uuid = await createScan(ctx, user.auth, { scan_type: 'Rampart', scan_target: '127.0.0.1' });

  const run = await waitForRun(ctx, user.auth, uuid, 0);
  assert.equal(run.outcome, 'succeeded', run.error);
  assert.equal(run.scan_progress, 'Completed');
  assert.equal(run.engine, 'rampart');
  assert.equal(run.hosts_up, 1);
  assert.equal(run.findings_count, 2);
  assert.ok(run.started_at && run.completed_at);

  const findings = await ctx.store.db.selectFrom('findings').selectAll().where('user_id', '=', user.userId).orderBy('port').execute();
  assert.deepEqual(findings.map((f) => f.port).sort(), [ssh.port, quiet.port].sort());
  const sshFinding = findings.find((f) => f.port === ssh.port)!;
  assert.equal(sshFinding.threat, 'Informational');
  assert.equal(sshFinding.host_ip, '127.0.0.1');
  assert.equal(sshFinding.engine, 'rampart');
  assert.equal(sshFinding.scan_type, 'Rampart');
  assert.match(sshFinding.evidence, /SSH-2\.0-OpenSSH_9\.6/);
  assert.equal(sshFinding.status, 'Unresolved');

  const target = await ctx.store.db.selectFrom('targets').selectAll().where('user_id', '=', user.userId).where('target', '=', '127.0.0.1').executeTakeFirstOrThrow();
  assert.equal(target.status, 'Active');
  assert.ok(target.last_scan);
  assert.ok(findings.every((f) => f.target_id === target.id));

  // Triage survives a second run, which updates the same findings instead of adding new ones.
  await ctx.store.db.updateTable('findings').set({ status: 'Accepted' }).where('id', '=', sshFinding.id).execute();
  const rerun = await ctx.app.inject({ method: 'POST', url: `/api/scans/${uuid}/rerun`, headers: user.auth });
  assert.equal(rerun.statusCode, 202);
  assert.deepEqual(rerun.json(), { message: 'Run 1 queued.', run_index: 1 });
  const second = await waitForRun(ctx, user.auth, uuid, 1);
  assert.equal(second.outcome, 'succeeded');
  const after = await ctx.store.db.selectFrom('findings').selectAll().where('user_id', '=', user.userId).execute();
  assert.equal(after.length, 2, 'no duplicates');
  const again = after.find((f) => f.id === sshFinding.id)!;
  assert.equal(again.status, 'Accepted');
  assert.equal(again.run_index, 1);
  assert.ok(again.last_seen_at.getTime() >= sshFinding.last_seen_at.getTime());
  const summary = await runsOf(ctx, user.auth, uuid);
  assert.equal(summary.scan.run_count, 2);
  assert.equal(summary.scan.current_progress, 'Completed');
});

test(`the address guard applies again when a run resolves its targets (${STORE_KIND})`, async (t) => {
  // Listening on the address that will be refused: any connection reaching it is a failure.
  const server = await startTcpServer(t, { host: '127.0.0.2' });
  const env = { RAMPART_SCAN_PORTS: String(server.port), RAMPART_WORKER_POLL_MS: '50' };
  // The scan was accepted while 127.0.0.2 was allowed...
  const api = await buildTestApp(t, { env: { ...env, RAMPART_ALLOW_TARGETS: '127.0.0.0/8' } });
  const user = await signUp(api, { role: 'basic' });
  // ...but the worker's deployment now allows only 127.0.0.1.
  const workerSide = await buildTestApp(t, { env: { ...env, RAMPART_ALLOW_TARGETS: '127.0.0.1/32' }, store: api.store });
  startWorker(t, workerSide);
  const uuid = await createScan(api, user.auth, { scan_type: 'OpenVas', scan_target: '127.0.0.1, 127.0.0.2' });
  workerSide.app.ctx.queue.notify();
  const run = await waitForRun(api, user.auth, uuid, 0);
  assert.equal(run.outcome, 'succeeded');
  assert.equal(run.engine, 'rampart', 'OpenVas scans run the built-in engine and say so');
  assert.equal(run.notes[0], OPENVAS_FALLBACK_NOTE, 'the fallback is said in the notes');
  assert.equal(run.hosts_up, 1);
  assert.equal(run.hosts_down, 1);
  const targets = await api.store.db.selectFrom('targets').select(['target', 'status']).where('user_id', '=', user.userId).orderBy('target').execute();
  assert.deepEqual(targets, [{ target: '127.0.0.1', status: 'Active' }, { target: '127.0.0.2', status: 'Inactive' }]);
  assert.equal(server.connections, 0, 'nothing was sent to the refused address');
});

test(`deleting a scan cancels its running run (${STORE_KIND})`, async (t) => {
  const silentServer = await startTcpServer(t);
  const ctx = await buildTestApp(t, {
    env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8', RAMPART_SCAN_PORTS: String(silentServer.port), RAMPART_READ_TIMEOUT_MS: '60000', RAMPART_WORKER_POLL_MS: '50' },
  });
  const user = await signUp(ctx, { role: 'basic' });
  startWorker(t, ctx);
  const uuid = await createScan(ctx, user.auth, { scan_type: 'Rampart', scan_target: '127.0.0.1' });
  // The engine is now waiting on the silent service's banner: the run is mid-way.
  await silentServer.connected(0);
  const deleted = await ctx.app.inject({ method: 'DELETE', url: `/api/scans/${uuid}`, headers: user.auth });
  assert.equal(deleted.statusCode, 200);
  // The engine was told to stop: it hung up long before its 60 s read timeout.
  await silentServer.allClosed();
  const rows = await ctx.store.db.selectFrom('runs').select('id').execute();
  assert.equal(rows.length, 0);
});

test(`a run of a type with no engine here fails with the reason, as a config failure, when a worker is told to serve it (${STORE_KIND})`, async (t) => {
  // The scan was accepted where Nuclei had an engine (a stand-in); this deployment has no templates.
  const env = { RAMPART_ALLOW_TARGETS: '127.0.0.0/8', RAMPART_WORKER_POLL_MS: '50' };
  const before = await buildTestApp(t, { env, engines: standInEngines() });
  const user = await signUp(before, { role: 'basic' });
  const uuid = await createScan(before, user.auth, { scan_type: 'Nuclei', scan_target: 'http://127.0.0.1:9/' });
  const now = await buildTestApp(t, { env, store: before.store });
  const background = startBackground({ db: now.store.db, config: now.config, guard: now.app.ctx.guard, queue: now.app.ctx.queue, log: silent, worker: true, scheduler: false, types: ['Nuclei'] });
  t.after(() => background.stop());
  const run = await waitForRun(now, user.auth, uuid, 0);
  assert.equal(run.outcome, 'failed');
  assert.equal(run.scan_progress, 'Failed');
  assert.equal(run.error_kind, 'config');
  assert.match(run.error, /^Nuclei scans need nuclei templates/);
  assert.ok(run.notes.some((n: string) => /^Failure kind config:/.test(n)), run.notes.join(' | '));
  // A new one is refused at creation, and the old scan's rerun too, with the same reason.
  const refused = await now.app.inject({
    method: 'POST', url: '/api/new-scan', headers: user.auth,
    payload: { scan_name: 'web', scan_type: 'Nuclei', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: 'http://127.0.0.1:9/' },
  });
  assert.equal(refused.statusCode, 422, refused.body);
  assert.match(refused.json().errors.scan_type[0], /^Nuclei scans need nuclei templates/);
  const rerun = await now.app.inject({ method: 'POST', url: `/api/scans/${uuid}/rerun`, headers: user.auth, payload: {} });
  assert.equal(rerun.statusCode, 422, rerun.body);
  assert.match(rerun.json().errors.scan_type[0], /the templates directory .* does not exist/);
});

test(`a scan's engine options reach the Rampart engine; the run records what ran (${STORE_KIND})`, async (t) => {
  const ssh = await startTcpServer(t, { banner: () => 'SSH-2.0-OpenSSH_9.6\r\n' });
  const closed = await closedPort();
  // The deployment probes only a closed port; the scan's options name the open one.
  const ctx = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8', RAMPART_SCAN_PORTS: String(closed), RAMPART_WORKER_POLL_MS: '50', RAMPART_RATE_LIMITS: 'basic=100000' } });
  const user = await signUp(ctx, { role: 'basic' });
  startWorker(t, ctx);
  const uuid = await createScan(ctx, user.auth, { scan_type: 'Rampart', scan_target: '127.0.0.1', engine_options: { ports: [ssh.port], max_concurrency: 4 } });
  const shown = (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}`, headers: user.auth })).json().data;
  assert.deepEqual(shown.engine_options, { ports: [ssh.port], max_concurrency: 4 });
  const run = await waitForRun(ctx, user.auth, uuid, 0);
  assert.equal(run.outcome, 'succeeded', run.error);
  assert.equal(run.findings_count, 1, 'the port of the options was scanned');
  assert.equal(run.engine, 'rampart');
  assert.match(run.engine_version, /^\d+\.\d+\.\d+$/);
  assert.equal(run.engine_detail, null);
  assert.equal(run.error_kind, null);
});
