/**
 * The run recorder through a real worker (a scripted engine whose events the test chooses), and
 * imported results through importRun: one transaction, labels, conflicts, the run awaiting its agent.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import pino from 'pino';
import type { Engine, EngineEvent, EngineJob } from '../src/engines/engine.js';
import { createEngineRegistry } from '../src/engines/registry.js';
import { startBackground } from '../src/runs/background.js';
import { importRun } from '../src/runs/run-import.service.js';
import { findScanByUuid } from '../src/scans/scans.service.js';
import { AppError } from '../src/shared/errors.js';
import { buildTestApp, signUp, STORE_KIND, type TestApp } from './helpers/app.js';
import { finding } from './helpers/scripted-engines.js';
import { waitFor } from './helpers/servers.js';

const log = pino({ level: process.env.TEST_LOG ?? 'silent' });
/** Hosts of the many-hosts run: half answer, half do not. */
const MANY = 1_000;

/** 10.0.x.y for i. */
const ip = (i: number) => `10.0.${Math.floor(i / 256)}.${i % 256}`;

/** Target 127.0.0.1: many host events and a few findings; 127.0.0.2: waits until released. */
function testEngine(gate: Promise<void>): Engine {
  return {
    name: 'scripted',
    version: '2.0.0-test',
    async *run(job: EngineJob): AsyncIterable<EngineEvent> {
      if (job.targets.some((t) => t.value === '127.0.0.2')) {
        yield { type: 'progress', percent: 10 };
        await gate;
        return;
      }
      yield { type: 'progress', percent: 5 };
      for (let i = 0; i < MANY; i++) yield { type: 'host', hostname: ip(i), address: ip(i), state: i % 2 === 0 ? 'up' : 'down' };
      // A name down first, then up (another of its addresses answered): up. And up, then down: still up.
      yield { type: 'host', hostname: 'flappy.example', address: '10.1.0.1', state: 'down' };
      yield { type: 'host', hostname: 'flappy.example', address: '10.1.0.2', state: 'up' };
      yield { type: 'host', hostname: ip(0), address: ip(0), state: 'down' };
      for (let i = 0; i < 3; i++) yield { type: 'finding', finding: finding(`rule-${i}`, { hostname: ip(0), hostIp: ip(0) }) };
      for (let i = 0; i < 30; i++) yield { type: 'log', level: 'warn', message: `warning ${i % 25}` };
    },
  };
}

async function startApp(t: TestContext) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  t.after(() => release());
  const ctx = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8,192.0.2.0/24', RAMPART_WORKER_POLL_MS: '20', RAMPART_RATE_LIMITS: 'pro=100000' } });
  const engine = testEngine(gate);
  const engines = createEngineRegistry(ctx.config, { Rampart: engine });
  const background = startBackground({ db: ctx.store.db, config: ctx.config, guard: ctx.app.ctx.guard, queue: ctx.app.ctx.queue, log, worker: true, scheduler: false, engines });
  t.after(() => background.stop());
  const user = await signUp(ctx, { role: 'pro' });
  return { ctx, user, release };
}

type App = Awaited<ReturnType<typeof startApp>>;

async function createScan(app: App, body: Record<string, unknown>): Promise<string> {
  const res = await app.ctx.app.inject({
    method: 'POST',
    url: '/api/new-scan',
    headers: app.user.auth,
    payload: { scan_name: 'recorded', scan_type: 'Rampart', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', ...body },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().uuid;
}

/** A scan whose first run is years away: imports alone create its runs. */
const LATER = { scan_start_date: '2030-06-01', scan_start_time: '6:00 PM' };

async function get(app: App, url: string) {
  const res = await app.ctx.app.inject({ method: 'GET', url, headers: app.user.auth });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

async function* events(list: EngineEvent[], failAfter?: number): AsyncIterable<EngineEvent> {
  for (const [i, event] of list.entries()) {
    if (i === failAfter) throw new AppError('validation_failed', 'The file is not valid nmap XML: unexpected end of input.');
    yield event;
  }
}

function importedEvents(n: number): EngineEvent[] {
  const list: EngineEvent[] = [{ type: 'host', hostname: '192.0.2.10', address: '192.0.2.10', state: 'up' }];
  for (let i = 0; i < n; i++) list.push({ type: 'finding', finding: finding(`import-${i}`, { hostname: '192.0.2.10', hostIp: '192.0.2.10', port: 1000 + i }) });
  return list;
}

async function doImport(app: App, uuid: string, source: { events: AsyncIterable<EngineEvent> }) {
  const scan = (await findScanByUuid(app.ctx.store.db, uuid))!;
  return importRun({ db: app.ctx.store.db, config: app.ctx.config, log }, scan, { engine: { name: 'nmap', version: '7.94' }, ...source });
}

async function tableCounts(ctx: TestApp) {
  const count = async (table: 'runs' | 'findings' | 'targets' | 'mail_outbox' | 'run_findings') =>
    Number((await ctx.store.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return { runs: await count('runs'), findings: await count('findings'), targets: await count('targets'), mails: await count('mail_outbox'), seen: await count('run_findings') };
}

test(`the run recorder: counts, notes, targets and imports (${STORE_KIND})`, async (t) => {
  const app = await startApp(t);

  await t.test('a worker run with many host events counts hosts up and down, once each', async () => {
    const uuid = await createScan(app, { scan_target: '127.0.0.1' });
    const run = await waitFor('the run to complete', async () => {
      const current = (await get(app, `/api/scans/${uuid}/runs`)).runs[0];
      return current?.status === 'completed' ? current : undefined;
    });
    assert.equal(run.outcome, 'succeeded', run.error);
    assert.equal(run.engine, 'scripted');
    assert.equal(run.engine_version, '2.0.0-test');
    // 500 even hosts and flappy.example up; 500 odd hosts and the named target 127.0.0.1 (never reported) down.
    assert.equal(run.hosts_up, MANY / 2 + 1);
    assert.equal(run.hosts_down, MANY / 2 + 1);
    assert.equal(run.findings_count, 3);
    assert.equal(run.lifecycle.new, 3);
    // 25 distinct warnings, 30 in all: the first 20 distinct ones, once each.
    assert.deepEqual(run.notes, Array.from({ length: 20 }, (_, i) => `warning ${i}`));

    const targets = await app.ctx.store.db.selectFrom('targets').select(['target', 'status']).where('user_id', '=', app.user.userId).execute();
    const status = new Map(targets.map((row) => [row.target, row.status]));
    assert.equal(status.get('flappy.example'), 'Active');
    assert.equal(status.get(ip(0)), 'Active');
    assert.equal(status.get('127.0.0.1'), 'Inactive');
    assert.equal(status.has(ip(1)), false, 'a range host that did not answer is no target');
    assert.equal(targets.length, MANY / 2 + 2);
  });

  await t.test('an import records a completed run whose engine is the tool, and updates targets', async () => {
    const uuid = await createScan(app, { scan_target: '192.0.2.10', ...LATER });
    const before = await tableCounts(app.ctx);
    const result = await doImport(app, uuid, { events: events(importedEvents(5)) });
    assert.deepEqual(result, { runIndex: 0, findings: 5 });
    const [run] = (await get(app, `/api/scans/${uuid}/runs`)).runs;
    assert.equal(run.status, 'completed');
    assert.equal(run.outcome, 'succeeded');
    assert.equal(run.trigger, 'import');
    assert.equal(run.engine, 'nmap');
    assert.equal(run.engine_version, '7.94');
    assert.equal(run.hosts_up, 1);
    assert.equal(run.lifecycle.new, 5);
    assert.ok(run.started_at && run.completed_at);
    const after = await tableCounts(app.ctx);
    assert.equal(after.mails - before.mails, 1, 'the report email is queued as for any completed run');
    const target = await app.ctx.store.db.selectFrom('targets').selectAll().where('user_id', '=', app.user.userId).where('target', '=', '192.0.2.10').executeTakeFirstOrThrow();
    assert.equal(target.status, 'Active');
    assert.ok(target.last_scan);

    // The same findings again: a second run, the same records, labelled still open.
    const total = (await get(app, '/api/vulnerabilities?per_page=100')).meta.total;
    assert.deepEqual(await doImport(app, uuid, { events: events(importedEvents(5)) }), { runIndex: 1, findings: 5 });
    const runs = (await get(app, `/api/scans/${uuid}/runs`)).runs;
    assert.deepEqual(runs[1].lifecycle, { new: 0, still_open: 5, fixed: 0, regressed: 0 });
    const list = await get(app, '/api/vulnerabilities?per_page=100&lifecycle=still_open');
    assert.equal((await get(app, '/api/vulnerabilities?per_page=100')).meta.total, total, 'no duplicates');
    assert.equal(list.meta.total, 5);
  });

  await t.test('a run the engine says is incomplete keeps its note and calls nothing fixed', async () => {
    const uuid = await createScan(app, { scan_target: '192.0.2.30', ...LATER });
    await doImport(app, uuid, { events: events(importedEvents(5)) });
    const message = 'The port scan may have missed open ports: 3 probe(s) went unanswered on host(s) that lose probes.';
    // Two of the five findings are not seen again: an incomplete run's silence proves nothing.
    await doImport(app, uuid, { events: events([...importedEvents(3), { type: 'incomplete', message }]) });
    const runs = (await get(app, `/api/scans/${uuid}/runs`)).runs;
    assert.deepEqual(runs[1].lifecycle, { new: 0, still_open: 3, fixed: 0, regressed: 0 });
    assert.deepEqual(runs[1].notes, [message]);
    // A complete run that misses two of those three calls them fixed.
    await doImport(app, uuid, { events: events(importedEvents(1)) });
    assert.equal((await get(app, `/api/scans/${uuid}/runs`)).runs[2].lifecycle.fixed, 2);
  });

  await t.test('an error thrown by the events rolls the whole import back', async () => {
    const uuid = await createScan(app, { scan_target: '192.0.2.20', ...LATER });
    const before = await tableCounts(app.ctx);
    // Past the recorder's flush size, so findings were written before the error.
    const list = importedEvents(1_500).map((e) => (e.type === 'finding' ? { ...e, finding: { ...e.finding, hostname: '192.0.2.21', hostIp: '192.0.2.21' } } : e));
    await assert.rejects(doImport(app, uuid, { events: events(list, 1_400) }), (error: unknown) => error instanceof AppError && error.code === 'validation_failed');
    assert.deepEqual(await tableCounts(app.ctx), before);
    assert.equal((await get(app, `/api/scans/${uuid}/runs`)).runs.length, 0);
  });

  await t.test('an import completes the run awaiting its agent', async () => {
    const uuid = await createScan(app, { scan_type: 'OpenVas', scan_frequency: 'Unmanaged', scan_target: '192.0.2.0/24' });
    assert.equal((await get(app, `/api/scans/${uuid}/runs`)).runs[0].scan_progress, 'Awaiting agent');
    assert.deepEqual(await doImport(app, uuid, { events: events(importedEvents(2)) }), { runIndex: 0, findings: 2 });
    const runs = (await get(app, `/api/scans/${uuid}/runs`)).runs;
    assert.equal(runs.length, 1);
    assert.equal(runs[0].status, 'completed');
    assert.equal(runs[0].trigger, 'create');
    assert.equal(runs[0].engine, 'nmap');
    assert.equal(runs[0].findings_count, 2);
  });

  await t.test('an import while a worker runs the scan is refused with 409 and changes nothing', async () => {
    const uuid = await createScan(app, { scan_target: '127.0.0.2' });
    await waitFor('the run to be claimed', async () => ((await get(app, `/api/scans/${uuid}/runs`)).runs[0]?.scan_progress.startsWith('Running') ? true : undefined));
    const before = await tableCounts(app.ctx);
    await assert.rejects(doImport(app, uuid, { events: events(importedEvents(2)) }), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'conflict');
      assert.match(error.message, /in progress; upload the results when it has ended/);
      return true;
    });
    assert.deepEqual(await tableCounts(app.ctx), before);
    app.release();
    const run = await waitFor('the run to complete', async () => {
      const current = (await get(app, `/api/scans/${uuid}/runs`)).runs[0];
      return current?.status === 'completed' ? current : undefined;
    });
    assert.equal(run.outcome, 'succeeded');
    assert.deepEqual(await doImport(app, uuid, { events: events(importedEvents(1)) }), { runIndex: 1, findings: 1 });
  });
});
