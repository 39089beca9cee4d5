/**
 * The OpenVAS driver over GMP through its public surface: the engine's run() against a fake gvmd
 * (test/helpers/fake-gvmd.ts: replies from the official GMP examples, random chunk sizes, the
 * protocol's rules enforced), on a Unix socket and over TLS. The service side (registry, API,
 * worker, reports) is in openvas-service.test.ts.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { EngineEvent, EngineJob, Finding } from '../src/engines/engine.js';
import { EngineError } from '../src/engines/engine.js';
import { createAddressGuard } from '../src/shared/address-guard.js';
import { createEgress } from '../src/shared/egress.js';
import { GmpConnection } from '../src/engines/openvas/gmp-connection.js';
import { gmpCommand } from '../src/engines/openvas/gmp-xml.js';
import { createOpenvasEngine, DEFAULT_PORT_LIST, DEFAULT_SCAN_CONFIG, type GvmdSettings } from '../src/engines/openvas/openvas.engine.js';
import { collectEvents, loopbackJob } from './helpers/engine-job.js';
import { GMP_SKIP, GVMD_PASSWORD, GVMD_USER, startFakeGvmd, type FakeGvmd, type FakeGvmdOptions } from './helpers/fake-gvmd.js';
import { hasOpenssl, TestPki } from './helpers/pki.js';
import { tempDir } from './helpers/app.js';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';

const job = (overrides: Partial<EngineJob> = {}): EngineJob => loopbackJob({ targets: [{ kind: 'ip', value: '127.0.0.1' }, { kind: 'cidr', value: '127.0.1.0/30' }], ...overrides });
const findingsOf = (events: EngineEvent[]): Finding[] => events.flatMap((e) => (e.type === 'finding' ? [e.finding] : []));
const names = (gvmd: FakeGvmd) => gvmd.commands.map((c) => c.name);

function settingsFor(gvmd: FakeGvmd, extra: Partial<GvmdSettings> = {}): GvmdSettings {
  const where = gvmd.socket ? { socket: gvmd.socket } : { host: gvmd.host!, port: gvmd.port! };
  return { ...where, username: GVMD_USER, password: GVMD_PASSWORD, scanConfig: DEFAULT_SCAN_CONFIG, portList: DEFAULT_PORT_LIST, pollMs: 1, ...extra };
}

async function unixGvmd(t: TestContext, options: FakeGvmdOptions = {}) {
  const gvmd = await startFakeGvmd(t, options);
  return { gvmd, engine: createOpenvasEngine(settingsFor(gvmd)) };
}

/** The run must leave nothing behind in gvmd, and break no protocol rule. */
function assertCleanedUp(gvmd: FakeGvmd): void {
  assert.deepEqual(gvmd.violations, []);
  assert.deepEqual(gvmd.deleted.tasks, gvmd.created.tasks.map((task) => task.id), 'every task deleted');
  assert.deepEqual(gvmd.deleted.targets, gvmd.created.targets.map((target) => target.id), 'every target deleted');
}

async function rejectsWith(run: Promise<unknown>, kind: EngineError['kind'], message: RegExp): Promise<void> {
  await assert.rejects(run, (error: unknown) => {
    assert.ok(error instanceof EngineError, `expected an EngineError, got ${String(error)}`);
    assert.equal(error.kind, kind, error.message);
    assert.match(error.message, message);
    return true;
  });
}

test('a run over the Unix socket: identity, the task lifecycle in order, progress, the report as findings, cleanup', { skip: GMP_SKIP }, async (t) => {
  const { gvmd, engine } = await unixGvmd(t);
  const events = await collectEvents(engine.run(job()));
  assert.deepEqual(events[0], { type: 'engine', name: 'openvas', version: '22.7', detail: `via gvmd ${gvmd.socket}` });
  const before = ['get_version', 'authenticate', 'get_configs', 'get_port_lists', 'get_scanners', 'create_target', 'create_task', 'start_task'];
  assert.deepEqual(names(gvmd).slice(0, before.length), before);
  assert.deepEqual(names(gvmd).slice(-3), ['get_reports', 'delete_task', 'delete_target']);
  assert.deepEqual(gvmd.created.targets.map((target) => target.hosts), ['127.0.0.1,127.0.1.0/30']);
  const report = gvmd.commands.find((c) => c.name === 'get_reports')!;
  assert.equal(report.attrs.report_id, gvmd.created.tasks[0]!.reportId, 'the report start_task named');
  assert.equal(report.attrs.details, '1');
  assert.match(report.attrs.filter ?? '', /min_qod=0/);
  // Polls saw -1 (Requested), 0, 35, 80, then Done: progress moves up and never reaches 100 early.
  assert.deepEqual(events.filter((e) => e.type === 'progress').map((e) => e.percent), [0, 35, 80, 99]);
  const [f, ...rest] = findingsOf(events);
  assert.equal(rest.length, 0);
  // report_detail_v2.xml: one result, NVT 1.3.6.1.4.1.25623.1.0.836484, QoD 80, 93 CVE refs, CVSS 9.8.
  assert.equal(f?.ruleId, 'openvas:1.3.6.1.4.1.25623.1.0.836484');
  assert.equal(f.qod, 80);
  assert.equal(f.cve.length, 93);
  assert.equal(f.cvssBase, 9.8);
  assert.equal(f.threat, 'Critical');
  assert.equal(f.hostIp, '10.99.99.99');
  assert.equal(f.port, 42);
  assert.match(f.solution, /^The vendor has released updates/);
  assert.ok(events.some((e) => e.type === 'host' && e.address === '10.99.99.99'));
  assertCleanedUp(gvmd);
});

test('over TLS with the pinned CA the run completes; another CA, or a certificate for another name, is refused before any command', { skip: GMP_SKIP || (!hasOpenssl() && 'needs openssl') }, async (t) => {
  const pki = new TestPki();
  const other = new TestPki();
  t.after(() => {
    pki.cleanup();
    other.cleanup();
  });
  const dir = await tempDir(t);
  const caFile = path.join(dir, 'ca.pem');
  const otherCa = path.join(dir, 'other-ca.pem');
  await writeFile(caFile, pki.ca.cert);
  await writeFile(otherCa, other.ca.cert);

  const gvmd = await startFakeGvmd(t, { tls: pki.issue({ cn: 'gvmd.test', san: 'IP:127.0.0.1,DNS:gvmd.test' }) });
  const events = await collectEvents(createOpenvasEngine(settingsFor(gvmd, { caFile })).run(job()));
  assert.deepEqual(events[0], { type: 'engine', name: 'openvas', version: '22.7', detail: `via gvmd 127.0.0.1:${gvmd.port}` });
  assert.equal(findingsOf(events).length, 1);
  assertCleanedUp(gvmd);

  await rejectsWith(collectEvents(createOpenvasEngine(settingsFor(gvmd, { caFile: otherCa })).run(job())), 'config', /TLS certificate was refused.*RAMPART_GVMD_CA_FILE/);
  const named = await startFakeGvmd(t, { tls: pki.issue({ cn: 'elsewhere.test' }) });
  await rejectsWith(collectEvents(createOpenvasEngine(settingsFor(named, { caFile })).run(job())), 'config', /TLS certificate was refused/);
  assert.equal(named.commands.length, 0, 'nothing sent to a gvmd that did not prove its name');
  // The deployment may turn the name check off; the CA is still the only one trusted.
  const unnamed = await collectEvents(createOpenvasEngine(settingsFor(named, { caFile, verifyHostname: false })).run(job()));
  assert.equal(findingsOf(unnamed).length, 1);
  await rejectsWith(collectEvents(createOpenvasEngine(settingsFor(named, { caFile: otherCa, verifyHostname: false })).run(job())), 'config', /TLS certificate was refused/);
});

test('the connection keeps one command in flight and only get_version before authenticate, whatever the caller does', { skip: GMP_SKIP }, async (t) => {
  const gvmd = await startFakeGvmd(t);
  const conn = await GmpConnection.open({ socket: gvmd.socket! });
  t.after(() => conn.close());
  await rejectsWith(conn.request(gmpCommand('get_configs')), 'internal', /only get_version before authenticate/);
  assert.equal(gvmd.commands.length, 0, 'refused before sending');
  const versions = await Promise.all([conn.version(), conn.version(), conn.version()]);
  assert.deepEqual(versions, ['22.7', '22.7', '22.7']);
  await conn.request(gmpCommand('authenticate', {}, [{ name: 'credentials', content: [{ name: 'username', content: GVMD_USER }, { name: 'password', content: GVMD_PASSWORD }] }]));
  // Fired together: the connection sends each only after the reply before it is complete.
  const [configs, lists, scanners] = await Promise.all([
    conn.request(gmpCommand('get_configs', { filter: 'name="Full and fast"' })),
    conn.request(gmpCommand('get_port_lists', { filter: 'name="All IANA assigned TCP"' })),
    conn.request(gmpCommand('get_scanners')),
  ]);
  assert.deepEqual([configs.name, lists.name, scanners.name], ['get_configs_response', 'get_port_lists_response', 'get_scanners_response']);
  assert.deepEqual(gvmd.violations, []);
});

test('replies cut between the bytes of one character read the same (UTF-8 decoded across chunks)', { skip: GMP_SKIP }, async (t) => {
  const gvmd = await startFakeGvmd(t, { chunkBytes: 1, version: '22.7 – ß€ 🛡' });
  const conn = await GmpConnection.open({ socket: gvmd.socket! });
  t.after(() => conn.close());
  assert.equal(await conn.version(), '22.7 – ß€ 🛡');
});

test('a cancelled run stops the task, removes it and its target, and ends without an error', { skip: GMP_SKIP }, async (t) => {
  const { gvmd, engine } = await unixGvmd(t, { states: [{ status: 'Running', progress: 10 }] });
  const controller = new AbortController();
  const events: EngineEvent[] = [];
  for await (const event of engine.run(job({ signal: controller.signal }))) {
    events.push(event);
    if (event.type === 'progress' && event.percent === 10) controller.abort();
  }
  assert.equal(findingsOf(events).length, 0);
  const stop = gvmd.commands.findIndex((c) => c.name === 'stop_task');
  assert.ok(stop > 0, 'stop_task sent');
  assert.equal(gvmd.commands[stop]!.attrs.task_id, gvmd.created.tasks[0]!.id);
  assert.ok(names(gvmd).indexOf('delete_task') > stop, 'deleted after it stopped');
  assert.equal(names(gvmd).includes('get_reports'), false);
  assertCleanedUp(gvmd);
});

test('bad credentials fail the run as config, after the identity, with nothing else sent', { skip: GMP_SKIP }, async (t) => {
  const gvmd = await startFakeGvmd(t);
  const engine = createOpenvasEngine({ ...settingsFor(gvmd), password: 'wrong' });
  const seen: EngineEvent[] = [];
  await rejectsWith(
    (async () => {
      for await (const event of engine.run(job())) seen.push(event);
    })(),
    'config',
    /refused the credentials \(400 "Authentication failed"\).*RAMPART_GVMD_USERNAME and RAMPART_GVMD_PASSWORD/,
  );
  assert.equal(seen[0]?.type, 'engine');
  assert.deepEqual(names(gvmd), ['get_version', 'authenticate']);
  assert.deepEqual(gvmd.violations, []);
});

test('the connection lost mid-run fails it as network-temporary; the cleanup logs in again and removes the task', { skip: GMP_SKIP }, async (t) => {
  const { gvmd, engine } = await unixGvmd(t, { dropOn: { command: 'get_tasks', nth: 2 } });
  await rejectsWith(collectEvents(engine.run(job())), 'network-temporary', /connection to gvmd at .* was lost while waiting for the answer to get_tasks/);
  assert.equal(gvmd.connections, 2);
  const cleanup = gvmd.commands.filter((c) => c.connection === 2).map((c) => c.name);
  assert.deepEqual(cleanup.slice(0, 2), ['authenticate', 'stop_task']);
  assert.deepEqual(cleanup.slice(-2), ['delete_task', 'delete_target']);
  assertCleanedUp(gvmd);
});

test('a task that ends Stopped or Interrupted fails the run with what happened, and is removed', { skip: GMP_SKIP }, async (t) => {
  for (const [status, message] of [['Stopped', /ended Stopped: it was stopped outside Rampart/], ['Interrupted', /ended Interrupted at 40%.*ospd-openvas/]] as const) {
    const { gvmd, engine } = await unixGvmd(t, { states: [{ status: 'Running', progress: 40 }, { status, progress: 40 }] });
    await rejectsWith(collectEvents(engine.run(job())), 'config', message);
    assert.equal(names(gvmd).includes('stop_task'), false, 'an ended task is not stopped again');
    assertCleanedUp(gvmd);
  }
});

test("gvmd's status codes: 403 is config, 503 network-temporary, 400 and 500 internal, each with gvmd's text; what was made is removed", { skip: GMP_SKIP }, async (t) => {
  const cases = [
    { failWith: { command: 'create_task', code: 403, text: 'Permission denied' }, kind: 'config', message: /create_task with 403 "Permission denied".*role/ },
    { failWith: { command: 'get_tasks', code: 503, text: 'Service temporarily down' }, kind: 'network-temporary', message: /get_tasks with 503 "Service temporarily down"/ },
    { failWith: { command: 'create_target', code: 400, text: 'Error in host specification' }, kind: 'internal', message: /create_target with 400 "Error in host specification"/ },
    { failWith: { command: 'get_reports', code: 500, text: 'Internal error' }, kind: 'internal', message: /get_reports with 500 "Internal error"/ },
  ] as const;
  for (const c of cases) {
    const { gvmd, engine } = await unixGvmd(t, { failWith: { ...c.failWith } });
    await rejectsWith(collectEvents(engine.run(job())), c.kind, c.message);
    assertCleanedUp(gvmd);
  }
});

test('at the time limit the task is stopped and removed, and the run fails as deadline', { skip: GMP_SKIP }, async (t) => {
  const gvmd = await startFakeGvmd(t, { states: [{ status: 'Running', progress: 5 }] });
  const engine = createOpenvasEngine(settingsFor(gvmd, { timeoutMs: 30, pollMs: 5 }));
  await rejectsWith(collectEvents(engine.run(job())), 'deadline', /did not finish within/);
  assert.ok(names(gvmd).includes('stop_task'));
  assertCleanedUp(gvmd);
});

test('a cleanup gvmd never answers ends at its own time limit: a success warns what is left, a failure keeps its error and adds it', { skip: GMP_SKIP }, async (t) => {
  const hung = await startFakeGvmd(t, { silentOn: 'delete_task' });
  const events = await collectEvents(createOpenvasEngine(settingsFor(hung, { cleanupTimeoutMs: 200 })).run(job()));
  assert.equal(findingsOf(events).length, 1, 'the findings stand');
  const warning = events.find((e) => e.type === 'log' && e.level === 'warn');
  assert.match(warning?.type === 'log' ? warning.message : '', /could not remove its task .* and target .* \(it took longer than 200 ms\); delete them in gvmd by hand/);

  const failing = await startFakeGvmd(t, { silentOn: 'delete_task', failWith: { command: 'get_tasks', code: 503, text: 'Service temporarily down' } });
  await rejectsWith(
    collectEvents(createOpenvasEngine(settingsFor(failing, { cleanupTimeoutMs: 200 })).run(job())),
    'network-temporary',
    /^gvmd at .* answered get_tasks with 503 "Service temporarily down".* Rampart could not remove its task/,
  );
});

test('a scan config or port list gvmd does not have is config, naming the setting; a UUID is taken as given', { skip: GMP_SKIP }, async (t) => {
  const gvmd = await startFakeGvmd(t);
  await rejectsWith(collectEvents(createOpenvasEngine(settingsFor(gvmd, { scanConfig: 'Ultimate' })).run(job())), 'config', /no scan config named "Ultimate": set RAMPART_GVMD_SCAN_CONFIG/);
  await rejectsWith(collectEvents(createOpenvasEngine(settingsFor(gvmd, { portList: 'Some ports' })).run(job())), 'config', /no port list named "Some ports": set RAMPART_GVMD_PORT_LIST/);
  const before = gvmd.commands.length;
  const events = await collectEvents(createOpenvasEngine(settingsFor(gvmd, { scanConfig: 'daba56c8-73ec-11df-a475-002264764cea' })).run(job()));
  assert.equal(findingsOf(events).length, 1);
  assert.equal(gvmd.commands.slice(before).some((c) => c.name === 'get_configs'), false);
  assertCleanedUp(gvmd);
});

test('targets the guard refuses, and URL targets, never reach gvmd', { skip: GMP_SKIP }, async (t) => {
  const { gvmd, engine } = await unixGvmd(t);
  await rejectsWith(collectEvents(engine.run(job({ targets: [{ kind: 'ip', value: '192.0.2.7' }] }))), 'network-permanent', /was not handed to OpenVAS/);
  await rejectsWith(collectEvents(engine.run(job({ targets: [{ kind: 'cidr', value: '192.0.2.0/30' }] }))), 'network-permanent', /192\.0\.2\.0 in 192\.0\.2\.0\/30 may not be scanned/);
  await rejectsWith(collectEvents(engine.run(job({ targets: [{ kind: 'url', value: 'http://127.0.0.1/' }] }))), 'config', /take IP addresses, CIDR ranges and host names/);
  assert.equal(gvmd.connections, 0);
});

/** A loopback job whose names resolve through `answers` (nothing reaches DNS); `lookups` counts the look-ups. */
function namedJob(answers: Record<string, string[]>, targets: EngineJob['targets'], allow = ['127.0.0.0/8', '::1/128']) {
  const counter = { lookups: 0 };
  const lookup = async (name: string) => (counter.lookups++, answers[name] ?? []);
  const egress = createEgress({ guard: createAddressGuard(allow), lookup });
  return { job: job({ targets, guard: egress.guard, egress }), counter };
}

test("a host name: gvmd is given its checked addresses, never the name; the report's findings and hosts come back under the name, the address as host_ip", { skip: GMP_SKIP }, async (t) => {
  const { gvmd, engine } = await unixGvmd(t, { reportAddress: '127.0.0.5' });
  const named = namedJob({ 'app.test': ['127.0.0.5', '::1'] }, [{ kind: 'hostname', value: 'app.test' }, { kind: 'ip', value: '127.0.0.9' }]);
  const events = await collectEvents(engine.run(named.job));
  assert.deepEqual(gvmd.created.targets.map((target) => target.hosts), ['127.0.0.5,::1,127.0.0.9']);
  assert.equal(named.counter.lookups, 1, 'the name is resolved once, by Rampart');
  const [f] = findingsOf(events);
  assert.deepEqual([f?.hostname, f?.hostIp], ['app.test', '127.0.0.5'], "the target's name, not gvmd's reverse look-up (server99)");
  assert.deepEqual(events.filter((e) => e.type === 'host'), [{ type: 'host', hostname: 'app.test', address: '127.0.0.5', state: 'up' }]);
  assertCleanedUp(gvmd);
  // An address given as such is shown as itself.
  const bare = await unixGvmd(t, { reportAddress: '127.0.0.9' });
  const [g] = findingsOf(await collectEvents(bare.engine.run(named.job)));
  assert.deepEqual([g?.hostname, g?.hostIp], ['127.0.0.9', '127.0.0.9']);
});

test('a name with one refused address among allowed ones is refused whole, naming it; so is a range with one; gvmd sees none of them', { skip: GMP_SKIP }, async (t) => {
  const { gvmd, engine } = await unixGvmd(t);
  const answers = { 'mixed.test': ['127.0.0.1', '169.254.169.254'], 'private.test': ['10.0.0.5', '127.0.0.1'] };
  const mixed = namedJob(answers, [{ kind: 'hostname', value: 'mixed.test' }]).job;
  await rejectsWith(collectEvents(engine.run(mixed)), 'network-permanent', /^refused: 169\.254\.169\.254 is \S+ \(host "mixed\.test"\).* mixed\.test was not handed to OpenVAS: .*every address of a target must be allowed/);
  const second = namedJob(answers, [{ kind: 'ip', value: '127.0.0.1' }, { kind: 'hostname', value: 'private.test' }]).job;
  await rejectsWith(collectEvents(engine.run(second)), 'network-permanent', /10\.0\.0\.5 is private \(host "private\.test"\)/);
  const unresolvable = namedJob(answers, [{ kind: 'hostname', value: 'nowhere.test' }]).job;
  await rejectsWith(collectEvents(engine.run(unresolvable)), 'network-temporary', /"nowhere\.test" has no IPv4 or IPv6 address.* was not handed to OpenVAS/);
  // Every address of a range is checked: only 127.0.1.0/31 of 127.0.1.0/30 is allowed.
  const range = namedJob({}, [{ kind: 'cidr', value: '127.0.1.0/30' }], ['127.0.1.0/31']).job;
  await rejectsWith(collectEvents(engine.run(range)), 'network-permanent', /^127\.0\.1\.2 in 127\.0\.1\.0\/30 may not be scanned/);
  assert.equal(gvmd.connections, 0);
});

test('a socket nobody listens on is a config error naming it', async (t) => {
  const socket = path.join(await tempDir(t), 'absent.sock');
  const engine = createOpenvasEngine({ socket, username: GVMD_USER, password: GVMD_PASSWORD, scanConfig: DEFAULT_SCAN_CONFIG, portList: DEFAULT_PORT_LIST });
  await rejectsWith(collectEvents(engine.run(job())), 'config', new RegExp(`Cannot connect to gvmd at ${socket.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ENOENT`));
});
