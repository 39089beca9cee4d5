/**
 * The nuclei binary driver (RAMPART_NUCLEI_MODE=binary) through its public surface: the engine's
 * run() and the registry. The nuclei program is played by test/fixtures/nuclei/fake-nuclei.js,
 * which records its command line and replays REAL nuclei JSON Lines output (the DefectDojo samples
 * of ../shared/third_party/scan-samples) in pieces that split lines, with noise lines and `-stats
 * -sj` progress on stderr; variants exit non-zero, or run until cancelled with a child of their own.
 */
import assert from 'node:assert/strict';
import { createReadStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import type { EngineEvent, EngineJob, Finding } from '../src/engines/engine.js';
import { EngineError } from '../src/engines/engine.js';
import { importNuclei } from '../src/engines/importers/nuclei.importer.js';
import { findNucleiBinary } from '../src/engines/nuclei/binary/find-binary.js';
import { createNucleiBinaryEngine } from '../src/engines/nuclei/binary/nuclei-binary.engine.js';
import { createEngineRegistry } from '../src/engines/registry.js';
import { startBackground } from '../src/runs/background.js';
import { buildTestApp, signUp, tempDir, type TestApp } from './helpers/app.js';
import { collectEvents, loopbackJob } from './helpers/engine-job.js';
import { SAMPLES_DIR, SAMPLES_SKIP } from './helpers/scan-samples.js';
import { waitFor } from './helpers/servers.js';
import { SHARED_DIR } from './helpers/shared.js';

const FAKE = (() => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  // From test/ under tsx, or dist/test/ once compiled: the fixture stays in the source tree.
  return path.resolve(here, here.includes(`${path.sep}dist${path.sep}`) ? '../../test/fixtures/nuclei' : 'fixtures/nuclei', 'fake-nuclei.js');
})();
const REPLAY = path.join(SAMPLES_DIR, 'nuclei', 'many_findings.json');
const TEMPLATES = path.join(SHARED_DIR, 'third_party', 'nuclei-templates');
const skip = SAMPLES_SKIP || (existsSync(TEMPLATES) ? false : `the nuclei templates are not in ${TEMPLATES}`);

// Real community templates (../shared/third_party/nuclei-templates), one per rule of the policy.
/** tech, info: runs by default. */
const PLAIN = 'http/technologies/eyesofnetwork-detect.yaml';
/** dos and intrusive: never runs. */
const DOS = 'http/cves/2019/CVE-2019-15043.yaml';
/** intrusive: only when named. */
const INTRUSIVE = 'http/cnvd/2019/CNVD-2019-19299.yaml';
/** default-login: only when named. */
const LOGIN = 'http/vulnerabilities/backdoor/kevinlab-hems-backdoor.yaml';
/** default-login and fuzz. */
const WEAK_CREDENTIALS = 'http/fuzzing/wordpress-weak-credentials.yaml';
/** `unsafe: true`: only with RAMPART_NUCLEI_UNSAFE. */
const UNSAFE = 'http/honeypot/dionaea-http-honeypot-detect.yaml';
/** http + javascript, code, headless: never run. */
const JAVASCRIPT = 'http/misconfiguration/cookies-without-secure.yaml';
const CODE = 'http/cves/2024/CVE-2024-45488.yaml';
const HEADLESS = 'http/cves/2022/CVE-2022-0776.yaml';

/** A templates directory holding copies of these real templates (same relative paths). */
async function templatesDirWith(t: TestContext, files: string[]): Promise<string> {
  const dir = await tempDir(t);
  for (const file of files) {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await fs.copyFile(path.join(TEMPLATES, file), path.join(dir, file));
  }
  return dir;
}
const CAPS = { ratePerSecond: 0, maxConcurrency: 256 };

interface Fake {
  bin: string;
  record: string;
  /** What the fake was started with: its argv and the content of its -l file. */
  recorded(): { argv: string[]; targets: string; fetched: Array<number | string>; templates: string | null };
}

/** An executable `nuclei` in a fresh directory that runs the fake with this behaviour. */
async function fakeNuclei(t: TestContext, mode: 'ok' | 'fail' | 'slow' | 'broken' | 'hang-version' | 'flood', fetch: string[] = []): Promise<Fake> {
  const dir = await tempDir(t);
  const record = path.join(dir, 'record.json');
  const config = JSON.stringify({ record, replay: REPLAY, mode, fetch });
  const bin = path.join(dir, 'nuclei');
  // Written synchronously: an asynchronous write holds the file open on a pool thread, and a child forked meanwhile
  // by this process keeps that descriptor until it execs, so spawning the script at once could fail with ETXTBSY.
  writeFileSync(bin, `#!/bin/sh\nFAKE_NUCLEI='${config}' exec '${process.execPath}' '${FAKE}' "$@"\n`, { mode: 0o700 });
  return { bin, record, recorded: () => JSON.parse(readFileSync(record, 'utf8')) as ReturnType<Fake['recorded']> };
}

const makeJob = (overrides: Partial<EngineJob> = {}): EngineJob =>
  loopbackJob({ targets: [{ kind: 'url', value: 'http://127.0.0.1:8080/app' }, { kind: 'ip', value: '127.0.0.2' }], ...overrides });
const collect = collectEvents;

/** The value after a flag of the recorded command line. */
const flag = (argv: string[], name: string): string | undefined => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);

test('the binary runs with the selection, limits and proxy flags; its results become the importer\'s findings; progress from -stats', { skip }, async (t) => {
  // A target web server: reached through the egress proxy; a private address is refused there.
  const site = http.createServer((_request, response) => response.writeHead(204).end());
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => site.close(resolve)));
  const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  const fake = await fakeNuclei(t, 'ok', [siteUrl, 'http://10.1.2.3/']);
  // nuclei's own installed templates (no templates directory): the deployment accepted unsafe ones.
  const engine = createNucleiBinaryEngine({ bin: fake.bin, templatesDir: path.join(await tempDir(t), 'none'), caps: CAPS, unsafe: true, timeoutMs: 7500 });
  const job = makeJob({
    targets: [{ kind: 'url', value: 'http://127.0.0.1:8080/app' }, { kind: 'ip', value: '127.0.0.2' }, { kind: 'service', value: '127.0.0.1:9443' }, { kind: 'service', value: '[::1]:22' }],
    options: { tags: ['cve', 'intrusive', 'dos'], exclude_tags: ['wordpress'], severities: ['high', 'critical'], template_ids: ['CVE-2021-*'], exclude_template_ids: ['CVE-2021-1'], rate_per_second: 40, concurrency: 5 },
    limits: { connectTimeoutMs: 2000, readTimeoutMs: 3000, maxConcurrency: 4, ratePerSecond: 30 },
  });
  const events = await collect(engine.run(job));

  assert.deepEqual(events[0], { type: 'engine', name: 'nuclei', version: '3.4.10', detail: `binary ${fake.bin}, templates nuclei's own` });
  const { argv, targets } = fake.recorded();
  assert.equal(targets, 'http://127.0.0.1:8080/app\n127.0.0.2\n127.0.0.1:9443\n[::1]:22\n', 'host:port as nuclei takes it');
  for (const f of ['-jsonl', '-silent', '-nc', '-duc', '-ni', '-stats', '-sj']) assert.ok(argv.includes(f), `${f} in ${argv.join(' ')}`);
  assert.equal(flag(argv, '-si'), '5');
  assert.match(flag(argv, '-mp') ?? '', /^\d+$/);
  assert.match(flag(argv, '-proxy') ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(flag(argv, '-t'), undefined);
  // dos never runs: named in -tags it would lift -etags dos.
  assert.equal(flag(argv, '-tags'), 'cve,intrusive');
  // The default exclusions stay, except a tag the scan asked for; never-run protocols are excluded.
  assert.equal(flag(argv, '-etags'), 'dos,fuzz,bruteforce,default-login,wordpress');
  assert.equal(flag(argv, '-ept'), 'code,headless,javascript,file');
  assert.equal(flag(argv, '-s'), 'high,critical');
  assert.equal(flag(argv, '-id'), 'CVE-2021-*');
  assert.equal(flag(argv, '-eid'), 'CVE-2021-1');
  // Capped by the deployment: rate 30/s; 4 templates x 1 host x 1 payload request in flight; the nuclei timeout.
  assert.deepEqual([flag(argv, '-rl'), flag(argv, '-c'), flag(argv, '-bs'), flag(argv, '-pc'), flag(argv, '-timeout')], ['30', '4', '1', '1', '8']);
  assert.equal(existsSync(flag(argv, '-l') ?? ''), false, 'the targets file is removed');
  assert.deepEqual(fake.recorded().fetched, [204, 403], "nuclei's HTTP goes through the guard: the loopback target answers, 10.1.2.3 is refused");

  const imported = await importNuclei(createReadStream(REPLAY));
  const expected: Finding[] = [];
  for await (const e of imported.events) if (e.type === 'finding') expected.push(e.finding);
  const findings = events.flatMap((e) => (e.type === 'finding' ? [e.finding] : []));
  assert.equal(findings.length, 18, 'every result line, split or not, is read once');
  assert.deepEqual(findings, expected);
  assert.deepEqual(events.filter((e) => e.type === 'host').map((e) => (e as { hostname: string }).hostname).sort(), [...new Set(findings.map((f) => f.hostname))].sort());
  const percents = events.flatMap((e) => (e.type === 'progress' ? [e.percent] : []));
  assert.equal(percents[0], 0);
  assert.equal(percents.at(-1), 100);
  assert.deepEqual(percents, [...percents].sort((a, b) => a - b));
  assert.ok(events.some((e) => e.type === 'progress' && e.detail === 'requests 100/100, matched 18, errors 0'));
  assert.deepEqual(events.at(-1), { type: 'log', level: 'info', message: "2 line(s) of nuclei's output were not results and were skipped." });
});

test('a non-zero exit is a config EngineError quoting the last lines of stderr; a program that does not run is one too', { skip }, async (t) => {
  const fake = await fakeNuclei(t, 'fail');
  const engine = createNucleiBinaryEngine({ bin: fake.bin, templatesDir: undefined, caps: CAPS, unsafe: true });
  const events: EngineEvent[] = [];
  await assert.rejects(
    async () => {
      for await (const e of engine.run(makeJob())) events.push(e);
    },
    (error: unknown) =>
      error instanceof EngineError &&
      error.kind === 'config' &&
      error.message.startsWith('nuclei exited with code 1:\n') &&
      error.message.endsWith('[ERR] Could not read some templates\n[FTL] Could not run nuclei: no templates provided for scan'),
  );
  assert.equal(flag(fake.recorded().argv, '-t'), undefined, "without a templates directory, nuclei's own templates run");
  assert.equal(events.filter((e) => e.type === 'finding').length, 18, 'the findings before the failure were reported');

  const broken = await fakeNuclei(t, 'broken');
  const engine2 = createNucleiBinaryEngine({ bin: broken.bin, templatesDir: undefined, caps: CAPS, unsafe: true });
  await assert.rejects(collect(engine2.run(makeJob())), (error: unknown) => error instanceof EngineError && error.kind === 'config' && /^The nuclei program does not run: `.*nuclei -version` failed/.test(error.message));
});

test('cancelling the job ends nuclei and its whole process group, and the run stops without an error', { skip }, async (t) => {
  const fake = await fakeNuclei(t, 'slow');
  const engine = createNucleiBinaryEngine({ bin: fake.bin, templatesDir: undefined, caps: CAPS, unsafe: true });
  const controller = new AbortController();
  const events: EngineEvent[] = [];
  // The fake's child shares its stdout: the run cannot end while any of the group is alive.
  for await (const e of engine.run(makeJob({ signal: controller.signal }))) {
    events.push(e);
    if (e.type === 'finding') controller.abort();
  }
  assert.equal(events.filter((e) => e.type === 'finding').length, 1);
  assert.equal(existsSync(flag(fake.recorded().argv, '-l') ?? ''), false, 'the targets file is removed');
});

test('targets the guard refuses (wholly or by one address or range part) stop the run before nuclei starts', { skip }, async (t) => {
  const fake = await fakeNuclei(t, 'ok');
  const engine = createNucleiBinaryEngine({ bin: fake.bin, templatesDir: undefined, caps: CAPS, unsafe: true });
  for (const target of [{ kind: 'ip', value: '10.1.2.3' }, { kind: 'url', value: 'http://[::ffff:169.254.169.254]/' }, { kind: 'cidr', value: '10.0.0.0/30' }, { kind: 'service', value: '10.1.2.3:22' }] as const) {
    await assert.rejects(
      collect(engine.run(makeJob({ targets: [{ kind: 'ip', value: '127.0.0.1' }, target] }))),
      (error: unknown) => error instanceof EngineError && error.kind === 'network-permanent' && /nuclei binary was not started/.test(error.message),
      target.value,
    );
  }
  assert.equal(existsSync(fake.record), false, 'nuclei never ran');
});

test('the registry serves Nuclei with the binary when RAMPART_NUCLEI_MODE=binary, and says why not without one', async (t) => {
  const fake = await fakeNuclei(t, 'ok');
  const scan = { ratePerSecond: 0, maxConcurrency: 256, connectTimeoutMs: 1500 };
  const templatesDir = path.join(await tempDir(t), 'nuclei-templates');

  const binary = createEngineRegistry({ scan, nucleiCli: { mode: 'binary', bin: fake.bin } }).forScanType('Nuclei');
  assert.ok(binary.available);
  assert.equal(binary.engine.name, 'nuclei');
  assert.ok(binary.engine.optionsSchema, 'Nuclei scans take the binary options');

  const missing = createEngineRegistry({ scan, nucleiCli: { mode: 'binary', bin: path.join(templatesDir, 'nope') } }).forScanType('Nuclei');
  assert.deepEqual(missing, {
    available: false,
    reason: `Nuclei scans are set to run the nuclei program (RAMPART_NUCLEI_MODE=binary), but RAMPART_NUCLEI_BIN=${path.join(templatesDir, 'nope')} is not an executable file. Install nuclei or set RAMPART_NUCLEI_BIN.`,
  });
  assert.equal(createEngineRegistry({ scan, nucleiCli: { mode: 'binary', bin: 'surely-no-such-nuclei' } }).availableTypes().includes('Nuclei'), false);

  // On PATH: found by name, absolute; not executable: not found.
  assert.deepEqual(findNucleiBinary(undefined, { PATH: `/nonexistent${path.delimiter}${path.dirname(fake.bin)}` }), { path: fake.bin });
  await fs.chmod(fake.bin, 0o600);
  assert.deepEqual(findNucleiBinary(undefined, { PATH: path.dirname(fake.bin) }), { reason: 'the `nuclei` program was not found on PATH.' });
});

test('through the API: RAMPART_NUCLEI_MODE=binary without the program refuses Nuclei scans with the reason; with it, the binary options are checked', async (t) => {
  const post = (ctx: TestApp, auth: Record<string, string>, extra: Record<string, unknown>) =>
    ctx.app.inject({
      method: 'POST',
      url: '/api/new-scan',
      headers: auth,
      payload: { scan_name: 'Web', scan_type: 'Nuclei', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: '127.0.0.1', ...extra },
    });
  const missing = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8', RAMPART_NUCLEI_MODE: 'binary', RAMPART_NUCLEI_BIN: '/nonexistent/nuclei' } });
  const refused = await post(missing, (await signUp(missing, { role: 'basic' })).auth, {});
  assert.equal(refused.statusCode, 422, refused.body);
  assert.deepEqual(refused.json().errors.scan_type, [
    'Nuclei scans are set to run the nuclei program (RAMPART_NUCLEI_MODE=binary), but RAMPART_NUCLEI_BIN=/nonexistent/nuclei is not an executable file. Install nuclei or set RAMPART_NUCLEI_BIN.',
  ]);

  const fake = await fakeNuclei(t, 'ok');
  const ctx = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8', RAMPART_NUCLEI_MODE: 'binary', RAMPART_NUCLEI_BIN: fake.bin, RAMPART_SCAN_RATE: '50' } });
  const { auth } = await signUp(ctx, { role: 'basic' });
  const tooFast = await post(ctx, auth, { engine_options: { rate_per_second: 51 } });
  assert.equal(tooFast.statusCode, 422, tooFast.body);
  assert.ok(tooFast.json().errors['engine_options.rate_per_second'], tooFast.body);
  const created = await post(ctx, auth, { engine_options: { tags: ['cve'], severities: ['critical'], rate_per_second: 50 } });
  assert.equal(created.statusCode, 200, created.body);
});

test('end to end: a Nuclei scan run by a worker with the binary records nuclei\'s identity, progress and findings', { skip }, async (t) => {
  const fake = await fakeNuclei(t, 'ok');
  const templatesDir = await templatesDirWith(t, [PLAIN, DOS]);
  const ctx = await buildTestApp(t, {
    env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8', RAMPART_WORKER_POLL_MS: '20', RAMPART_NUCLEI_MODE: 'binary', RAMPART_NUCLEI_BIN: fake.bin, RAMPART_NUCLEI_TEMPLATES: templatesDir, RAMPART_NUCLEI_TIMEOUT_MS: '4000' },
  });
  const background = startBackground({
    db: ctx.store.db,
    config: ctx.config,
    guard: ctx.app.ctx.guard,
    queue: ctx.app.ctx.queue,
    log: pino({ level: 'silent' }),
    worker: true,
    scheduler: false,
    engines: ctx.app.ctx.engines,
  });
  t.after(() => background.stop());
  const user = await signUp(ctx, { role: 'pro' });
  const created = await ctx.app.inject({
    method: 'POST',
    url: '/api/new-scan',
    headers: user.auth,
    payload: { scan_name: 'Web', scan_type: 'Nuclei', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: '127.0.0.1', engine_options: { severities: ['low', 'medium', 'info'] } },
  });
  assert.equal(created.statusCode, 200, created.body);
  const uuid = created.json().uuid;
  const run = await waitFor('the Nuclei run to complete', async () => {
    const summary = (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: user.auth })).json();
    return summary.runs[0]?.status === 'completed' ? summary.runs[0] : undefined;
  });
  assert.equal(run.outcome, 'succeeded', run.error);
  assert.deepEqual([run.engine, run.engine_version, run.engine_detail], ['nuclei', '3.4.10', `binary ${fake.bin}, templates ${templatesDir} (1 of 2 permitted)`]);
  // The deployment's settings reach nuclei: the permitted template (of the chosen severities), the nuclei timeout.
  assert.equal(fake.recorded().templates, `${path.join(templatesDir, PLAIN)}\n`);
  assert.equal(flag(fake.recorded().argv, '-timeout'), '4');
  assert.equal(fake.recorded().targets, '127.0.0.1\n');
  const findings = await ctx.store.db.selectFrom('findings').select(['rule_id', 'threat']).where('user_id', '=', user.userId).execute();
  assert.ok(findings.some((f) => f.rule_id === 'openssh5.3-detect' && f.threat === 'Low'), JSON.stringify(findings.slice(0, 3)));
  assert.ok(findings.length >= 10, `${findings.length} findings stored`);
});

test('the binary keeps the deployment\'s template policy: nuclei gets only the templates the built-in selection keeps', { skip }, async (t) => {
  const all = [PLAIN, DOS, INTRUSIVE, LOGIN, WEAK_CREDENTIALS, UNSAFE, JAVASCRIPT, CODE, HEADLESS];
  const templatesDir = await templatesDirWith(t, all);
  // A file nuclei may read but we cannot parse is not handed over either.
  await fs.writeFile(path.join(templatesDir, 'http', 'broken.yaml'), 'id: broken-template\ninfo: [unclosed\n');
  const listed = async (options: Record<string, unknown>, unsafe = false): Promise<{ files: string[]; argv: string[] }> => {
    const fake = await fakeNuclei(t, 'ok');
    const engine = createNucleiBinaryEngine({ bin: fake.bin, templatesDir, caps: CAPS, unsafe });
    const events = await collect(engine.run(makeJob({ options })));
    assert.equal(events[0]?.type, 'engine');
    const { argv, templates } = fake.recorded();
    assert.equal(flag(argv, '-t'), path.join(path.dirname(flag(argv, '-l')!), 'templates.txt'), 'a list of files, not the directory');
    // Backstops besides the list; the selection itself is in the list (-tags would lift -etags, -id would lift -eid).
    assert.equal(flag(argv, '-etags'), 'dos');
    assert.equal(flag(argv, '-ept'), 'code,headless,javascript,file');
    for (const f of ['-tags', '-id', '-eid', '-s']) assert.equal(flag(argv, f), undefined, f);
    return { files: (templates ?? '').split('\n').filter(Boolean).map((file) => path.relative(templatesDir, file).split(path.sep).join('/')), argv };
  };

  assert.deepEqual((await listed({})).files, [PLAIN], 'by default: no dos, no intrusive/fuzz/default-login, no unsafe, no javascript/code/headless');
  // Naming the tags opts in to the default exclusions, never to dos nor to unsafe without the deployment's opt-in.
  assert.deepEqual((await listed({ tags: ['dos', 'intrusive', 'default-login', 'fuzz', 'honeypot', 'tech'] })).files.sort(), [INTRUSIVE, LOGIN, WEAK_CREDENTIALS, PLAIN].sort());
  assert.deepEqual((await listed({ tags: ['honeypot'] }, true)).files, [UNSAFE], 'unsafe runs with RAMPART_NUCLEI_UNSAFE');
  // Naming a template opts in to its tags, as in the built-in engine; other options narrow the same way.
  assert.deepEqual((await listed({ template_ids: ['kevinlab-hems-*', 'CVE-2019-15043', 'cookies-without-secure'] })).files, [LOGIN]);
  assert.deepEqual((await listed({ severities: ['critical'], tags: ['intrusive', 'default-login'], exclude_template_ids: ['CNVD-2019-19299'] })).files.sort(), [LOGIN].sort());

  // Nothing permitted: nuclei is not started (an empty list would run everything).
  const idle = await fakeNuclei(t, 'ok');
  const engine = createNucleiBinaryEngine({ bin: idle.bin, templatesDir, caps: CAPS });
  const events = await collect(engine.run(makeJob({ options: { template_ids: ['CVE-2019-15043'] } })));
  assert.deepEqual(events.slice(1), [{ type: 'log', level: 'info', message: 'No template of the selection may run on this deployment: nuclei was not started.' }]);
  assert.equal(existsSync(idle.record), false);
  // nuclei's own templates: only nuclei's filters, and none keeps `unsafe: true` out: refused without the opt-in.
  const own = createNucleiBinaryEngine({ bin: idle.bin, templatesDir: undefined, caps: CAPS });
  await assert.rejects(collect(own.run(makeJob())), (error: unknown) => error instanceof EngineError && error.kind === 'config' && /RAMPART_NUCLEI_UNSAFE=true/.test(error.message));
  const dosOnly = createNucleiBinaryEngine({ bin: idle.bin, templatesDir: undefined, caps: CAPS, unsafe: true });
  assert.deepEqual((await collect(dosOnly.run(makeJob({ options: { tags: ['dos'] } })))).at(-1), events.at(-1), 'tags that never run: nuclei is not started');
  assert.equal(existsSync(idle.record), false);
});

test('cancelling while nuclei -version has not answered ends the run at once, without an error', { skip }, async (t) => {
  const fake = await fakeNuclei(t, 'hang-version');
  const engine = createNucleiBinaryEngine({ bin: fake.bin, templatesDir: undefined, caps: CAPS, unsafe: true });
  const controller = new AbortController();
  const run = collect(engine.run(makeJob({ signal: controller.signal })));
  const pid = Number(await waitFor('nuclei -version to start', async () => (existsSync(`${fake.record}.version`) ? readFileSync(`${fake.record}.version`, 'utf8') : undefined)));
  controller.abort();
  assert.deepEqual(await run, [], 'no engine event, no error (the version timeout is 15 s)');
  await waitFor('the -version process to end', async () => {
    try {
      process.kill(pid, 0);
      return undefined;
    } catch {
      return true;
    }
  });
  assert.equal(existsSync(fake.record), false, 'nuclei never ran');
});

test('a consumer that takes events slowly loses none of a flood of results', { skip }, async (t) => {
  const fake = await fakeNuclei(t, 'flood');
  const engine = createNucleiBinaryEngine({ bin: fake.bin, templatesDir: undefined, caps: CAPS, unsafe: true });
  const written = (): number => (existsSync(`${fake.record}.written`) ? readFileSync(`${fake.record}.written`, 'utf8').length : 0);
  const iterator = engine.run(makeJob())[Symbol.asyncIterator]();
  let taken = 0;
  while ((await iterator.next()).value?.type !== 'finding') taken++;
  // The queue and the pipes fill while the consumer holds back. (That nuclei then waits is not
  // asserted: proving that something does not happen would need a timed wait, which tests avoid.)
  await waitFor('nuclei to fill the queue', async () => (written() >= 300 ? true : undefined));
  let findings = 1;
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) if (next.value.type === 'finding') findings++;
  assert.equal(findings, 3000, 'nothing is lost once the consumer takes them');
  assert.ok(taken >= 1);
});
