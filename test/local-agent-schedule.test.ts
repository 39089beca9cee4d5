/**
 * Scheduled Unmanaged scans (`agent_frequency`): runs awaiting the agent at each period (the
 * scheduler driven with a clock), a run no agent took ended as missed with its notices when the
 * next is due, a run an agent still holds then stopped; the field shown, updated, and refused on managed scans.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import pino from 'pino';
import { reapExpiredLeases } from '../src/runs/lease-reaper.js';
import { fireDueScans } from '../src/runs/scheduler.js';
import { signUp, STORE_KIND, type TestApp } from './helpers/app.js';
import { agentApp, agentCall, downloadAgent, SELF, unmanagedScan, wireFinding } from './helpers/local-agent.js';

const silent = pino({ level: 'silent' });

async function show(ctx: TestApp, auth: Record<string, string>, uuid: string) {
  return (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}`, headers: auth })).json().data;
}

async function runsOf(ctx: TestApp, auth: Record<string, string>, uuid: string) {
  return (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: auth })).json().runs;
}

test(`a Daily Unmanaged scan: runs await the agent, an untaken one is missed (${STORE_KIND})`, async (t) => {
  const created = new Date('2026-03-01T12:00:00Z');
  const ctx = await agentApp(t, { clock: () => created });
  const owner = await signUp(ctx, { role: 'pro' });
  const uuid = await unmanagedScan(ctx, owner, { agent_frequency: 'Daily', scan_start_date: '2026-03-02', scan_start_time: '9:00 AM', scan_time_zone: 'Europe/Berlin' });
  const scan = await show(ctx, owner.auth, uuid);
  assert.equal(scan.agent_frequency, 'Daily');
  assert.equal(scan.next_run_at, '2026-03-02T08:00:00.000Z');
  assert.deepEqual(await runsOf(ctx, owner.auth, uuid), [], 'no run before the first period');

  assert.equal(await fireDueScans(ctx.store.db, ctx.config, new Date('2026-03-02T08:00:00Z'), silent), 1);
  let runs = await runsOf(ctx, owner.auth, uuid);
  assert.equal(runs[0].scan_progress, 'Awaiting agent');
  assert.equal(runs[0].trigger, 'schedule');
  assert.equal((await show(ctx, owner.auth, uuid)).next_run_at, '2026-03-03T08:00:00.000Z');

  // Nobody took run 0: when run 1 is due, run 0 ends as missed.
  assert.equal(await fireDueScans(ctx.store.db, ctx.config, new Date('2026-03-03T08:00:00Z'), silent), 1);
  runs = await runsOf(ctx, owner.auth, uuid);
  assert.equal(runs.length, 2);
  assert.equal(runs[0].status, 'completed');
  assert.equal(runs[0].outcome, 'failed');
  assert.equal(runs[0].scan_progress, 'Missed');
  assert.equal(runs[0].error_kind, 'missed');
  assert.equal(runs[0].error, 'No agent took this run before the next one was due (2026-03-03T08:00:00.000Z): run the agent with --daemon to run scheduled scans.');
  assert.equal(runs[1].scan_progress, 'Awaiting agent');
  // Its report email was queued as for any failed run.
  const missedId = runs[0].run_folder;
  assert.equal((await ctx.store.db.selectFrom('mail_outbox').select('id').where('run_id', '=', missedId).execute()).length, 1);

  // An agent holds run 1 and heart-beats, but the scan never ends (hung, or longer than a day):
  // when run 2 is due, run 1 is stopped, and the agent hears it at its next heartbeat.
  const { credential } = await downloadAgent(ctx, owner, uuid);
  const call = (path: string, payload: unknown, method: 'POST' | 'PUT' = 'POST') => agentCall(ctx, credential, uuid, method, path, payload);
  const taken = await call('/runs/1/take', SELF);
  assert.equal(taken.statusCode, 200, taken.body);
  const { lease } = taken.json();
  assert.equal((await call('/runs/1/heartbeat', { lease, percent: 30 })).json().cancel, false);
  assert.equal((await call('/runs/1/chunks/0', { lease, events: [wireFinding('10.20.0.7')] }, 'PUT')).statusCode, 200);
  assert.equal(await fireDueScans(ctx.store.db, ctx.config, new Date('2026-03-04T08:00:00Z'), silent), 1);
  runs = await runsOf(ctx, owner.auth, uuid);
  assert.equal(runs.length, 3);
  assert.equal(runs[1].status, 'completed');
  assert.equal(runs[1].outcome, 'cancelled');
  assert.equal(runs[1].error_kind, 'deadline');
  assert.equal(runs[1].error, 'The agent was still running this scan when the next run was due (2026-03-04T08:00:00.000Z): it was stopped so that the schedule goes on. Narrow the targets, or choose a longer agent frequency.');
  assert.equal(runs[2].scan_progress, 'Awaiting agent');
  assert.equal((await show(ctx, owner.auth, uuid)).next_run_at, '2026-03-05T08:00:00.000Z');
  assert.equal((await ctx.store.db.selectFrom('mail_outbox').select('id').where('run_id', '=', runs[1].run_folder).execute()).length, 1, 'the stopped run is reported');
  assert.equal((await ctx.store.db.selectFrom('agent_chunks').select('seq').execute()).length, 0, 'the stopped run keeps no chunks');
  const beat = await call('/runs/1/heartbeat', { lease, percent: 31 });
  assert.equal(beat.statusCode, 200, beat.body);
  assert.equal(beat.json().cancel, true, 'the agent is told to stop');
  const late = await call('/runs/1/complete', { lease, chunks: 1, outcome: 'succeeded', complete: true, engine: { name: 'rampart agent', version: '0.1.0' } });
  assert.equal(late.statusCode, 409, 'its results are not recorded as a success');
  assert.equal((await runsOf(ctx, owner.auth, uuid))[1].outcome, 'cancelled');
  assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/vulnerabilities', headers: owner.auth })).json().data.length, 0);
});

test(`an attempt whose lease expired, then missed: its late complete is a 409 and its chunks are gone (${STORE_KIND})`, async (t) => {
  const ctx = await agentApp(t, { clock: () => new Date('2026-03-01T12:00:00Z') });
  const owner = await signUp(ctx, { role: 'pro' });
  const uuid = await unmanagedScan(ctx, owner, { agent_frequency: 'Daily', scan_start_date: '2026-03-02', scan_start_time: '9:00 AM', scan_time_zone: 'UTC' });
  assert.equal(await fireDueScans(ctx.store.db, ctx.config, new Date('2026-03-02T09:00:00Z'), silent), 1);
  const { credential } = await downloadAgent(ctx, owner, uuid);
  const call = (path: string, payload: unknown, method: 'POST' | 'PUT' = 'POST') => agentCall(ctx, credential, uuid, method, path, payload);
  const lease = (await call('/runs/0/take', SELF)).json().lease;
  assert.equal((await call('/runs/0/chunks/0', { lease, events: [wireFinding('10.20.0.7')] }, 'PUT')).statusCode, 200);

  // The agent goes quiet: the reaper gives the run back, then the next period ends it missed.
  await ctx.store.db.updateTable('runs').set({ lease_expires_at: sql`now() - interval '1 second'` }).where('status', '=', 'current').execute();
  assert.equal((await reapExpiredLeases({ db: ctx.store.db, config: ctx.config, log: silent, queue: ctx.app.ctx.queue })).awaitingAgent, 1);
  assert.equal(await fireDueScans(ctx.store.db, ctx.config, new Date('2026-03-03T09:00:00Z'), silent), 1);
  assert.equal((await runsOf(ctx, owner.auth, uuid))[0].scan_progress, 'Missed');
  assert.equal((await ctx.store.db.selectFrom('agent_chunks').select('seq').execute()).length, 0, 'the missed run keeps no chunks');

  // The old agent wakes up and completes: no false success.
  const late = await call('/runs/0/complete', { lease, chunks: 1, outcome: 'succeeded', complete: true, engine: { name: 'rampart agent', version: '0.1.0', detail: 'on host lab-7' } });
  assert.equal(late.statusCode, 409, late.body);
  assert.match(late.json().message, /no longer holds the run/);
  assert.equal((await runsOf(ctx, owner.auth, uuid))[0].scan_progress, 'Missed');
});

test(`a rerun an agent took within the period is left alone when the next is due (${STORE_KIND})`, async (t) => {
  const ctx = await agentApp(t, { clock: () => new Date('2026-03-01T12:00:00Z') });
  const owner = await signUp(ctx, { role: 'pro' });
  const uuid = await unmanagedScan(ctx, owner, { agent_frequency: 'Daily', scan_start_date: '2026-03-02', scan_start_time: '9:00 AM', scan_time_zone: 'UTC' });
  const { credential } = await downloadAgent(ctx, owner, uuid);
  const call = (path: string, payload: unknown) => agentCall(ctx, credential, uuid, 'POST', path, payload);
  const rerun = await ctx.app.inject({ method: 'POST', url: `/api/scans/${uuid}/rerun`, headers: owner.auth });
  assert.equal(rerun.statusCode, 202, rerun.body);
  // Queued at the store's clock, 2026-03-02T09:00 is due before it: less than a period ago.
  await sql`update runs set queued_at = '2026-03-02T08:59:00Z'`.execute(ctx.store.db);
  const { lease } = (await call('/runs/0/take', SELF)).json();
  assert.equal(await fireDueScans(ctx.store.db, ctx.config, new Date('2026-03-02T09:00:00Z'), silent), 0, 'the period is skipped');
  assert.equal((await runsOf(ctx, owner.auth, uuid))[0].status, 'current');
  assert.equal((await call('/runs/0/heartbeat', { lease, percent: 50 })).json().cancel, false);
  // Still held a whole period later: stopped.
  assert.equal(await fireDueScans(ctx.store.db, ctx.config, new Date('2026-03-03T09:00:00Z'), silent), 1);
  const runs = await runsOf(ctx, owner.auth, uuid);
  assert.deepEqual([runs[0].outcome, runs[0].error_kind, runs[1].scan_progress], ['cancelled', 'deadline', 'Awaiting agent']);
  assert.equal((await call('/runs/0/heartbeat', { lease, percent: 51 })).json().cancel, true);
});

test(`agent_frequency: One-time by default, updated, refused on managed scans (${STORE_KIND})`, async (t) => {
  const now = new Date('2026-03-01T12:00:00Z');
  const ctx = await agentApp(t, { clock: () => now });
  const owner = await signUp(ctx, { role: 'pro' });
  const uuid = await unmanagedScan(ctx, owner);
  const scan = await show(ctx, owner.auth, uuid);
  assert.equal(scan.agent_frequency, 'One-time');
  assert.equal(scan.next_run_at, null);
  assert.equal((await runsOf(ctx, owner.auth, uuid))[0].scan_progress, 'Awaiting agent');

  const weekly = await ctx.app.inject({ method: 'PUT', url: `/api/scans/${uuid}`, headers: owner.auth, payload: { agent_frequency: 'Weekly', scan_start_date: '2026-03-06', scan_start_time: '22:00' } });
  assert.equal(weekly.statusCode, 200, weekly.body);
  assert.equal((await show(ctx, owner.auth, uuid)).agent_frequency, 'Weekly');
  assert.equal((await show(ctx, owner.auth, uuid)).next_run_at, '2026-03-06T22:00:00.000Z');
  const once = await ctx.app.inject({ method: 'PUT', url: `/api/scans/${uuid}`, headers: owner.auth, payload: { agent_frequency: 'One-time' } });
  assert.equal(once.statusCode, 200, once.body);
  assert.equal((await show(ctx, owner.auth, uuid)).next_run_at, null);

  const managed = {
    scan_name: 'web',
    scan_type: 'Rampart',
    scan_frequency: 'Daily',
    scan_time_zone: 'UTC',
    scan_email: 'ops@example.com',
    scan_target: '93.184.216.34',
  };
  const refused = await ctx.app.inject({ method: 'POST', url: '/api/new-scan', headers: owner.auth, payload: { ...managed, agent_frequency: 'Daily' } });
  assert.equal(refused.statusCode, 422);
  assert.match(refused.json().errors.agent_frequency[0], /for Unmanaged scans only/);
  const made = await ctx.app.inject({ method: 'POST', url: '/api/new-scan', headers: owner.auth, payload: managed });
  const managedUuid = made.json().uuid;
  assert.equal((await show(ctx, owner.auth, managedUuid)).agent_frequency, null);
  const update = await ctx.app.inject({ method: 'PUT', url: `/api/scans/${managedUuid}`, headers: owner.auth, payload: { agent_frequency: 'Weekly' } });
  assert.equal(update.statusCode, 422);
  assert.ok(update.json().errors.agent_frequency);
  const bad = await ctx.app.inject({ method: 'POST', url: '/api/new-scan', headers: owner.auth, payload: { ...managed, scan_frequency: 'Unmanaged', scan_type: 'OpenVas', agent_frequency: 'Hourly' } });
  assert.equal(bad.statusCode, 422);
  assert.ok(bad.json().errors.agent_frequency);
});
