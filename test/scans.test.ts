/** The scan endpoints through the API. No worker runs here: runs stay queued. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { buildTestApp, signUp, STORE_KIND, type TestApp } from './helpers/app.js';
import { standInEngines } from './helpers/scripted-engines.js';
import { loginScriptOf } from '../src/scans/login-scripts.js';

const PUBLIC_IP = '93.184.216.34';
const BASE = {
  scan_name: 'Perimeter',
  scan_type: 'Rampart',
  scan_frequency: 'One-time',
  scan_time_zone: 'America/New_York',
  scan_email: 'ops@example.com',
  scan_target: PUBLIC_IP,
};
const b64 = (text: string) => Buffer.from(text).toString('base64');

async function createScan(ctx: TestApp, auth: Record<string, string>, body: object): Promise<string> {
  const res = await ctx.app.inject({ method: 'POST', url: '/api/new-scan', headers: auth, payload: body });
  assert.equal(res.statusCode, 200, res.body);
  const { message, uuid } = res.json();
  assert.ok(message.includes(uuid), 'the message holds the new scan uuid');
  return uuid;
}

test(`scan lifecycle through the API (${STORE_KIND})`, async (t) => {
  // A fixed clock: 2026-03-01 12:00 UTC.
  const now = new Date('2026-03-01T12:00:00Z');
  // ZAP scans are created as data here: a stand-in engine makes the type available.
  const ctx = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8,::1/128' }, clock: () => now, engines: standInEngines() });
  const owner = await signUp(ctx, { role: 'pro' });
  const other = await signUp(ctx, { role: 'pro' });

  await t.test('create, list and show', async () => {
    const uuid = await createScan(ctx, owner.auth, { ...BASE, scan_target: `${PUBLIC_IP}, ${PUBLIC_IP}\n127.0.0.1 localhost  ::0001` });
    const list = await ctx.app.inject({ method: 'GET', url: '/api/scans', headers: owner.auth });
    assert.equal(list.statusCode, 200);
    const [scan] = list.json().data;
    assert.equal(scan.uuid, uuid);
    assert.equal(scan.user_id, owner.userId);
    assert.equal(scan.scan_target, `${PUBLIC_IP}, 127.0.0.1, localhost, ::1`, 'normalised, duplicates removed');
    assert.equal(scan.scan_type, 'Rampart');
    assert.equal(scan.zap_authenticated, false);
    assert.equal(scan.zap_login_script, null);
    assert.equal(scan.include_attack_narrative, false);
    assert.equal(scan.scan_frequency, 'One-time');
    assert.equal(scan.next_run_at, null, 'a One-time scan without a start runs now');
    assert.equal(scan.current_progress, 'Queued');
    const shown = await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}`, headers: owner.auth });
    assert.deepEqual(shown.json().data, scan);
    assert.deepEqual((await ctx.app.inject({ method: 'GET', url: '/api/scans', headers: other.auth })).json(), { data: [] });

    const targets = await ctx.store.db.selectFrom('targets').select(['target', 'type', 'status']).where('user_id', '=', owner.userId).orderBy('target').execute();
    assert.deepEqual(targets, [
      { target: '127.0.0.1', type: 'Ip', status: 'Unknown' },
      { target: '93.184.216.34', type: 'Ip', status: 'Unknown' },
      { target: '::1', type: 'Ip', status: 'Unknown' },
      { target: 'localhost', type: 'Domain', status: 'Unknown' },
    ]);
  });

  await t.test('runs summary and rerun while a run is current', async () => {
    const uuid = await createScan(ctx, owner.auth, BASE);
    const res = await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: owner.auth });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(body.scan, { uuid, name: 'Perimeter', type: 'Rampart', current_progress: 'Queued', run_count: 0, total_runs: 1 });
    assert.equal(body.runs.length, 1);
    const [run] = body.runs;
    assert.equal(run.run_index, 0);
    assert.equal(run.status, 'current');
    assert.equal(run.scan_progress, 'Queued');
    assert.equal(typeof run.run_folder, 'number');
    assert.deepEqual(run.available_formats, []);
    assert.equal(run.completed_at, null);

    const rerun = await ctx.app.inject({ method: 'POST', url: `/api/scans/${uuid}/rerun`, headers: owner.auth });
    assert.equal(rerun.statusCode, 409);
    assert.match(rerun.json().message, /already has a run in progress \(run 0\)/);
  });

  await t.test('a scheduled scan exposes next_run_at and previews five runs across DST', async () => {
    const uuid = await createScan(ctx, owner.auth, { ...BASE, scan_frequency: 'Daily', scan_start_date: 'Mar 7, 2026', scan_start_time: '9:30 AM' });
    const preview = await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/schedule`, headers: owner.auth });
    assert.equal(preview.statusCode, 200);
    const body = preview.json();
    assert.equal(body.next_run_at, '2026-03-07T14:30:00.000Z');
    assert.deepEqual(
      body.upcoming.map((u: { at: string }) => u.at),
      // 09:30 New York stays 09:30 local: EST (UTC-5) until Mar 8, then EDT (UTC-4).
      ['2026-03-07T14:30:00.000Z', '2026-03-08T13:30:00.000Z', '2026-03-09T13:30:00.000Z', '2026-03-10T13:30:00.000Z', '2026-03-11T13:30:00.000Z'],
    );
    assert.equal(body.upcoming[1].local, '2026-03-08 09:30 EDT');
    const runs = await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: owner.auth });
    assert.equal(runs.json().runs.length, 0, 'nothing runs before the start');
    assert.equal(runs.json().scan.current_progress, 'Scheduled');
  });

  await t.test('a One-time scan in the future waits for its start', async () => {
    const uuid = await createScan(ctx, owner.auth, { ...BASE, scan_start_date: '2026-04-01', scan_start_time: '6:00 PM', scan_time_zone: 'Europe/Berlin' });
    const scan = (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}`, headers: owner.auth })).json().data;
    assert.equal(scan.next_run_at, '2026-04-01T16:00:00.000Z');
    const preview = (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/schedule`, headers: owner.auth })).json();
    assert.equal(preview.upcoming.length, 1);
  });

  await t.test('an Unmanaged scan waits for the agent; a rerun queues another run for the agent', async () => {
    const uuid = await createScan(ctx, owner.auth, { ...BASE, scan_type: 'OpenVas', scan_frequency: 'Unmanaged', scan_target: '192.168.0.0/24' });
    const runs = (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: owner.auth })).json();
    assert.equal(runs.scan.current_progress, 'Awaiting agent');
    assert.equal(runs.runs[0].scan_progress, 'Awaiting agent');
    // Run 0 still awaits its agent.
    const busy = await ctx.app.inject({ method: 'POST', url: `/api/scans/${uuid}/rerun`, headers: owner.auth });
    assert.equal(busy.statusCode, 409, busy.body);
    assert.match(busy.json().message, /run 0/);
    await ctx.store.db.updateTable('runs').set({ status: 'completed', outcome: 'succeeded', progress: 'Completed' }).where('scan_id', 'in', ctx.store.db.selectFrom('scans').select('id').where('uuid', '=', uuid)).execute();
    const rerun = await ctx.app.inject({ method: 'POST', url: `/api/scans/${uuid}/rerun`, headers: owner.auth });
    assert.equal(rerun.statusCode, 202, rerun.body);
    assert.equal(rerun.json().run_index, 1);
    const after = (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: owner.auth })).json();
    assert.equal(after.runs[1].scan_progress, 'Awaiting agent');
    assert.equal(after.runs[1].trigger, 'rerun');
  });

  await t.test('login scripts are stored, replaced and removed', async () => {
    const uuid = await createScan(ctx, owner.auth, { ...BASE, scan_type: 'ZAP', scan_target: 'https://93.184.216.34/app', zap_authenticated: true, zap_login_script: b64('print("v1")\n') });
    const show = async () => (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}`, headers: owner.auth })).json().data;
    // What a worker replays: the text kept in the store (a worker on another machine has no data directory of the API's).
    const replayed = async () => loginScriptOf('/nonexistent', await ctx.store.db.selectFrom('scans').selectAll().where('uuid', '=', uuid).executeTakeFirstOrThrow());
    assert.equal(await replayed(), 'print("v1")\n');
    const scan = await show();
    assert.equal(scan.zap_authenticated, true);
    assert.equal(scan.zap_login_script, `login-scripts/${uuid}.py`);
    const file = path.join(ctx.dataDir, scan.zap_login_script);
    assert.equal(fs.readFileSync(file, 'utf8'), 'print("v1")\n');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);

    const replaced = await ctx.app.inject({ method: 'PUT', url: `/api/scans/${uuid}`, headers: owner.auth, payload: { zap_login_script: b64('print("v2")\n'), scan_name: 'Renamed' } });
    assert.equal(replaced.statusCode, 200);
    assert.deepEqual(replaced.json(), { message: 'Scan updated successfully.' });
    assert.equal(fs.readFileSync(file, 'utf8'), 'print("v2")\n');
    assert.equal(await replayed(), 'print("v2")\n');
    assert.equal((await show()).scan_name, 'Renamed');

    const removed = await ctx.app.inject({ method: 'PUT', url: `/api/scans/${uuid}`, headers: owner.auth, payload: { remove_login_script: true } });
    assert.equal(removed.statusCode, 200);
    const after = await show();
    assert.equal(after.zap_authenticated, false);
    assert.equal(after.zap_login_script, null);
    assert.equal(fs.existsSync(file), false);
    assert.equal(await replayed(), null);
  });

  await t.test('delete removes the scan, its runs, findings and script', async () => {
    const uuid = await createScan(ctx, owner.auth, { ...BASE, scan_type: 'ZAP', scan_target: 'https://93.184.216.34', zap_authenticated: true, zap_login_script: b64('x = 1\n') });
    const file = path.join(ctx.dataDir, 'login-scripts', `${uuid}.py`);
    assert.ok(fs.existsSync(file));
    const res = await ctx.app.inject({ method: 'DELETE', url: `/api/scans/${uuid}`, headers: owner.auth });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { message: 'Scan deleted successfully.' });
    assert.equal((await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: owner.auth })).statusCode, 404);
    assert.equal(fs.existsSync(file), false);
    const runs = await ctx.store.db.selectFrom('runs').innerJoin('scans', 'scans.id', 'runs.scan_id').select('runs.id').where('scans.uuid', '=', uuid).execute();
    assert.equal(runs.length, 0);
  });

  await t.test('another account, an unknown or a malformed uuid: 404 everywhere', async () => {
    const uuid = await createScan(ctx, owner.auth, BASE);
    const calls: [string, string, object?][] = [
      ['GET', `/api/scans/${uuid}`],
      ['PUT', `/api/scans/${uuid}`, { scan_name: 'mine now' }],
      ['DELETE', `/api/scans/${uuid}`],
      ['GET', `/api/scans/${uuid}/runs`],
      ['POST', `/api/scans/${uuid}/rerun`],
      ['GET', `/api/scans/${uuid}/schedule`],
    ];
    for (const [method, url, payload] of calls) {
      const res = await ctx.app.inject({ method: method as 'GET', url, headers: other.auth, ...(payload ? { payload } : {}) });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
      assert.deepEqual(res.json(), { message: 'Scan not found.' });
    }
    for (const bad of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      assert.equal((await ctx.app.inject({ method: 'GET', url: `/api/scans/${bad}/runs`, headers: owner.auth })).statusCode, 404);
    }
    assert.equal((await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}`, headers: owner.auth })).json().data.scan_name, 'Perimeter', 'unchanged');
  });

  await t.test('401 without a token on every scan endpoint', async () => {
    const uuid = '00000000-0000-4000-8000-000000000000';
    for (const [method, url] of [['GET', '/api/scans'], ['POST', '/api/new-scan'], ['PUT', `/api/scans/${uuid}`], ['DELETE', `/api/scans/${uuid}`], ['GET', `/api/scans/${uuid}/runs`], ['POST', `/api/scans/${uuid}/rerun`]] as const) {
      const res = await ctx.app.inject({ method, url });
      assert.equal(res.statusCode, 401, `${method} ${url}`);
      assert.deepEqual(res.json(), { message: 'Unauthenticated.' });
    }
  });
});
