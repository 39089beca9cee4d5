/**
 * The ZAP daemon driver (RAMPART_ZAP_MODE=daemon) through its public surface: the engine's run(),
 * the registry and the API. The daemon is played by test/helpers/zap-replay.ts from recordings of
 * real ZAP answers (test/fixtures/zap, sources in SOURCE.md), which checks the API key header and
 * the required parameters and records every call.
 */
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import pino from 'pino';
import type { EngineEvent, EngineJob, Finding } from '../src/engines/engine.js';
import { EngineError } from '../src/engines/engine.js';
import { createEngineRegistry } from '../src/engines/registry.js';
import { createZapEngine, type ZapEngineSettings, type ZapLogin } from '../src/engines/zap/zap.engine.js';
import { startBackground } from '../src/runs/background.js';
import { buildTestApp, signUp } from './helpers/app.js';
import { collectEvents, loopbackJob } from './helpers/engine-job.js';
import { waitFor } from './helpers/servers.js';
import { startZapReplay, type ZapReplay, type ZapReplayOptions } from './helpers/zap-replay.js';
import { importZapXml } from '../src/engines/importers/zap.importer.js';
import { SAMPLES_DIR, SAMPLES_SKIP } from './helpers/scan-samples.js';

const KEY = 'zap-test-key';
/** The scanned site: the driver never connects to it (ZAP does), only resolves it through the guard. */
const TARGET = 'http://127.0.0.1:8088/app/';

const makeJob = (overrides: Partial<EngineJob> = {}): EngineJob => loopbackJob({ targets: [{ kind: 'url', value: TARGET }], ...overrides });
const collect = collectEvents;

async function replayAndEngine(t: TestContext, replay: Partial<ZapReplayOptions> = {}, settings: Partial<ZapEngineSettings> = {}) {
  const zap = await startZapReplay(t, { apiKey: KEY, ...replay });
  const engine = createZapEngine({ url: zap.url, apiKey: KEY, pollMs: 1, alertsPageSize: 3, ...settings });
  return { zap, engine };
}

const findingsOf = (events: EngineEvent[]): Finding[] => events.flatMap((e) => (e.type === 'finding' ? [e.finding] : []));
const paramsOf = (zap: ZapReplay, path: string) => zap.calls.filter((call) => call.path === path).map((call) => call.params);

test('a run drives ZAP through context, spider, passive wait, active scan and paged alerts, and reports their findings with url, method and parameter', async (t) => {
  const { zap, engine } = await replayAndEngine(t);
  const events = await collect(engine.run(makeJob()));

  assert.deepEqual(events[0], { type: 'engine', name: 'zap', version: '2.17.0', detail: `via daemon ${zap.url}` });
  assert.deepEqual(zap.paths(), [
    'core/view/version',
    'context/action/newContext',
    'context/action/includeInContext',
    'alert/action/deleteAlerts',
    'spider/action/scan',
    'spider/view/status',
    'spider/view/status',
    'pscan/view/recordsToScan',
    'ascan/action/scan',
    'ascan/view/status',
    'ascan/view/status',
    'alert/view/alerts',
    'core/view/message',
    'alert/view/alerts',
    'core/view/message',
    'alert/view/alerts',
    'context/action/removeContext',
  ]);
  const [context] = paramsOf(zap, 'context/action/newContext');
  assert.match(context!.contextName!, /^rampart-[0-9a-f-]{36}$/);
  assert.deepEqual(paramsOf(zap, 'context/action/includeInContext'), [{ contextName: context!.contextName, regex: '^http://127\\.0\\.0\\.1:8088/app/.*' }]);
  assert.deepEqual(paramsOf(zap, 'alert/action/deleteAlerts'), [{ baseurl: TARGET }], "the alerts of earlier scans of the site are not this run's");
  assert.deepEqual(paramsOf(zap, 'spider/action/scan'), [{ url: TARGET, contextName: context!.contextName, recurse: 'true', subtreeOnly: 'true' }]);
  assert.deepEqual(paramsOf(zap, 'spider/view/status'), [{ scanId: '2' }, { scanId: '2' }]);
  assert.deepEqual(paramsOf(zap, 'ascan/action/scan'), [{ url: TARGET, recurse: 'true', inScopeOnly: 'true', contextId: '1' }]);
  assert.deepEqual(paramsOf(zap, 'ascan/view/status'), [{ scanId: '2' }, { scanId: '2' }]);
  // Two pages of 3, then the empty page that ends the reading.
  assert.deepEqual(paramsOf(zap, 'alert/view/alerts'), [0, 3, 6].map((start) => ({ baseurl: TARGET, start: String(start), count: '3' })));
  assert.deepEqual(paramsOf(zap, 'core/view/message'), [{ id: '1' }, { id: '7' }], "the messages of the alerts that name one (ZAP no longer holds message 1)");
  assert.deepEqual(paramsOf(zap, 'context/action/removeContext'), [{ contextName: context!.contextName }]);

  const percents = events.flatMap((e) => (e.type === 'progress' ? [e.percent] : []));
  assert.deepEqual(percents, [...percents].sort((a, b) => a - b), 'progress never goes back');
  assert.equal(percents.at(-1), 100);
  const details = events.flatMap((e) => (e.type === 'progress' && e.detail ? [e.detail] : []));
  assert.deepEqual(details, ['spider 57%', 'spider 100%', 'passive scan 100%', 'active scan 42%', 'active scan 100%']);

  // 6 recorded alerts, one marked false positive.
  const findings = findingsOf(events);
  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.url, f.method, f.parameter, f.threat, f.cwe, f.qod]),
    [
      ['zap:10020-1', TARGET, 'GET', 'x-frame-options', 'Medium', 'CWE-1021', 70],
      ['zap:10010', `${TARGET}security.php`, 'POST', 'PHPSESSID', 'Low', 'CWE-16', 70],
      ['zap:10023', `${TARGET}instructions.php?doc=readme`, 'GET', null, 'Low', 'CWE-200', 70],
      ['zap:10031', `${TARGET}vulnerabilities/exec/`, 'POST', 'Submit', 'Informational', 'CWE-20', 30],
      ['zap:10024', `${TARGET}cpapi/api/oid/validateToken?accessToken=accessToken`, 'GET', 'accessToken', 'Informational', 'CWE-598', 70],
    ],
  );
  // The request and response ZAP raised the alert on (core/view/message), after ZAP's own evidence.
  const inUrl = findings[4]!.evidence;
  assert.match(inUrl, /^Evidence: accessToken\n/);
  assert.match(inUrl, /\n\nRequest:\nGET https:\/\/example-domain\.com\/cpapi\/api\/oid\/validateToken\?accessToken=accessToken HTTP\/1\.1\r\nhost: example-domain\.com\r\n/);
  assert.match(inUrl, /\n\nResponse:\nHTTP\/1\.1 400 Bad Request\r\nCache-Control: no-store, no-cache\r\n/);
  assert.doesNotMatch(findings[0]!.evidence, /Request:/, 'a message ZAP no longer holds leaves its evidence as it was');
  const clickjacking = findings[0]!;
  assert.equal(clickjacking.name, 'Missing Anti-clickjacking Header');
  assert.equal(clickjacking.hostname, '127.0.0.1');
  assert.equal(clickjacking.port, 8088);
  assert.match(clickjacking.solution, /^Modern Web browsers support the Content-Security-Policy/);
  assert.deepEqual(clickjacking.references, ['https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/X-Frame-Options']);
  assert.match(findings[1]!.evidence, /^Evidence: Set-Cookie: PHPSESSID/);
  const hostAt = events.findIndex((e) => e.type === 'host');
  assert.deepEqual(events[hostAt], { type: 'host', hostname: '127.0.0.1', address: '127.0.0.1', state: 'up' });
  assert.ok(hostAt < events.findIndex((e) => e.type === 'finding'), 'the host comes before its findings');
  assert.ok(events.some((e) => e.type === 'log' && e.message === '1 alert(s) marked false positive in ZAP were not reported.'));
});

test('several targets: one context each, progress over the whole run, one host event per host', async (t) => {
  const { zap, engine } = await replayAndEngine(t);
  const second = 'http://127.0.0.1:8089/shop/index.php';
  const events = await collect(engine.run(makeJob({ targets: [{ kind: 'url', value: TARGET }, { kind: 'url', value: second }] })));
  const contexts = paramsOf(zap, 'context/action/newContext').map((p) => p.contextName);
  assert.equal(new Set(contexts).size, 2);
  assert.deepEqual(paramsOf(zap, 'context/action/removeContext').map((p) => p.contextName), contexts);
  assert.deepEqual(paramsOf(zap, 'context/action/includeInContext')[1], { contextName: contexts[1], regex: '^http://127\\.0\\.0\\.1:8089/shop/.*' });
  assert.deepEqual(paramsOf(zap, 'alert/view/alerts').map((p) => p.baseurl), [TARGET, TARGET, TARGET, 'http://127.0.0.1:8089/shop/', 'http://127.0.0.1:8089/shop/', 'http://127.0.0.1:8089/shop/']);
  const percents = events.flatMap((e) => (e.type === 'progress' ? [e.percent] : []));
  assert.deepEqual(percents, [...percents].sort((a, b) => a - b));
  assert.ok(percents.includes(50), 'the first target ends half-way');
  assert.equal(findingsOf(events).length, 10);
  assert.equal(events.filter((e) => e.type === 'host').length, 1);
});

test('an alert read from the daemon gives the finding `rampart import` gives for the same alert of a ZAP report', { skip: SAMPLES_SKIP }, async (t) => {
  const { engine } = await replayAndEngine(t);
  const driven = findingsOf(await collect(engine.run(makeJob()))).find((f) => f.ruleId === 'zap:10010')!;
  // The replayed alert is instance 1 of this report's "Cookie No HttpOnly Flag" (test/fixtures/zap/SOURCE.md).
  const imported = await importZapXml(createReadStream(path.join(SAMPLES_DIR, 'zap', 'dvwa_baseline_dojo.xml')));
  let reported: Finding | undefined;
  for await (const e of imported.events) if (e.type === 'finding' && e.finding.ruleId === 'zap:10010' && e.finding.parameter === 'PHPSESSID') reported ??= e.finding;
  assert.ok(reported);
  const same = (f: Finding) => [f.ruleId, f.name, f.description, f.solution, f.threat, f.cwe, f.references, f.qod, f.method, f.parameter, f.url?.replace(/^https?:\/\/[^/]+\/(app\/)?/, '/')];
  assert.deepEqual(same(driven), same(reported));
  assert.match(driven.evidence, /^Evidence: Set-Cookie: PHPSESSID/);
  assert.match(reported.evidence, /^Evidence: Set-Cookie: PHPSESSID/);
});

test('the AJAX spider runs when a scan asks, bounded by the run time; a busy one is skipped with a warning', async (t) => {
  const { zap, engine } = await replayAndEngine(t);
  const events = await collect(engine.run(makeJob({ options: { ajax_spider: true, max_duration_minutes: 7 } })));
  const ajax = zap.paths().filter((p) => p.startsWith('ajaxSpider/'));
  assert.deepEqual(ajax, ['ajaxSpider/action/setOptionMaxDuration', 'ajaxSpider/action/scan', 'ajaxSpider/view/status', 'ajaxSpider/view/status']);
  assert.deepEqual(paramsOf(zap, 'ajaxSpider/action/setOptionMaxDuration'), [{ Integer: '7' }]);
  assert.deepEqual(paramsOf(zap, 'ajaxSpider/action/scan'), [{ url: TARGET, inScope: 'true', contextName: paramsOf(zap, 'context/action/newContext')[0]!.contextName, subtreeOnly: 'true' }]);
  assert.ok(zap.paths().indexOf('ajaxSpider/view/status') < zap.paths().indexOf('pscan/view/recordsToScan'), 'the passive wait comes after the AJAX spider');
  assert.equal(findingsOf(events).length, 5);

  const busy = await replayAndEngine(t, { failures: { 'ajaxSpider/action/scan': 'scan_in_progress' } }, { ajaxSpider: true });
  const busyEvents = await collect(busy.engine.run(makeJob()));
  assert.ok(busyEvents.some((e) => e.type === 'log' && e.level === 'warn' && /AJAX spider was busy/.test(e.message)));
  assert.equal(busy.zap.paths().includes('ajaxSpider/view/status'), false);
  assert.equal(findingsOf(busyEvents).length, 5, 'the scan goes on without it');
});

test("ZAP's errors: a bad key or a missing add-on is the deployment's (config), other codes internal with ZAP's message; the context is removed", async (t) => {
  const wrongKey = await startZapReplay(t, { apiKey: 'another-key' });
  await assert.rejects(collect(createZapEngine({ url: wrongKey.url, apiKey: KEY }).run(makeJob())), (error: unknown) => {
    assert.ok(error instanceof EngineError);
    assert.equal(error.kind, 'config');
    assert.equal(error.message, 'ZAP refused core/view/version: Invalid or missing API key (bad_api_key): check RAMPART_ZAP_API_KEY.');
    return true;
  });
  assert.deepEqual(wrongKey.paths(), ['core/view/version'], 'nothing else is tried');

  const noAjax = await replayAndEngine(t, { failures: { 'ajaxSpider/action/setOptionMaxDuration': 'no_implementor' } }, { ajaxSpider: true });
  await assert.rejects(collect(noAjax.engine.run(makeJob())), (error: unknown) => error instanceof EngineError && error.kind === 'config' && /No Implementor \(no_implementor\)/.test(error.message));
  assert.equal(noAjax.zap.paths().at(-1), 'context/action/removeContext');
  assert.deepEqual(paramsOf(noAjax.zap, 'spider/action/stop'), [], 'the spider had finished');

  const broken = await replayAndEngine(t, { failures: { 'spider/action/scan': 'internal_error' } });
  await assert.rejects(collect(broken.engine.run(makeJob())), (error: unknown) => {
    assert.ok(error instanceof EngineError);
    assert.equal(error.kind, 'internal');
    assert.equal(error.message, 'ZAP failed spider/action/scan: Internal Error (internal_error).');
    return true;
  });
  assert.deepEqual(broken.zap.paths().slice(-2), ['spider/action/scan', 'context/action/removeContext']);

  const gone = await replayAndEngine(t, { failures: { 'spider/view/status': 'does_not_exist' } });
  await assert.rejects(collect(gone.engine.run(makeJob())), (error: unknown) => error instanceof EngineError && error.kind === 'internal' && /Does Not Exist \(does_not_exist\)/.test(error.message));
  assert.deepEqual(paramsOf(gone.zap, 'spider/action/stop'), [{ scanId: '2' }], 'a scan left running is stopped');
});

test('a daemon older than 2.14 cannot forget earlier alerts: the run goes on and is marked incomplete', async (t) => {
  const { zap, engine } = await replayAndEngine(t, { failures: { 'alert/action/deleteAlerts': 'bad_action' } });
  const events = await collect(engine.run(makeJob()));
  assert.ok(events.some((e) => e.type === 'incomplete' && /older than 2\.14/.test(e.message)));
  assert.equal(findingsOf(events).length, 5);
  assert.equal(zap.paths().at(-1), 'context/action/removeContext');
});

test('url_not_found from the active scan means the target did not answer ZAP (network-temporary)', async (t) => {
  const { zap, engine } = await replayAndEngine(t, { failures: { 'ascan/action/scan': 'url_not_found' } });
  await assert.rejects(
    collect(engine.run(makeJob())),
    (error: unknown) => error instanceof EngineError && error.kind === 'network-temporary' && error.message.startsWith(`ZAP holds no response from ${TARGET}`),
  );
  assert.equal(zap.paths().at(-1), 'context/action/removeContext');
});

test('a daemon that does not answer fails the run up front as a config error', async (t) => {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise((resolve) => closed.close(resolve));
  const engine = createZapEngine({ url, apiKey: KEY });
  await assert.rejects(collect(engine.run(makeJob())), (error: unknown) => {
    assert.ok(error instanceof EngineError);
    assert.equal(error.kind, 'config');
    assert.equal(error.message, `ZAP at ${url} does not answer (ECONNREFUSED): check RAMPART_ZAP_URL and that the daemon runs.`);
    return true;
  });
});

test('cancelling the job stops the running scan and removes the context, without an error; a scan ZAP already forgot is no error either', async (t) => {
  for (const failures of [{}, { 'ascan/action/stop': 'does_not_exist' }] as Array<Record<string, string>>) {
    const { zap, engine } = await replayAndEngine(t, { hold: ['ascan/view/status'], failures });
    const controller = new AbortController();
    const run = collect(engine.run(makeJob({ signal: controller.signal })));
    await zap.called('ascan/view/status');
    controller.abort();
    const events = await run;
    assert.equal(findingsOf(events).length, 0);
    assert.deepEqual(paramsOf(zap, 'ascan/action/stop'), [{ scanId: '2' }]);
    assert.equal(zap.paths().includes('alert/view/alerts'), false, 'no alert is read after the abort');
    assert.equal(zap.paths().at(-1), 'context/action/removeContext');
  }
});

test('at the time limit the scans are stopped, the alerts found so far reported, and the run incomplete', async (t) => {
  const { zap, engine } = await replayAndEngine(t, { hold: ['spider/view/status'] }, { timeoutMs: 3000 });
  const events = await collect(engine.run(makeJob()));
  assert.ok(events.some((e) => e.type === 'incomplete' && /reached its time limit/.test(e.message)), JSON.stringify(events.filter((e) => e.type !== 'finding')));
  if (zap.paths().includes('spider/action/scan')) assert.deepEqual(paramsOf(zap, 'spider/action/stop'), [{ scanId: '2' }]);
  assert.equal(zap.paths().includes('ascan/action/scan'), false);
  assert.equal(findingsOf(events).length, 5);
  assert.equal(zap.paths().at(-1), 'context/action/removeContext');
});

test('a target the address guard refuses is never handed to ZAP', async (t) => {
  const { zap, engine } = await replayAndEngine(t);
  await assert.rejects(
    collect(engine.run(makeJob({ targets: [{ kind: 'url', value: 'http://10.1.2.3/app/' }] }))),
    (error: unknown) => error instanceof EngineError && error.kind === 'network-permanent' && /was not handed to ZAP/.test(error.message),
  );
  assert.deepEqual(zap.paths(), ['core/view/version']);
});

test("authenticated scans: the login's session goes to ZAP as replacer rules scoped to the target, removed at the end", async (t) => {
  const logins: Array<{ script: string; startUrl: string }> = [];
  const login: ZapLogin = async ({ script, startUrl }) => {
    logins.push({ script, startUrl });
    return {
      cookies: [
        { name: 'PHPSESSID', value: 'abc123', domain: '127.0.0.1', path: '/' },
        { name: 'tracker', value: 'x', domain: '.example.com' },
      ],
      headers: { authorization: 'Bearer tok' },
    };
  };
  const { zap, engine } = await replayAndEngine(t, {}, { login });
  const events = await collect(engine.run(makeJob({ loginScript: 'print("login")\n' })));
  assert.deepEqual(logins, [{ script: 'print("login")\n', startUrl: TARGET }]);
  const contextName = paramsOf(zap, 'context/action/newContext')[0]!.contextName;
  const rule = { enabled: 'true', matchType: 'REQ_HEADER', matchRegex: 'false', url: '^http://127\\.0\\.0\\.1:8088/app/.*' };
  assert.deepEqual(paramsOf(zap, 'replacer/action/addRule'), [
    { description: `${contextName}-cookie`, ...rule, matchString: 'Cookie', replacement: 'PHPSESSID=abc123' },
    { description: `${contextName}-authorization`, ...rule, matchString: 'authorization', replacement: 'Bearer tok' },
  ]);
  assert.ok(zap.paths().indexOf('replacer/action/addRule') < zap.paths().indexOf('spider/action/scan'), 'the session is in place before the spider');
  for (const call of zap.calls.filter((c) => c.path === 'replacer/action/addRule')) {
    assert.equal(call.method, 'POST', 'actions are form POSTs');
    assert.ok(!call.target.includes('?'), `the session stays out of the URL: ${call.target}`);
  }
  assert.deepEqual(paramsOf(zap, 'replacer/action/removeRule'), [{ description: `${contextName}-cookie` }, { description: `${contextName}-authorization` }]);
  assert.equal(findingsOf(events).length, 5);

  const without = await replayAndEngine(t);
  await assert.rejects(collect(without.engine.run(makeJob({ loginScript: 'print(1)\n' }))), (error: unknown) => error instanceof EngineError && error.kind === 'config' && /cannot replay login scripts/.test(error.message));
  assert.deepEqual(without.zap.paths(), [], 'refused before any call');
});

test('the registry serves ZAP scans with the daemon in daemon mode, and says why not without its URL or key', () => {
  const scan = { ratePerSecond: 0, maxConcurrency: 256, connectTimeoutMs: 1500 };
  const daemon = createEngineRegistry({ scan, zap: { mode: 'daemon', url: 'http://127.0.0.1:8090', apiKey: KEY } }).forScanType('ZAP');
  assert.ok(daemon.available);
  assert.deepEqual([daemon.engine.name, daemon.engine.version], ['zap', 'daemon']);
  assert.ok(daemon.engine.optionsSchema);

  assert.deepEqual(createEngineRegistry({ scan, zap: { mode: 'daemon', url: undefined, apiKey: undefined } }).forScanType('ZAP'), {
    available: false,
    reason: 'ZAP scans are set to run on a ZAP daemon (RAMPART_ZAP_MODE=daemon), but RAMPART_ZAP_URL and RAMPART_ZAP_API_KEY are not set. Set both, or RAMPART_ZAP_MODE=builtin.',
  });
  const noKey = createEngineRegistry({ scan, zap: { mode: 'daemon', url: 'http://127.0.0.1:8090', apiKey: undefined } });
  assert.deepEqual(noKey.forScanType('ZAP'), {
    available: false,
    reason: 'ZAP scans are set to run on a ZAP daemon (RAMPART_ZAP_MODE=daemon), but RAMPART_ZAP_API_KEY is not set. Set both, or RAMPART_ZAP_MODE=builtin.',
  });
  assert.equal(noKey.availableTypes().includes('ZAP'), false);
});

test('through the API: daemon mode without a key refuses ZAP scans with the reason; with the daemon, a run records which engine ran and its findings', async (t) => {
  const scanBody = { scan_name: 'Web', scan_type: 'ZAP', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: TARGET };
  const keyless = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8', RAMPART_ZAP_MODE: 'daemon', RAMPART_ZAP_URL: 'http://127.0.0.1:8090' } });
  const refused = await keyless.app.inject({ method: 'POST', url: '/api/new-scan', headers: (await signUp(keyless, { role: 'basic' })).auth, payload: scanBody });
  assert.equal(refused.statusCode, 422, refused.body);
  assert.deepEqual(refused.json().errors.scan_type, ['ZAP scans are set to run on a ZAP daemon (RAMPART_ZAP_MODE=daemon), but RAMPART_ZAP_API_KEY is not set. Set both, or RAMPART_ZAP_MODE=builtin.']);

  const zap = await startZapReplay(t, { apiKey: KEY });
  const ctx = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8', RAMPART_WORKER_POLL_MS: '20', RAMPART_ZAP_MODE: 'daemon', RAMPART_ZAP_URL: zap.url, RAMPART_ZAP_API_KEY: KEY } });
  const background = startBackground({ db: ctx.store.db, config: ctx.config, guard: ctx.app.ctx.guard, queue: ctx.app.ctx.queue, log: pino({ level: 'silent' }), worker: true, scheduler: false, engines: ctx.app.ctx.engines });
  t.after(() => background.stop());
  const user = await signUp(ctx, { role: 'pro' });
  const created = await ctx.app.inject({ method: 'POST', url: '/api/new-scan', headers: user.auth, payload: { ...scanBody, engine_options: { max_duration_minutes: 30 } } });
  assert.equal(created.statusCode, 200, created.body);
  const uuid = created.json().uuid;
  const run = await waitFor('the ZAP run to complete', async () => {
    const summary = (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: user.auth })).json();
    return summary.runs[0]?.status === 'completed' ? summary.runs[0] : undefined;
  });
  assert.equal(run.outcome, 'succeeded', run.error);
  assert.deepEqual([run.engine, run.engine_version, run.engine_detail], ['zap', '2.17.0', `via daemon ${zap.url}`]);
  const findings = await ctx.store.db.selectFrom('findings').select(['rule_id', 'url', 'method', 'parameter']).where('user_id', '=', user.userId).orderBy('rule_id').execute();
  assert.deepEqual(
    findings.map((f) => [f.rule_id, f.method, f.parameter]),
    [
      ['zap:10010', 'POST', 'PHPSESSID'],
      ['zap:10020-1', 'GET', 'x-frame-options'],
      ['zap:10023', 'GET', null],
      ['zap:10024', 'GET', 'accessToken'],
      ['zap:10031', 'POST', 'Submit'],
    ],
  );
});
