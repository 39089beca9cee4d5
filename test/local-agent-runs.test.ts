/**
 * A local agent's attempt through the public surface: check-in, take, heartbeat, chunks (stored as
 * sent, idempotent, scoped to the scan's targets), complete (missing chunks listed, replayed through
 * the run recorder once, idempotent), a second agent refused, a retake dropping the old attempt's
 * chunks, an expired lease back to Awaiting agent, and Unmanaged runs never claimed by workers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import pino from 'pino';
import { reapExpiredLeases } from '../src/runs/lease-reaper.js';
import { claimRun } from '../src/scans/runs.service.js';
import { signUp, STORE_KIND, type TestApp } from './helpers/app.js';
import { agentApp, agentCall, downloadAgent, SELF, unmanagedScan, wireFinding } from './helpers/local-agent.js';

const ENGINE = { name: 'rampart agent', version: '0.1.0', detail: 'on host lab-7' };

async function runRow(ctx: TestApp, uuid: string, runIndex = 0) {
  return ctx.store.db
    .selectFrom('runs')
    .innerJoin('scans', 'scans.id', 'runs.scan_id')
    .selectAll('runs')
    .where('scans.uuid', '=', uuid)
    .where('runs.run_index', '=', runIndex)
    .executeTakeFirstOrThrow();
}

async function findingsOf(ctx: TestApp, user: Awaited<ReturnType<typeof signUp>>): Promise<number> {
  const res = await ctx.app.inject({ method: 'GET', url: '/api/vulnerabilities?per_page=1', headers: user.auth });
  return res.json().meta.total;
}

test(`an agent's attempt from take to complete (${STORE_KIND})`, async (t) => {
  const ctx = await agentApp(t);
  const owner = await signUp(ctx, { role: 'pro' });
  const uuid = await unmanagedScan(ctx, owner);
  const { credential } = await downloadAgent(ctx, owner, uuid);
  const call = (method: 'POST' | 'PUT', path: string, payload: unknown) => agentCall(ctx, credential, uuid, method, path, payload);

  const checkIn = (await call('POST', '/check-in', SELF)).json();
  assert.deepEqual(checkIn.run, { run_index: 0, held_by_you: false });
  assert.deepEqual(checkIn.scan.targets, [{ kind: 'cidr', value: '10.20.0.0/24' }, { kind: 'hostname', value: 'nas.office.lan' }]);

  const taken = await call('POST', '/runs/0/take', SELF);
  assert.equal(taken.statusCode, 200, taken.body);
  const { lease, job, lease_seconds } = taken.json();
  assert.equal(lease_seconds, 120);
  assert.deepEqual(job.targets, checkIn.scan.targets);
  assert.equal(job.ports, ctx.config.scan.ports);
  assert.equal(job.limits.connectTimeoutMs, ctx.config.scan.connectTimeoutMs);
  assert.equal(taken.json().vulndb_synced_at, null);
  let row = await runRow(ctx, uuid);
  assert.equal(row.progress, 'Running 0%');
  assert.equal(row.attempts, 1);
  assert.equal(row.agent_hostname, 'lab-7');
  assert.ok(!JSON.stringify(row).includes(lease), 'the lease itself is not stored');
  assert.deepEqual((await call('POST', '/check-in', SELF)).json().run, { run_index: 0, held_by_you: true });

  // Another agent may not take it while the lease lives.
  const rival = await call('POST', '/runs/0/take', { ...SELF, agent_id: 'agent-two', hostname: 'lab-8' });
  assert.equal(rival.statusCode, 409);
  assert.match(rival.json().message, /held by another agent \(lab-7\)/);
  assert.equal((await call('POST', '/check-in', { ...SELF, agent_id: 'agent-two' })).json().run, null);

  const beat = await call('POST', '/runs/0/heartbeat', { lease, percent: 40 });
  assert.equal(beat.statusCode, 200, beat.body);
  assert.equal(beat.json().cancel, false);
  assert.equal((await runRow(ctx, uuid)).progress, 'Running 40%');
  assert.equal((await call('POST', '/runs/0/heartbeat', { lease: 'not-the-lease', percent: 41 })).statusCode, 409);

  const chunk0 = { lease, events: [{ type: 'host', hostname: '10.20.0.5', address: '10.20.0.5', state: 'up' }, wireFinding('10.20.0.5')] };
  assert.equal((await call('PUT', '/runs/0/chunks/0', chunk0)).statusCode, 200);
  // The same chunk again (its answer was lost): 200, stored once. Keys in another order are the same chunk.
  const reordered = { events: chunk0.events.map((e) => Object.fromEntries(Object.entries(e).reverse())), lease };
  assert.equal((await call('PUT', '/runs/0/chunks/0', reordered)).statusCode, 200);
  const changed = await call('PUT', '/runs/0/chunks/0', { lease, events: [wireFinding('10.20.0.6')] });
  assert.equal(changed.statusCode, 409);
  assert.match(changed.json().message, /already sent with other events/);
  const outside = await call('PUT', '/runs/0/chunks/1', { lease, events: [wireFinding('nas.office.lan'), wireFinding('192.168.1.1')] });
  assert.equal(outside.statusCode, 422);
  assert.deepEqual(Object.keys(outside.json().errors), ['events.1']);
  assert.match(outside.json().message, /192\.168\.1\.1 is not among the scan's targets/);
  // The address beside a host of the scan: its own for an address; any address for one of the scan's names.
  const wrongAddress = await call('PUT', '/runs/0/chunks/1', {
    lease,
    events: [
      { type: 'host', hostname: '10.20.0.5', address: '192.168.1.1', state: 'up' },
      wireFinding('10.20.0.5', 'rampart:telnet-open', 'nas.office.lan'),
      { type: 'finding', finding: { ...wireFinding('10.20.0.5').finding, url: 'http://169.254.169.254/latest/meta-data/' } },
      { type: 'finding', finding: { ...wireFinding('nas.office.lan').finding, url: 'http://nas.office.lan:8080/admin' } },
      { type: 'host', hostname: 'nas.office.lan', address: '192.168.50.4', state: 'up' },
      // One host spelt another way would be another host in the findings.
      { type: 'host', hostname: '[10.20.0.5]', address: '', state: 'up' },
      { type: 'host', hostname: '10.20.0.5', address: '::ffff:10.20.0.5', state: 'up' },
      { type: 'finding', finding: { ...wireFinding('nas.office.lan').finding, url: 'http://nas.office.lan./admin' } },
    ],
  });
  assert.equal(wrongAddress.statusCode, 422);
  assert.deepEqual(Object.keys(wrongAddress.json().errors), ['events.0', 'events.1', 'events.2', 'events.5', 'events.6']);
  assert.match(wrongAddress.json().errors['events.5'][0], /host \[10\.20\.0\.5\] is not written plainly/);
  assert.match(wrongAddress.json().errors['events.6'][0], /address ::ffff:10\.20\.0\.5 is an IPv4 address written as IPv6/);
  assert.match(wrongAddress.json().errors['events.0'][0], /address 192\.168\.1\.1 is not among the scan's targets/);
  assert.match(wrongAddress.json().errors['events.1'][0], /address nas\.office\.lan is not an IP address/);
  assert.match(wrongAddress.json().errors['events.2'][0], /URL http:\/\/169\.254\.169\.254\/latest\/meta-data\/ is not on one of the scan's targets/);
  const invalid = await call('PUT', '/runs/0/chunks/1', { lease, events: [{ type: 'finding', finding: { hostname: 'x' } }] });
  assert.equal(invalid.statusCode, 422);
  assert.equal((await call('PUT', '/runs/0/chunks/1000', { lease, events: [] })).statusCode, 422);
  assert.equal((await call('PUT', '/runs/0/chunks/1', { lease: 'stolen', events: [] })).statusCode, 409);
  assert.equal((await call('PUT', '/runs/0/chunks/2', { lease, events: [wireFinding('nas.office.lan', 'rampart:ftp-anonymous')] })).statusCode, 200);

  const missing = await call('POST', '/runs/0/complete', { lease, chunks: 3, outcome: 'succeeded', complete: true, engine: ENGINE });
  assert.equal(missing.statusCode, 409);
  assert.deepEqual(missing.json().missing, [1]);
  // Keys the protocol does not know are not stored: the chunk without them is the same chunk.
  assert.equal((await call('PUT', '/runs/0/chunks/1', { lease, events: [{ type: 'log', level: 'warn', message: 'UDP not scanned', secret: 'x' }] })).statusCode, 200);
  assert.equal((await call('PUT', '/runs/0/chunks/1', { lease, events: [{ type: 'log', level: 'warn', message: 'UDP not scanned' }] })).statusCode, 200);
  const done = await call('POST', '/runs/0/complete', { lease, chunks: 3, outcome: 'succeeded', complete: true, engine: ENGINE });
  assert.equal(done.statusCode, 200, done.body);
  assert.deepEqual(done.json(), { run_index: 0, findings: 2 });
  // Completed again with the same lease (its answer was lost): the same answer, nothing recorded twice.
  const again = await call('POST', '/runs/0/complete', { lease, chunks: 3, outcome: 'succeeded', complete: true, engine: ENGINE });
  assert.deepEqual(again.json(), { run_index: 0, findings: 2 });
  assert.equal(await findingsOf(ctx, owner), 2);

  const runs = (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: owner.auth })).json().runs;
  assert.equal(runs[0].scan_progress, 'Completed');
  assert.equal(runs[0].outcome, 'succeeded');
  assert.equal(runs[0].engine, 'rampart agent');
  assert.equal(runs[0].engine_version, '0.1.0');
  assert.equal(runs[0].findings_count, 2);
  assert.equal(runs[0].hosts_up, 1);
  assert.deepEqual(runs[0].notes, ['UDP not scanned']);
  assert.equal(runs[0].lifecycle.new, 2);
  row = await runRow(ctx, uuid);
  assert.equal(row.lease_owner, null);
  assert.equal((await ctx.store.db.selectFrom('agent_chunks').select('seq').execute()).length, 0);
  // The run's report email was queued as for any run.
  assert.equal((await ctx.store.db.selectFrom('mail_outbox').select('id').where('run_id', '=', row.id).execute()).length, 1);
  assert.equal((await call('POST', '/runs/0/heartbeat', { lease, percent: 50 })).statusCode, 409);
  assert.equal((await call('POST', '/runs/0/take', SELF)).statusCode, 409);
  assert.equal((await call('POST', '/check-in', SELF)).json().run, null);
});

test(`a retaken attempt starts over and an expired lease awaits an agent again (${STORE_KIND})`, async (t) => {
  const ctx = await agentApp(t);
  const owner = await signUp(ctx, { role: 'pro' });
  const uuid = await unmanagedScan(ctx, owner);
  const { credential } = await downloadAgent(ctx, owner, uuid);
  const call = (method: 'POST' | 'PUT', path: string, payload: unknown) => agentCall(ctx, credential, uuid, method, path, payload);

  const first = (await call('POST', '/runs/0/take', SELF)).json().lease;
  assert.equal((await call('PUT', '/runs/0/chunks/0', { lease: first, events: [wireFinding('10.20.0.7')] })).statusCode, 200);
  // The same agent restarted: it retakes at once; the old attempt's chunks and lease are gone.
  const second = (await call('POST', '/runs/0/take', SELF)).json().lease;
  assert.notEqual(second, first);
  assert.equal((await runRow(ctx, uuid)).attempts, 2);
  assert.equal((await ctx.store.db.selectFrom('agent_chunks').select('seq').execute()).length, 0);
  assert.equal((await call('PUT', '/runs/0/chunks/0', { lease: first, events: [wireFinding('10.20.0.7')] })).statusCode, 409);
  assert.equal((await call('PUT', '/runs/0/chunks/0', { lease: second, events: [wireFinding('10.20.0.7')] })).statusCode, 200);

  // The agent stops heart-beating: after its lease the reaper gives the run back, chunks kept.
  await ctx.store.db.updateTable('runs').set({ lease_expires_at: sql`now() - interval '1 second'` }).where('status', '=', 'current').execute();
  const reaped = await reapExpiredLeases({ db: ctx.store.db, config: ctx.config, log: pino({ level: 'silent' }), queue: ctx.app.ctx.queue });
  assert.deepEqual(reaped, { requeued: 0, failed: 0, awaitingAgent: 1 });
  const row = await runRow(ctx, uuid);
  assert.equal(row.progress, 'Awaiting agent');
  assert.equal(row.lease_owner, null);
  assert.equal(row.status, 'current');
  assert.equal((await ctx.store.db.selectFrom('agent_chunks').select('seq').execute()).length, 1);
  assert.equal((await call('POST', '/runs/0/heartbeat', { lease: second, percent: 10 })).statusCode, 409);
  // Reaped again much later: still waiting (no attempts limit for agents).
  assert.deepEqual(await reapExpiredLeases({ db: ctx.store.db, config: ctx.config, log: pino({ level: 'silent' }), queue: ctx.app.ctx.queue }), { requeued: 0, failed: 0, awaitingAgent: 0 });

  // Another agent takes it now; the findings of the re-sent chunk are stored once.
  const third = (await call('POST', '/runs/0/take', { ...SELF, agent_id: 'agent-two' })).json().lease;
  assert.equal((await call('PUT', '/runs/0/chunks/0', { lease: third, events: [wireFinding('10.20.0.7')] })).statusCode, 200);
  const done = await call('POST', '/runs/0/complete', { lease: third, chunks: 1, outcome: 'succeeded', complete: true, engine: ENGINE });
  assert.deepEqual(done.json(), { run_index: 0, findings: 1 });
  assert.equal(await findingsOf(ctx, owner), 1);
  assert.equal((await runRow(ctx, uuid)).attempts, 3);
});

test(`a failed attempt ends the run failed with its error (${STORE_KIND})`, async (t) => {
  const ctx = await agentApp(t);
  const owner = await signUp(ctx, { role: 'pro' });
  const uuid = await unmanagedScan(ctx, owner);
  const { credential } = await downloadAgent(ctx, owner, uuid);
  const lease = (await agentCall(ctx, credential, uuid, 'POST', '/runs/0/take', SELF)).json().lease;
  const res = await agentCall(ctx, credential, uuid, 'POST', '/runs/0/complete', {
    lease,
    chunks: 0,
    outcome: 'failed',
    error: 'The network 10.20.0.0/24 is unreachable from this machine.',
    error_kind: 'network-permanent',
    complete: false,
    engine: ENGINE,
  });
  assert.equal(res.statusCode, 200, res.body);
  const run = (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: owner.auth })).json().runs[0];
  assert.equal(run.outcome, 'failed');
  assert.equal(run.scan_progress, 'Failed');
  assert.equal(run.error_kind, 'network-permanent');
  assert.match(run.error, /unreachable/);
  // A run that is no longer current cannot be looked up for, nor taken.
  assert.equal((await agentCall(ctx, credential, uuid, 'POST', '/runs/0/lookup', { lease, cpe: 'cpe:2.3:a:openbsd:openssh:9.6:p1:*:*:*:*:*:*' })).statusCode, 409);
  assert.equal((await agentCall(ctx, credential, uuid, 'POST', '/runs/7/take', SELF)).statusCode, 404);
});

test(`lookup answers the vulnerability database, empty when none is synced (${STORE_KIND})`, async (t) => {
  const ctx = await agentApp(t);
  const owner = await signUp(ctx, { role: 'pro' });
  const uuid = await unmanagedScan(ctx, owner);
  const { credential } = await downloadAgent(ctx, owner, uuid);
  const lease = (await agentCall(ctx, credential, uuid, 'POST', '/runs/0/take', SELF)).json().lease;
  const res = await agentCall(ctx, credential, uuid, 'POST', '/runs/0/lookup', { lease, cpe: 'cpe:2.3:a:openbsd:openssh:9.6:p1:*:*:*:*:*:*' });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json(), { vulnerabilities: [] });
  assert.equal((await agentCall(ctx, credential, uuid, 'POST', '/runs/0/lookup', { lease: 'other', cpe: 'cpe:2.3:a:x:y:1:*:*:*:*:*:*:*' })).statusCode, 409);
});

test(`unknown fields are not stored and the engine name is the agent's or OpenVAS (${STORE_KIND})`, async (t) => {
  const ctx = await agentApp(t);
  const owner = await signUp(ctx, { role: 'pro' });
  const uuid = await unmanagedScan(ctx, owner);
  const { credential } = await downloadAgent(ctx, owner, uuid);
  const call = (method: 'POST' | 'PUT', path: string, payload: unknown) => agentCall(ctx, credential, uuid, method, path, payload);
  const lease = (await call('POST', '/runs/0/take', { ...SELF, junk: 'x' })).json().lease;
  const event = wireFinding('10.20.0.7');
  const sent = await call('PUT', '/runs/0/chunks/0', { lease, junk: 'x', events: [{ ...event, finding: { ...event.finding, junk: 'A'.repeat(1000) } }] });
  assert.equal(sent.statusCode, 200, sent.body);
  const stored = await ctx.store.db.selectFrom('agent_chunks').select('events').executeTakeFirstOrThrow();
  assert.ok(!JSON.stringify(stored.events).includes('junk'), 'nothing unknown is stored');

  const complete = { lease, chunks: 1, outcome: 'succeeded', complete: true };
  const invented = await call('POST', '/runs/0/complete', { ...complete, engine: { name: 'nessus', version: '10' } });
  assert.equal(invented.statusCode, 422, invented.body);
  assert.ok(invented.json().errors, invented.body);
  const openvas = await call('POST', '/runs/0/complete', { ...complete, engine: { name: 'openvas', version: '22.4.1', detail: 'gvmd on lab-7' } });
  assert.equal(openvas.statusCode, 200, openvas.body);
  assert.equal((await runRow(ctx, uuid)).status, 'completed');
});

test(`an attempt's chunks are bounded in all by RAMPART_UPLOAD_MAX_BYTES (${STORE_KIND})`, async (t) => {
  const ctx = await agentApp(t, { uploadMaxBytes: 5000 });
  const owner = await signUp(ctx, { role: 'pro' });
  const uuid = await unmanagedScan(ctx, owner);
  const { credential } = await downloadAgent(ctx, owner, uuid);
  const lease = (await agentCall(ctx, credential, uuid, 'POST', '/runs/0/take', SELF)).json().lease;
  const event = wireFinding('10.20.0.7');
  const big = [{ ...event, finding: { ...event.finding, evidence: 'A'.repeat(2500) } }];
  assert.equal((await agentCall(ctx, credential, uuid, 'PUT', '/runs/0/chunks/0', { lease, events: big })).statusCode, 200);
  const over = await agentCall(ctx, credential, uuid, 'PUT', '/runs/0/chunks/1', { lease, events: big });
  assert.equal(over.statusCode, 413, over.body);
  assert.match(over.json().message, /would exceed 5000 bytes in all \(RAMPART_UPLOAD_MAX_BYTES\)/);
  assert.equal((await ctx.store.db.selectFrom('agent_chunks').select('seq').execute()).length, 1);
});

test(`workers never claim a run of an Unmanaged scan, whatever its progress (${STORE_KIND})`, async (t) => {
  const ctx = await agentApp(t);
  const owner = await signUp(ctx, { role: 'pro' });
  await unmanagedScan(ctx, owner);
  // Even a run that looks queued (as one re-queued by an older version would).
  await ctx.store.db.updateTable('runs').set({ progress: 'Queued' }).execute();
  assert.equal(await claimRun(ctx.store.db, 'worker-1', 60, ['OpenVas', 'Rampart']), undefined);
});

test(`two agents taking at once: one takes the run, the other gets 409 (${STORE_KIND})`, async (t) => {
  const ctx = await agentApp(t);
  const owner = await signUp(ctx, { role: 'pro' });
  const uuid = await unmanagedScan(ctx, owner);
  const { credential } = await downloadAgent(ctx, owner, uuid);
  const takes = await Promise.all(
    ['agent-a', 'agent-b', 'agent-c'].map((agent_id) => agentCall(ctx, credential, uuid, 'POST', '/runs/0/take', { ...SELF, agent_id })),
  );
  assert.deepEqual(takes.map((res) => res.statusCode).sort(), [200, 409, 409]);
  const winner = takes.find((res) => res.statusCode === 200)!.json().lease;
  assert.equal((await agentCall(ctx, credential, uuid, 'POST', '/runs/0/heartbeat', { lease: winner, percent: 5 })).statusCode, 200);
  assert.equal((await runRow(ctx, uuid)).attempts, 1);
});
