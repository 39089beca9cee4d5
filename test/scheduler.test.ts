/**
 * The scheduler over a real store with a controllable clock: each period fires exactly once,
 * missed periods fire once, DST and month ends land on the right instants. (The schedule math
 * itself is covered exhaustively in schedule.test.ts.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { fireDueScans } from '../src/runs/scheduler.js';
import { buildTestApp, signUp, STORE_KIND, type TestApp } from './helpers/app.js';

const silent = { info() {}, warn() {}, error() {} };

async function createScan(ctx: TestApp, auth: Record<string, string>, body: Record<string, unknown>): Promise<string> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/new-scan',
    headers: auth,
    payload: { scan_name: 'scheduled', scan_type: 'Rampart', scan_email: 'ops@example.com', scan_target: '93.184.216.34', ...body },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().uuid;
}

/** What a worker would do: finish every current run, so the next period may fire. */
async function finishCurrentRuns(ctx: TestApp): Promise<void> {
  await ctx.store.db.updateTable('runs').set({ status: 'completed', outcome: 'succeeded', progress: 'Completed', completed_at: sql`now()` }).where('status', '=', 'current').execute();
}

async function runTimes(ctx: TestApp, uuid: string): Promise<string[]> {
  const rows = await ctx.store.db
    .selectFrom('runs')
    .innerJoin('scans', 'scans.id', 'runs.scan_id')
    .select('runs.scheduled_for')
    .where('scans.uuid', '=', uuid)
    .orderBy('runs.run_index')
    .execute();
  return rows.map((r) => r.scheduled_for!.toISOString());
}

async function nextRunAt(ctx: TestApp, uuid: string): Promise<string | null> {
  const row = await ctx.store.db.selectFrom('scans').select('next_run_at').where('uuid', '=', uuid).executeTakeFirstOrThrow();
  return row.next_run_at?.toISOString() ?? null;
}

/** Fires the scheduler at each due time in turn (the clock jumps to next_run_at), `periods` times. */
async function fireSuccessive(ctx: TestApp, uuid: string, periods: number): Promise<string[]> {
  for (let i = 0; i < periods; i++) {
    const due = await nextRunAt(ctx, uuid);
    assert.ok(due, 'the scan has a next run');
    // Other scans of this store may be due too; this scan's own runs are checked by the caller.
    assert.ok((await fireDueScans(ctx.store.db, ctx.config, new Date(due), silent)) >= 1);
    await finishCurrentRuns(ctx);
  }
  return runTimes(ctx, uuid);
}

test(`scheduled scans fire once per period (${STORE_KIND})`, async (t) => {
  const created = new Date('2026-01-15T12:00:00Z');
  const ctx = await buildTestApp(t, { clock: () => created });
  const user = await signUp(ctx, { role: 'admin' });

  await t.test('Daily 09:00 Berlin across the spring change', async () => {
    const uuid = await createScan(ctx, user.auth, { scan_frequency: 'Daily', scan_start_date: '2026-03-28', scan_start_time: '9:00 AM', scan_time_zone: 'Europe/Berlin' });
    assert.deepEqual(await fireSuccessive(ctx, uuid, 3), ['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z', '2026-03-30T07:00:00.000Z']);
  });

  await t.test('Weekly across the New York autumn change', async () => {
    const uuid = await createScan(ctx, user.auth, { scan_frequency: 'Weekly', scan_start_date: 'Oct 25, 2026', scan_start_time: '6:00 PM', scan_time_zone: 'America/New_York' });
    assert.deepEqual(await fireSuccessive(ctx, uuid, 2), ['2026-10-25T22:00:00.000Z', '2026-11-01T23:00:00.000Z']);
  });

  await t.test('a 02:30 Daily run on the spring-forward day runs once, at 03:00', async () => {
    const uuid = await createScan(ctx, user.auth, { scan_frequency: 'Daily', scan_start_date: '2026-03-07', scan_start_time: '2:30 AM', scan_time_zone: 'America/New_York' });
    assert.deepEqual(await fireSuccessive(ctx, uuid, 3), ['2026-03-07T07:30:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z']);
  });

  await t.test('Monthly on the 31st uses the last day of shorter months', async () => {
    const uuid = await createScan(ctx, user.auth, { scan_frequency: 'Monthly', scan_start_date: '2026-01-31', scan_start_time: '10:00 PM', scan_time_zone: 'UTC' });
    assert.deepEqual(await fireSuccessive(ctx, uuid, 4), ['2026-01-31T22:00:00.000Z', '2026-02-28T22:00:00.000Z', '2026-03-31T22:00:00.000Z', '2026-04-30T22:00:00.000Z']);
  });

  await t.test('Quarterly from Nov 30, and Yearly from a leap day', async () => {
    const quarterly = await createScan(ctx, user.auth, { scan_frequency: 'Quarterly', scan_start_date: '2026-11-30', scan_start_time: '12:00 AM', scan_time_zone: 'UTC' });
    assert.deepEqual(await fireSuccessive(ctx, quarterly, 3), ['2026-11-30T00:00:00.000Z', '2027-02-28T00:00:00.000Z', '2027-05-30T00:00:00.000Z']);
    const yearly = await createScan(ctx, user.auth, { scan_frequency: 'Yearly', scan_start_date: '2028-02-29', scan_start_time: '12:00 PM', scan_time_zone: 'UTC' });
    assert.deepEqual(await fireSuccessive(ctx, yearly, 5), ['2028-02-29T12:00:00.000Z', '2029-02-28T12:00:00.000Z', '2030-02-28T12:00:00.000Z', '2031-02-28T12:00:00.000Z', '2032-02-29T12:00:00.000Z']);
  });

  await t.test('a One-time scan in the future fires once and is done', async () => {
    const uuid = await createScan(ctx, user.auth, { scan_frequency: 'One-time', scan_start_date: '2026-02-01', scan_start_time: '8:00 AM', scan_time_zone: 'UTC' });
    assert.equal(await fireDueScans(ctx.store.db, ctx.config, new Date('2026-02-01T07:59:59Z'), silent), 0, 'not before its time');
    assert.equal(await fireDueScans(ctx.store.db, ctx.config, new Date('2026-02-01T08:00:00Z'), silent), 1);
    assert.equal(await nextRunAt(ctx, uuid), null);
    assert.equal(await fireDueScans(ctx.store.db, ctx.config, new Date('2027-01-01T00:00:00Z'), silent), 0);
    assert.deepEqual(await runTimes(ctx, uuid), ['2026-02-01T08:00:00.000Z']);
  });
});

test(`missed periods fire once after a restart, and never twice (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { clock: () => new Date('2026-05-01T00:00:00Z') });
  const user = await signUp(ctx, { role: 'admin' });
  const uuid = await createScan(ctx, user.auth, { scan_frequency: 'Daily', scan_start_date: '2026-05-02', scan_start_time: '6:00 AM', scan_time_zone: 'Europe/Berlin' });
  assert.equal(await nextRunAt(ctx, uuid), '2026-05-02T04:00:00.000Z');

  // The service was down for ten days; it comes back at 12:00 UTC on May 12.
  const back = new Date('2026-05-12T12:00:00Z');
  assert.equal(await fireDueScans(ctx.store.db, ctx.config, back, silent), 1, 'one run, not ten');
  assert.equal(await fireDueScans(ctx.store.db, ctx.config, back, silent), 0, 'a second tick at the same time fires nothing');
  assert.deepEqual(await runTimes(ctx, uuid), ['2026-05-02T04:00:00.000Z']);
  assert.equal(await nextRunAt(ctx, uuid), '2026-05-13T04:00:00.000Z', 'the next occurrence after now');

  // Still running when the next period comes: that period is skipped, not stacked.
  assert.equal(await fireDueScans(ctx.store.db, ctx.config, new Date('2026-05-13T04:00:00Z'), silent), 0);
  assert.equal(await nextRunAt(ctx, uuid), '2026-05-14T04:00:00.000Z');
  assert.equal((await runTimes(ctx, uuid)).length, 1);
});

test(`two schedulers firing at once queue each due scan exactly once (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { clock: () => new Date('2026-06-01T00:00:00Z') });
  const user = await signUp(ctx, { role: 'admin' });
  const uuids: string[] = [];
  for (let i = 0; i < 30; i++) {
    uuids.push(await createScan(ctx, user.auth, { scan_frequency: 'Weekly', scan_start_date: '2026-06-02', scan_start_time: '1:00 AM', scan_time_zone: 'UTC' }));
  }
  const at = new Date('2026-06-02T01:00:00Z');
  const [a, b] = await Promise.all([fireDueScans(ctx.store.db, ctx.config, at, silent), fireDueScans(ctx.store.db, ctx.config, at, silent)]);
  assert.equal(a + b, 30);
  const perScan = await ctx.store.db.selectFrom('runs').select(['scan_id', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('scan_id').execute();
  assert.equal(perScan.length, 30);
  assert.ok(perScan.every((r) => Number(r.n) === 1));
});
