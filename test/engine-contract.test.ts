/**
 * Engine contract v2 through the public surface: the registry refuses scan types this deployment
 * has no engine for, engine options are checked against the serving engine's schema and reach its
 * job, the identity an engine reports is stored and printed, workers claim only the types they
 * serve, and each kind of failure reads differently.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { Type } from 'typebox';
import type { EngineJob, Finding } from '../src/engines/engine.js';
import { startBackground } from '../src/runs/background.js';
import type { ScanType } from '../src/shared/scan-types.js';
import { buildTestApp, signUp, STORE_KIND, type TestApp } from './helpers/app.js';
import { runCli } from './helpers/cli.js';
import { completedRun, createScan, finding, rerun, scriptedEngine, standInEngines, startScripted, type Script } from './helpers/scripted-engines.js';
import { waitFor } from './helpers/servers.js';

const SCAN = { scan_name: 'Perimeter', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: '127.0.0.1' };

async function post(ctx: TestApp, auth: Record<string, string>, body: Record<string, unknown>) {
  return ctx.app.inject({ method: 'POST', url: '/api/new-scan', headers: auth, payload: { ...SCAN, scan_type: 'Rampart', ...body } });
}

test(`a scan type with no engine on this deployment is refused at creation, saying what to configure (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8' } });
  const user = await signUp(ctx, { role: 'basic' });
  const nuclei = await post(ctx, user.auth, { scan_type: 'Nuclei' });
  assert.equal(nuclei.statusCode, 422, nuclei.body);
  assert.match(nuclei.json().errors.scan_type[0], /^Nuclei scans need nuclei templates, and the templates directory .*nuclei-templates does not exist: run `rampart templates sync` or set RAMPART_NUCLEI_TEMPLATES/);
  for (const type of ['Rampart', 'OpenVas']) assert.equal((await post(ctx, user.auth, { scan_type: type })).statusCode, 200, `${type} is served`);
  // ZAP scans: Rampart's web scanner serves them on every deployment.
  assert.equal((await post(ctx, user.auth, { scan_type: 'ZAP', scan_target: 'https://127.0.0.1/app' })).statusCode, 200, 'ZAP is served');
  const scans = (await ctx.app.inject({ method: 'GET', url: '/api/scans', headers: user.auth })).json().data;
  assert.deepEqual(scans.map((s: { scan_type: string }) => s.scan_type).sort(), ['OpenVas', 'Rampart', 'ZAP'], 'nothing was stored for the refused type');
});

test(`engine options are checked against the engine's own schema, within the deployment's caps (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8', RAMPART_SCAN_RATE: '100', RAMPART_SCAN_CONCURRENCY: '64' }, engines: { ZAP: standInEngines().ZAP! } });
  const user = await signUp(ctx, { role: 'basic' });
  const refused = async (options: unknown, field: string, message: RegExp, type = 'Rampart') => {
    const res = await post(ctx, user.auth, { scan_type: type, engine_options: options, ...(type === 'ZAP' ? { scan_target: 'https://127.0.0.1/' } : {}) });
    assert.equal(res.statusCode, 422, `${JSON.stringify(options)}: ${res.body}`);
    assert.ok(res.json().errors[field], `${field} in ${res.body}`);
    assert.match(res.json().errors[field][0], message);
  };
  await refused({ ports: 'some' }, 'engine_options.ports', /must be "default" \(the built-in list\), "all" \(1-65535\) or a list of up to 1024 ports/);
  await refused({ ports: [0, 80] }, 'engine_options.ports', /must be "default"/);
  await refused({ rate_per_second: 101 }, 'engine_options.rate_per_second', /must not be greater than 100 \(this deployment's limit\)/);
  await refused({ rate_per_second: '10' }, 'engine_options.rate_per_second', /must be an integer/);
  await refused({ max_concurrency: 0 }, 'engine_options.max_concurrency', /must be at least 1/);
  await refused({ colour: 'red' }, 'engine_options.colour', /The rampart engine has no option colour/);
  await refused('fast', 'engine_options', /must be an object/);
  await refused({ depth: 3 }, 'engine_options', /The zap engine, which runs ZAP scans here, takes no options/, 'ZAP');

  const created = await post(ctx, user.auth, { engine_options: { ports: [22, 443], rate_per_second: 50 } });
  assert.equal(created.statusCode, 200, created.body);
  const uuid = created.json().uuid;
  const show = async () => (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}`, headers: user.auth })).json().data;
  assert.deepEqual((await show()).engine_options, { ports: [22, 443], rate_per_second: 50 });
  const put = (engine_options: unknown) => ctx.app.inject({ method: 'PUT', url: `/api/scans/${uuid}`, headers: user.auth, payload: { engine_options } });
  const bad = await put({ ports: 'everything' });
  assert.equal(bad.statusCode, 422, bad.body);
  assert.ok(bad.json().errors['engine_options.ports']);
  assert.equal((await put({ ports: 'all' })).statusCode, 200);
  assert.deepEqual((await show()).engine_options, { ports: 'all' }, 'an update replaces the options whole');
  const plain = (await post(ctx, user.auth, {})).json().uuid;
  assert.deepEqual((await ctx.app.inject({ method: 'GET', url: `/api/scans/${plain}`, headers: user.auth })).json().data.engine_options, {});
});

test(`an option of literal values is refused naming them, whether a union, an enum or a const (${STORE_KIND})`, async (t) => {
  const schema = Type.Object(
    {
      mode: Type.Optional(Type.Union([Type.Literal('fast'), Type.Literal('full'), Type.Literal(3)], { description: 'How deep to go' })),
      level: Type.Optional(Type.Enum(['low', 'high'], { description: 'The level' })),
      fixed: Type.Optional(Type.Literal('yes', { description: 'Always yes' })),
    },
    { additionalProperties: false },
  );
  const ctx = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8' }, engines: { ZAP: scriptedEngine('zap', { next: { findings: [] } }, schema) } });
  const user = await signUp(ctx, { role: 'basic' });
  const errors = async (engine_options: unknown) => (await post(ctx, user.auth, { scan_type: 'ZAP', scan_target: 'https://127.0.0.1/', engine_options })).json().errors;
  assert.deepEqual(await errors({ mode: 'slow', level: 'mid', fixed: 'no' }), {
    'engine_options.mode': ['The engine_options.mode field must be one of: fast, full, 3.'],
    'engine_options.level': ['The engine_options.level field must be one of: low, high.'],
    'engine_options.fixed': ['The engine_options.fixed field must be one of: yes.'],
  });
});

test(`the options reach the engine's job; the identity it reports is on the run and in the reports (${STORE_KIND})`, async (t) => {
  const h = await startScripted(t);
  h.scripts.rampart.next = { findings: [finding('rampart:open-port')], identity: { name: 'zap', version: '2.17.0', detail: 'via daemon' } };
  const uuid = await createScan(h, 'Rampart', { engine_options: { ports: [443], max_concurrency: 2 } });
  const run = await completedRun(h, uuid, 0);
  assert.deepEqual(h.scripts.rampart.jobs.map((job: EngineJob) => job.options), [{ ports: [443], max_concurrency: 2 }]);
  assert.deepEqual({ engine: run.engine, engine_version: run.engine_version, engine_detail: run.engine_detail }, { engine: 'zap', engine_version: '2.17.0', engine_detail: 'via daemon' });
  for (const format of ['txt', 'html', 'xml']) {
    const body = (await h.ctx.app.inject({ method: 'GET', url: `/api/scans/${format}/${uuid}`, headers: h.auth })).body;
    assert.ok(body.includes('zap 2.17.0 via daemon'), `${format} report shows the identity line`);
  }
  // Without an identity event the run records the engine's name and version.
  h.scripts.rampart.next = { findings: [] };
  const second = await rerun(h, uuid, 1);
  assert.deepEqual([second.engine, second.engine_version, second.engine_detail], ['rampart', '1.0.0-test', null]);
});

test(`each kind of failure reads differently in the run's error and notes (${STORE_KIND})`, async (t) => {
  const h = await startScripted(t);
  const uuid = await createScan(h, 'Rampart');
  await completedRun(h, uuid, 0);
  const cases: [Script['fail'], string, RegExp][] = [
    ['network-temporary', 'network-temporary', /^The target did not answer \(a temporary network failure\): The scripted engine was told to fail\.$/],
    ['network-permanent', 'network-permanent', /^The target could not be reached: /],
    ['deadline', 'deadline', /^The scan ran out of time: /],
    ['config', 'config', /^The scan tool is missing or misconfigured on this deployment: /],
    ['internal', 'internal', /^The scan engine failed unexpectedly \(a bug, not a problem with the target\): The scripted engine/],
    // A plain exception is a bug too; its message (internals) stays in the log.
    ['bug', 'internal', /^The scan engine failed unexpectedly \(a bug, not a problem with the target\); the worker log has the details\.$/],
  ];
  let index = 1;
  for (const [fail, kind, error] of cases) {
    h.scripts.rampart.next = { findings: [], fail };
    const run = await rerun(h, uuid, index++);
    assert.equal(run.outcome, 'failed');
    assert.equal(run.error_kind, kind, String(fail));
    assert.match(run.error, error);
    assert.doesNotMatch(run.error, /cannot read properties/, 'no internals in the error');
    assert.ok(run.notes.some((n: string) => n.startsWith(`Failure kind ${kind}:`)), run.notes.join(' | '));
  }
});

test(`a worker claims only runs of the scan types it serves (${STORE_KIND})`, async (t) => {
  const scripts = { next: { findings: [] as Finding[] } };
  const engines = { Rampart: scriptedEngine('rampart', scripts), Nuclei: scriptedEngine('nuclei', scripts) };
  const ctx = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8', RAMPART_WORKER_POLL_MS: '20', RAMPART_RATE_LIMITS: 'pro=100000' }, engines });
  const user = await signUp(ctx, { role: 'pro' });
  const worker = (types: ScanType[]) => {
    const background = startBackground({ db: ctx.store.db, config: ctx.config, guard: ctx.app.ctx.guard, queue: ctx.app.ctx.queue, log: pino({ level: 'silent' }), worker: true, scheduler: false, engines: ctx.app.ctx.engines, types });
    t.after(() => background.stop());
  };
  const runs = async (uuid: string) => (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: user.auth })).json().runs;
  // The Nuclei run is queued first: a worker that could serve it would take it first.
  const nuclei = (await post(ctx, user.auth, { scan_type: 'Nuclei' })).json().uuid;
  const rampart = (await post(ctx, user.auth, { scan_type: 'Rampart' })).json().uuid;
  worker(['Rampart']);
  const done = await waitFor('the Rampart run', async () => ((await runs(rampart))[0]?.status === 'completed' ? (await runs(rampart))[0] : undefined));
  assert.equal(done.engine, 'rampart');
  const waiting = (await runs(nuclei))[0];
  assert.deepEqual([waiting.status, waiting.scan_progress, waiting.started_at], ['current', 'Queued', null], 'the Rampart worker passed it over');
  worker(['Nuclei']);
  const served = await waitFor('the Nuclei run', async () => ((await runs(nuclei))[0]?.status === 'completed' ? (await runs(nuclei))[0] : undefined));
  assert.deepEqual([served.outcome, served.engine], ['succeeded', 'nuclei']);
});

test('rampart worker --types takes only known scan types', async () => {
  const bad = await runCli(['worker', '--types', 'Rampart,Nessus'], {});
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /"Nessus" is not a scan type\. Valid: Rampart, OpenVas, ZAP, Nuclei\./);
});
