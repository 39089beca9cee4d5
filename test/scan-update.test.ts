/**
 * PUT /api/scans/{uuid} for the fields beyond the spec's table: targets, frequency, zone, start
 * date and time, email. Each change is checked where a client sees it: GET /api/scans and the
 * schedule preview. A field that cannot be applied is a 422 naming it, and changes nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, signUp, STORE_KIND } from './helpers/app.js';

const DAILY = {
  scan_name: 'Perimeter',
  scan_type: 'Rampart',
  scan_frequency: 'Daily',
  scan_start_date: '2026-03-10',
  scan_start_time: '9:00 AM',
  scan_time_zone: 'Europe/Berlin',
  scan_email: 'ops@example.com',
  scan_target: '93.184.216.34',
};

test(`PUT /api/scans/{uuid} applies targets, schedule and email, or refuses by name (${STORE_KIND})`, async (t) => {
  // A fixed clock: 2026-03-02 10:00 UTC.
  const now = new Date('2026-03-02T10:00:00Z');
  const ctx = await buildTestApp(t, { clock: () => now });
  const user = await signUp(ctx, { role: 'pro' });
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
    ctx.app.inject({ method, url, headers: user.auth, ...(payload ? { payload } : {}) });
  const created = await call('POST', '/api/new-scan', DAILY);
  assert.equal(created.statusCode, 200, created.body);
  const uuid: string = created.json().uuid;

  /** The scan as GET /api/scans lists it. */
  const listed = async () => {
    const res = await call('GET', '/api/scans');
    return (res.json().data as Record<string, unknown>[]).find((s) => s.uuid === uuid)!;
  };
  const preview = async () => (await call('GET', `/api/scans/${uuid}/schedule`)).json();
  const update = async (body: object) => {
    const res = await call('PUT', `/api/scans/${uuid}`, body);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { message: 'Scan updated successfully.' });
  };
  const refused = async (body: object, field: string, message: RegExp) => {
    const before = await listed();
    const res = await call('PUT', `/api/scans/${uuid}`, body);
    assert.equal(res.statusCode, 422, `${JSON.stringify(body)}: ${res.body}`);
    assert.match(res.json().errors[field]?.join(' ') ?? '', message, JSON.stringify(res.json()));
    assert.deepEqual(await listed(), before, 'nothing changed');
  };

  await t.test('scan_target: normalised, checked by the address guard, recorded as targets', async () => {
    await update({ scan_target: '1.1.1.1 8.8.8.8, 1.1.1.1' });
    assert.equal((await listed()).scan_target, '1.1.1.1, 8.8.8.8');
    const targets = (await call('GET', '/api/targets?per_page=100')).json().data.map((x: { target: string }) => x.target);
    assert.ok(targets.includes('8.8.8.8'), 'a new target is a target of the account');
    await refused({ scan_target: '127.0.0.1' }, 'scan_target', /loopback.*managed scans cannot reach it/);
    await refused({ scan_target: 'https://example.com/app' }, 'scan_target', /./);
    await refused({ scan_target: '' }, 'scan_target', /required/);
  });

  await t.test('scan_frequency: the schedule and the preview follow', async () => {
    assert.equal((await listed()).next_run_at, '2026-03-10T08:00:00.000Z');
    await update({ scan_frequency: 'Weekly' });
    const scan = await listed();
    assert.equal(scan.scan_frequency, 'Weekly');
    assert.equal(scan.next_run_at, '2026-03-10T08:00:00.000Z');
    const weekly = await preview();
    assert.equal(weekly.scan_frequency, 'Weekly');
    // 09:00 in Berlin every week; summer time starts on 29 March.
    assert.deepEqual(weekly.upcoming.map((o: { at: string }) => o.at), [
      '2026-03-10T08:00:00.000Z', '2026-03-17T08:00:00.000Z', '2026-03-24T08:00:00.000Z', '2026-03-31T07:00:00.000Z', '2026-04-07T07:00:00.000Z',
    ]);
    await refused({ scan_frequency: 'Unmanaged' }, 'scan_frequency', /cannot become Unmanaged/);
    await refused({ scan_frequency: 'Hourly' }, 'scan_frequency', /invalid/);
  });

  await t.test('scan_time_zone: the same local time in the new zone', async () => {
    await update({ scan_time_zone: 'America/New_York' });
    const scan = await listed();
    assert.equal(scan.scan_time_zone, 'America/New_York');
    // New York is on summer time (UTC-4) from 8 March: 09:00 there is 13:00 UTC.
    assert.equal(scan.next_run_at, '2026-03-10T13:00:00.000Z');
    const shown = await preview();
    assert.equal(shown.scan_time_zone, 'America/New_York');
    assert.match(shown.upcoming[0].local, /^2026-03-10 09:00 /);
    await refused({ scan_time_zone: 'Mars/Olympus_Mons' }, 'scan_time_zone', /IANA time zone/);
  });

  await t.test('scan_start_time and scan_start_date: parsed as at creation, the anchor moves', async () => {
    await update({ scan_start_time: '6:30 PM' });
    assert.equal((await listed()).scan_start_time, '6:30 PM');
    assert.equal((await listed()).next_run_at, '2026-03-10T22:30:00.000Z');
    await update({ scan_start_date: 'April 1, 2026' });
    const scan = await listed();
    assert.equal(scan.scan_start_date, 'April 1, 2026');
    assert.equal(scan.next_run_at, '2026-04-01T22:30:00.000Z');
    assert.deepEqual((await preview()).upcoming.slice(0, 2).map((o: { local: string }) => o.local.slice(0, 16)), ['2026-04-01 18:30', '2026-04-08 18:30'], 'still weekly');
    await refused({ scan_start_date: '03/04/2027' }, 'scan_start_date', /YYYY-MM-DD/);
    await refused({ scan_start_time: '25:99' }, 'scan_start_time', /hour from 0 to 23/);
    // Removing the start keeps the schedule where it is.
    await update({ scan_start_date: null, scan_start_time: '' });
    const cleared = await listed();
    assert.equal(cleared.scan_start_date, null);
    assert.equal(cleared.scan_start_time, null);
    assert.equal(cleared.next_run_at, '2026-04-01T22:30:00.000Z');
  });

  await t.test('to One-time and back: one occurrence, none once it has passed', async () => {
    await update({ scan_frequency: 'One-time' });
    assert.equal((await listed()).next_run_at, '2026-04-01T22:30:00.000Z');
    assert.deepEqual((await preview()).upcoming.map((o: { at: string }) => o.at), ['2026-04-01T22:30:00.000Z']);
    await update({ scan_start_date: '2026-03-01', scan_start_time: '18:30' });
    assert.equal((await listed()).next_run_at, null, 'a One-time moment in the past: no next run (rerun runs it now)');
    assert.deepEqual((await preview()).upcoming, []);
    await update({ scan_frequency: 'Daily' });
    // 1 March 18:30 in New York (UTC-5 before 8 March), daily: the next one is 2 March 23:30 UTC.
    assert.equal((await listed()).next_run_at, '2026-03-02T23:30:00.000Z');
    assert.equal((await preview()).upcoming.length, 5);
  });

  await t.test('scan_email', async () => {
    await update({ scan_email: 'security@example.com' });
    assert.equal((await listed()).scan_email, 'security@example.com');
    await refused({ scan_email: 'not an address' }, 'scan_email', /valid email address/);
  });

  await t.test('scan_type cannot change; unknown and read-only fields are refused by name', async () => {
    await refused({ scan_type: 'ZAP' }, 'scan_type', /cannot be changed; create a new scan/);
    await update({ scan_type: 'Rampart', scan_name: 'Same type' });
    assert.equal((await listed()).scan_name, 'Same type', 'the same type is no change');
    await refused({ scan_frequncy: 'Weekly' }, 'scan_frequncy', /The scan_frequncy field is not allowed/);
    await refused({ uuid: '00000000-0000-4000-8000-000000000000', scan_name: 'x' }, 'uuid', /uuid field cannot be changed/);
    await refused({ next_run_at: '2030-01-01T00:00:00Z' }, 'next_run_at', /cannot be changed/);
  });
});

test(`an Unmanaged scan stays Unmanaged (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t);
  const user = await signUp(ctx, { role: 'pro' });
  const created = await ctx.app.inject({
    method: 'POST',
    url: '/api/new-scan',
    headers: user.auth,
    payload: { ...DAILY, scan_type: 'OpenVas', scan_frequency: 'Unmanaged', scan_target: '10.0.0.0/30' },
  });
  assert.equal(created.statusCode, 200, created.body);
  const uuid = created.json().uuid;
  const put = (payload: object) => ctx.app.inject({ method: 'PUT', url: `/api/scans/${uuid}`, headers: user.auth, payload });
  const res = await put({ scan_frequency: 'Daily' });
  assert.equal(res.statusCode, 422);
  assert.match(res.json().errors.scan_frequency.join(' '), /An Unmanaged scan cannot be given a schedule/);
  // Internal targets are the point of an Unmanaged scan: the guard does not apply.
  assert.equal((await put({ scan_target: '192.168.1.0/24', scan_time_zone: 'UTC' })).statusCode, 200);
  const scan = (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}`, headers: user.auth })).json().data;
  assert.equal(scan.scan_target, '192.168.1.0/24');
  assert.equal(scan.scan_frequency, 'Unmanaged');
  assert.equal(scan.scan_time_zone, 'UTC');
  assert.equal(scan.next_run_at, null);
});
