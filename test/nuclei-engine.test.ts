/**
 * The nuclei engine (src/engines/nuclei/nuclei.engine.ts) through its public surface: templates
 * written at test time into a temporary directory, run by the real executors against loopback
 * servers. Selection and its notes, URL targets with a base path, discovered services by family,
 * findings, progress, skipping a dead host, and abort.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { Value } from 'typebox/value';
import type { EngineEvent, EngineJob, Finding } from '../src/engines/engine.js';
import { NUCLEI_EXECUTORS } from '../src/engines/nuclei/executors.js';
import { SUPPORTED_FEATURES } from '../src/engines/nuclei/supported-features.js';
import { createNucleiEngine, type NucleiEngineSettings } from '../src/engines/nuclei/nuclei.engine.js';
import { importNuclei, nucleiFinding } from '../src/engines/importers/nuclei.importer.js';
import { fingerprintOf } from '../src/findings/finding-identity.js';
import type { DiscoveryEvent } from '../src/engines/nuclei/services.js';
import { createRampartDiscovery } from '../src/engines/nuclei-discovery.js';
import { UNCAPPED } from '../src/engines/rampart/options.js';
import { tempDir } from './helpers/app.js';
import { createAddressGuard } from '../src/shared/address-guard.js';
import { createEgress } from '../src/shared/egress.js';
import { LOOPBACK_EGRESS } from './helpers/egress.js';
import { closedPort, startTcpServer } from './helpers/servers.js';

/** A template that GETs `{{BaseURL}}/<path>` and matches `word` in the body. */
function httpTemplate(id: string, options: { path?: string; word?: string; severity?: string; tags?: string; extra?: string } = {}): string {
  return [
    `id: ${id}`,
    'info:',
    `  name: ${id} test`,
    `  severity: ${options.severity ?? 'medium'}`,
    `  tags: ${options.tags ?? 'test'}`,
    '  description: A test template.',
    '  remediation: Upgrade it.',
    '  reference:',
    '    - https://example.com/advisory',
    '  classification:',
    '    cve-id: CVE-2000-0001',
    '    cwe-id: CWE-200,CWE-79',
    '    cvss-metrics: CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
    '    cvss-score: 7.5',
    'http:',
    '  - method: GET',
    '    path:',
    `      - "{{BaseURL}}/${options.path ?? 'status'}"`,
    ...(options.extra ? [options.extra] : []),
    '    matchers:',
    '      - type: word',
    '        name: marker',
    '        words:',
    `          - "${options.word ?? 'vulnerable-marker'}"`,
    '',
  ].join('\n');
}

async function writeTemplates(t: TestContext, files: Record<string, string>): Promise<string> {
  const dir = await tempDir(t);
  for (const [name, text] of Object.entries(files)) await fs.writeFile(path.join(dir, name), text);
  return dir;
}

async function serve(t: TestContext, handler: http.RequestListener): Promise<{ port: number; paths: string[] }> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: (server.address() as AddressInfo).port, paths };
}

function engineFor(templatesDir: string, extra: Partial<NucleiEngineSettings> = {}) {
  return createNucleiEngine({ templatesDir, supported: SUPPORTED_FEATURES, executors: NUCLEI_EXECUTORS, timeoutMs: 2000, ...extra });
}

function jobOf(targets: EngineJob['targets'], options: Record<string, unknown> = {}, signal = new AbortController().signal): EngineJob {
  return {
    targets,
    ports: 'default',
    limits: { connectTimeoutMs: 1000, readTimeoutMs: 1000, maxConcurrency: 64, ratePerSecond: 0 },
    options,
    guard: LOOPBACK_EGRESS.guard,
    egress: LOOPBACK_EGRESS,
    signal,
  };
}

async function collect(events: AsyncIterable<EngineEvent>): Promise<EngineEvent[]> {
  const all: EngineEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const findingsOf = (events: EngineEvent[]): Finding[] => events.flatMap((e) => (e.type === 'finding' ? [e.finding] : []));
const messagesOf = (events: EngineEvent[], type: 'log' | 'incomplete'): string[] => events.flatMap((e) => (e.type === type ? [e.message] : []));

describe('nuclei engine', () => {
  it('runs a template on a URL target under its base path and reports the match as a finding', async (t) => {
    const server = await serve(t, (req, res) => res.writeHead(req.url === '/app/status' ? 200 : 404).end(req.url === '/app/status' ? 'vulnerable-marker' : 'no'));
    const dir = await writeTemplates(t, { 'a.yaml': httpTemplate('test-a') });
    const events = await collect(engineFor(dir).run(jobOf([{ kind: 'url', value: `http://127.0.0.1:${server.port}/app/` }])));

    const first = events[0];
    assert.deepEqual(first && first.type === 'engine' ? [first.name, first.detail] : first, ['rampart-nuclei', `templates ${path.basename(dir)}, 1 of 1 templates`]);
    assert.deepEqual(server.paths, ['/app/status'], 'BaseURL keeps the target path');
    const [finding, ...rest] = findingsOf(events);
    assert.equal(rest.length, 0);
    assert.ok(finding);
    assert.equal(finding.ruleId, 'test-a:marker');
    assert.equal(finding.url, `http://127.0.0.1:${server.port}/app/status`);
    assert.equal(finding.method, null, 'as in nuclei results: the request is in the evidence');
    assert.equal(finding.port, server.port);
    assert.equal(finding.protocol, 'tcp');
    assert.equal(finding.service, 'http');
    assert.equal(finding.threat, 'Medium', 'the severity word, not the score, gives the threat');
    assert.equal(finding.cvssBase, 7.5);
    assert.equal(finding.cvssVector, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N');
    assert.deepEqual(finding.cve, ['CVE-2000-0001']);
    assert.equal(finding.cwe, 'CWE-200');
    assert.deepEqual(finding.references, ['https://example.com/advisory']);
    assert.equal(finding.solution, 'Upgrade it.');
    assert.equal(finding.qod, 95);
    assert.match(finding.evidence, /by matcher marker/);
    assert.match(finding.evidence, /cwe-ids=CWE-200 CWE-79/);
    assert.match(finding.evidence, /Response:\nHTTP\/1\.1 200/);

    const percents = events.flatMap((e) => (e.type === 'progress' ? [e.percent] : []));
    assert.deepEqual(percents, [...percents].sort((a, b) => a - b), 'progress only grows');
    assert.equal(percents.at(-1), 100);
    assert.ok(events.some((e) => e.type === 'host' && e.hostname === '127.0.0.1' && e.state === 'up'));
  });

  it('names the template set by the release a sync installed', async (t) => {
    const dir = await writeTemplates(t, { 'a.yaml': httpTemplate('a'), '.rampart-sync.json': JSON.stringify({ release: 'v10.3.9' }) });
    const events = await collect(engineFor(dir).run(jobOf([])));
    const first = events[0];
    assert.equal(first?.type === 'engine' ? first.detail : first, 'templates v10.3.9, 1 of 1 templates');
  });

  it('selects the default set minus never-run and default-excluded templates; the scan narrows it or opts in', async (t) => {
    const server = await serve(t, (_req, res) => res.writeHead(200).end('vulnerable-marker'));
    const dir = await writeTemplates(t, {
      'plain.yaml': httpTemplate('plain', { severity: 'high' }),
      'info.yaml': httpTemplate('info-one', { severity: 'info' }),
      'intrusive.yaml': httpTemplate('intrusive-one', { tags: 'cve,intrusive' }),
      'dos.yaml': httpTemplate('dos-one', { tags: 'dos' }),
      'put.yaml': httpTemplate('put-one').replace('method: GET', 'method: PUT'),
      'unsafe.yaml': httpTemplate('unsafe-one', { extra: '    unsafe: true' }),
      'oob.yaml': httpTemplate('oob-one', { path: '?u={{interactsh-url}}' }),
      'code.yaml': 'id: code-one\ninfo:\n  name: code\n  severity: high\ncode:\n  - engine: [sh]\n    source: id\n',
      'broken.yaml': 'id: [unclosed\n',
    });
    const target = [{ kind: 'url' as const, value: `http://127.0.0.1:${server.port}/` }];
    const run = async (options: Record<string, unknown>) => {
      const events = await collect(engineFor(dir).run(jobOf(target, options)));
      return { ids: findingsOf(events).map((f) => f.ruleId.split(':')[0]).sort(), logs: messagesOf(events, 'log') };
    };

    const plain = await run({});
    assert.deepEqual(plain.ids, ['info-one', 'plain']);
    assert.ok(plain.logs.some((m) => /^1 template file could not be loaded: broken\.yaml/.test(m)), plain.logs.join('\n'));
    assert.ok(plain.logs.some((m) => /^Templates: 7 in the default set, 1 never run here .*, 3 left out by the tag exclusions and the scan's options, 2 run\.$/.test(m)), plain.logs.join('\n'));
    assert.ok(plain.logs.some((m) => /^1 selected templates were skipped: .*interactsh 1/.test(m)), plain.logs.join('\n'));

    assert.deepEqual((await run({ tags: ['intrusive'] })).ids, ['intrusive-one'], 'naming a default-excluded tag opts in');
    assert.deepEqual((await run({ template_ids: ['intrusive-*', 'dos-*'] })).ids, ['intrusive-one'], 'a named template opts in; dos never runs');
    assert.deepEqual((await run({ template_ids: ['put-one'] })).ids, ['put-one'], 'a template that writes (PUT) runs only when named');
    assert.deepEqual((await run({ template_ids: ['put-*'] })).ids, ['put-one']);
    assert.deepEqual((await run({ severities: ['high'] })).ids, ['plain']);
    assert.deepEqual((await run({ exclude_template_ids: ['pl*'] })).ids, ['info-one']);
    assert.deepEqual((await run({ exclude_tags: ['test'] })).ids, []);
    assert.deepEqual((await run({ template_ids: ['unsafe-one', 'code-one'] })).ids, [], 'unsafe and code templates do not run, even named');
    const unsafe = await collect(engineFor(dir, { unsafe: true }).run(jobOf(target, { template_ids: ['unsafe-one', 'code-one'] })));
    assert.deepEqual(findingsOf(unsafe).map((f) => f.ruleId), ['unsafe-one:marker'], 'unsafe templates run where the deployment opted in; code never');
  });

  it('a template that decides by comparing versions reports at the QoD of a version inference, as its uploaded nuclei result does', async (t) => {
    const server = await serve(t, (_req, res) => res.writeHead(200, { server: 'Acme/1.2' }).end('vulnerable-marker'));
    const versioned = httpTemplate('versioned').replace(
      "    matchers:\n",
      '    matchers-condition: and\n    matchers:\n      - type: dsl\n        dsl:\n          - compare_versions(replace(server, "Acme/", ""), "< 2.0")\n',
    );
    const extracting = [
      'id: extracting', 'info:', '  name: extracting', '  severity: info', 'http:', '  - method: GET', '    path:', '      - "{{BaseURL}}/x"',
      '    extractors:', '      - type: regex', '        name: server', '        part: header', '        regex:', "          - 'Acme/[0-9.]+'", '',
    ].join('\n');
    const templates = { 'v.yaml': versioned, 'p.yaml': httpTemplate('proved', { path: 'other' }), 'e.yaml': extracting };
    const dir = await writeTemplates(t, templates);
    const found = findingsOf(await collect(engineFor(dir).run(jobOf([{ kind: 'url', value: `http://127.0.0.1:${server.port}/` }]))));
    assert.deepEqual(found.map((f) => [f.ruleId, f.qod]).sort(), [['extracting:server', 95], ['proved:marker', 95], ['versioned', 80]]);

    // The same matches as nuclei writes them (-jsonl, template-encoded kept), uploaded or read from
    // the binary: the same rule ids and QoD, so the same findings (fingerprints).
    const base = `http://127.0.0.1:${server.port}`;
    const encoded = (file: keyof typeof templates) => Buffer.from(templates[file]).toString('base64');
    const classification = { 'cve-id': ['cve-2000-0001'], 'cwe-id': ['cwe-200', 'cwe-79'], 'cvss-score': 7.5 };
    const lines = [
      { 'template-id': 'versioned', 'template-encoded': encoded('v.yaml'), info: { name: 'versioned test', severity: 'medium', classification }, type: 'http', 'matched-at': `${base}/status` },
      { 'template-id': 'proved', 'template-encoded': encoded('p.yaml'), info: { name: 'proved test', severity: 'medium', classification }, type: 'http', 'matcher-name': 'marker', 'matched-at': `${base}/other` },
      { 'template-id': 'extracting', 'template-encoded': encoded('e.yaml'), info: { name: 'extracting', severity: 'info' }, type: 'http', 'extractor-name': 'server', 'extracted-results': ['Acme/1.2'], 'matched-at': `${base}/x` },
    ];
    const imported = findingsOf(await collect((await importNuclei((async function* () { yield lines.map((l) => JSON.stringify(l)).join('\n'); })())).events));
    const identity = (f: Finding) => [f.ruleId, f.qod, fingerprintOf(1, f)];
    assert.deepEqual(imported.map(identity).sort(), found.map(identity).sort());
    // Without the template (nuclei -ot) nothing says a version decided: a match is a proof.
    assert.equal(nucleiFinding({ 'template-id': 'versioned', 'matched-at': `${base}/status` }).qod, 95);
  });

  it('runs each family on the services discovery found: http on web services, tcp on its declared port', async (t) => {
    const web = await serve(t, (_req, res) => res.writeHead(200).end('vulnerable-marker'));
    const banner = await startTcpServer(t, { banner: () => '220 Microsoft FTP Service\r\n' });
    const tcpTemplate = [
      'id: tcp-one', 'info:', '  name: tcp', '  severity: info', 'tcp:', '  - inputs:', '      - data: "\\n"', '    host:', '      - "{{Hostname}}"', `    port: ${banner.port}`,
      '    matchers:', '      - type: word', '        words:', '          - "Microsoft FTP Service"', '',
    ].join('\n');
    const dir = await writeTemplates(t, { 'web.yaml': httpTemplate('web-one'), 'tcp.yaml': tcpTemplate });
    const discovered: DiscoveryEvent[] = [
      { type: 'host', hostname: '127.0.0.1', address: '127.0.0.1', state: 'up' },
      { type: 'service', service: { host: '127.0.0.1', address: '127.0.0.1', port: web.port, scheme: 'http', tls: false } },
      { type: 'service', service: { host: '127.0.0.1', address: '127.0.0.1', port: banner.port, scheme: null, tls: false } },
      { type: 'progress', percent: 50 },
    ];
    const seen: EngineJob[] = [];
    const discover = async function* (job: EngineJob) {
      seen.push(job);
      yield* discovered;
    };
    const events = await collect(engineFor(dir, { discover }).run(jobOf([{ kind: 'ip', value: '127.0.0.1' }])));
    assert.deepEqual(seen.map((j) => j.targets), [[{ kind: 'ip', value: '127.0.0.1' }]]);
    const found = findingsOf(events).map((f) => `${f.ruleId} ${f.port} ${f.url ?? '-'} ${f.service}`).sort();
    assert.deepEqual(found, [`tcp-one ${banner.port} - tcp`, `web-one:marker ${web.port} http://127.0.0.1:${web.port}/status http`].sort());
    assert.equal(web.paths.length, 1, 'the http template ran on the web service only');
    const percents = events.flatMap((e) => (e.type === 'progress' ? [e.percent] : []));
    assert.deepEqual(percents.slice(0, 2), [10, 20], 'discovery takes the first fifth of the progress');
  });

  it('host:port targets are discovered on their own ports only: tcp templates on a plain service, http ones on a web service', async (t) => {
    const web = await serve(t, (_req, res) => res.writeHead(200).end('vulnerable-marker'));
    const banner = await startTcpServer(t, { banner: () => '220 Microsoft FTP Service\r\n' });
    // No declared port: the template runs on every non-HTTP service.
    const tcpTemplate = [
      'id: tcp-any', 'info:', '  name: tcp', '  severity: info', 'tcp:', '  - inputs:', '      - data: "\\n"', '    host:', '      - "{{Hostname}}"',
      '    matchers:', '      - type: word', '        words:', '          - "Microsoft FTP Service"', '',
    ].join('\n');
    const dir = await writeTemplates(t, { 'web.yaml': httpTemplate('web-one'), 'tcp.yaml': tcpTemplate });
    const real = createRampartDiscovery(UNCAPPED);
    const seen: EngineJob['ports'][] = [];
    const discover = (job: EngineJob) => (seen.push(job.ports), real(job));
    const targets = [{ kind: 'service', value: `127.0.0.1:${banner.port}` }, { kind: 'service', value: `127.0.0.1:${web.port}` }] as const;
    const events = await collect(engineFor(dir, { discover }).run(jobOf([...targets])));
    assert.deepEqual(seen, [[banner.port, web.port]], 'one discovery run on the host, on the named ports only');
    const found = findingsOf(events).map((f) => `${f.ruleId} ${f.port} ${f.service}`).sort();
    assert.deepEqual(found, [`tcp-any ${banner.port} tcp`, `web-one:marker ${web.port} http`].sort());
  });

  it('skips a host after consecutive network errors, saying so once', async (t) => {
    const port = await closedPort();
    const files: Record<string, string> = {};
    // Distinct paths: identical requests would be shared, one failure for all.
    for (let i = 0; i < 6; i += 1) files[`t${i}.yaml`] = httpTemplate(`dead-${i}`, { path: `status-${i}` });
    const dir = await writeTemplates(t, files);
    const events = await collect(engineFor(dir, { maxHostErrors: 2 }).run(jobOf([{ kind: 'url', value: `http://127.0.0.1:${port}/` }], { concurrency: 1 })));
    const incomplete = messagesOf(events, 'incomplete');
    assert.equal(incomplete.length, 1, incomplete.join('\n'));
    assert.match(incomplete[0]!, /^127\.0\.0\.1 stopped answering \(2 network errors in a row/);
    assert.match(messagesOf(events, 'log').at(-1)!, /6 template runs on 1 service: 0 matches, 2 requests sent/, 'nothing was sent once the host was skipped');
    assert.ok(events.some((e) => e.type === 'host' && e.state === 'down'));
  });

  it('stops promptly without throwing when the job aborts', async (t) => {
    let arrived!: () => void;
    const firstRequest = new Promise<void>((resolve) => (arrived = resolve));
    // Never answers: only the abort can end the run.
    const server = await serve(t, () => arrived());
    const dir = await writeTemplates(t, { 'a.yaml': httpTemplate('hang') });
    const controller = new AbortController();
    const events: EngineEvent[] = [];
    const iteration = (async () => {
      for await (const event of engineFor(dir, { timeoutMs: 60_000 }).run(jobOf([{ kind: 'url', value: `http://127.0.0.1:${server.port}/` }], {}, controller.signal))) events.push(event);
    })();
    await firstRequest;
    const before = events.length;
    controller.abort();
    await iteration;
    assert.equal(events.length, before, 'no event after the abort');
    assert.equal(findingsOf(events).length, 0);
  });

  it('matches id globs in linear time, case-insensitively; the schema bounds the stars', { timeout: 20_000 }, async (t) => {
    const server = await serve(t, (_req, res) => res.writeHead(200).end('vulnerable-marker'));
    const id = 'a'.repeat(40);
    const dir = await writeTemplates(t, { 'long.yaml': httpTemplate(id) });
    const target = [{ kind: 'url' as const, value: `http://127.0.0.1:${server.port}/` }];
    const ids = async (options: Record<string, unknown>) => findingsOf(await collect(engineFor(dir).run(jobOf(target, options)))).map((f) => f.ruleId);
    // A backtracking `.*` regex takes minutes on this (many stars, no match at the end).
    assert.deepEqual(await ids({ exclude_template_ids: [`${'*a'.repeat(12)}!`] }), [`${id}:marker`]);
    assert.deepEqual(await ids({ template_ids: ['A*A*a', '*b*'] }), [`${id}:marker`]);
    assert.deepEqual(await ids({ template_ids: ['a*b'] }), []);
    const schema = engineFor(dir).optionsSchema!;
    assert.equal(Value.Check(schema, { template_ids: ['cves-*-*'], exclude_template_ids: ['*'.repeat(8)] }), true);
    assert.equal(Value.Check(schema, { template_ids: ['*'.repeat(9)] }), false);
    assert.equal(Value.Check(schema, { exclude_template_ids: [`${'*a'.repeat(9)}`] }), false);
  });

  it('runs a fixed-port tcp entry once, on the service discovery found at that port, and reports it there', async (t) => {
    const ssh = await startTcpServer(t, { banner: () => 'SSH-2.0-OpenSSH_9.6\r\n' });
    const ajp = await startTcpServer(t, { banner: () => 'AJP-MARKER\r\n' });
    const tcpTemplate = [
      'id: fixed-port', 'info:', '  name: fixed', '  severity: high', 'tcp:', '  - host:', '      - "{{Hostname}}"', `      - "{{Host}}:${ajp.port}"`, '    inputs:', '      - data: "\\n"',
      '    matchers:', '      - type: word', '        words:', '          - "AJP-MARKER"', '',
    ].join('\n');
    const dir = await writeTemplates(t, { 'tcp.yaml': tcpTemplate });
    const serviceAt = (port: number): DiscoveryEvent => ({ type: 'service', service: { host: '127.0.0.1', address: '127.0.0.1', port, scheme: null, tls: false } });
    const run = async (discovered: DiscoveryEvent[]) => {
      const discover = async function* () {
        yield* discovered;
      };
      return findingsOf(await collect(engineFor(dir, { discover }).run(jobOf([{ kind: 'ip', value: '127.0.0.1' }])))).map((f) => `${f.ruleId} ${f.port}`);
    };
    assert.deepEqual(await run([serviceAt(ssh.port)]), [], 'a port discovery did not find open is never connected to');
    assert.equal(ajp.connections, 0);
    assert.deepEqual(await run([serviceAt(ssh.port), serviceAt(ajp.port)]), [`fixed-port ${ajp.port}`]);
    assert.equal(ajp.connections, 1);
  });

  it('reports a URL target up when nothing was asked of it; down only when its exchanges failed', async (t) => {
    const server = await serve(t, (_req, res) => res.writeHead(200).end('vulnerable-marker'));
    const dir = await writeTemplates(t, { 'a.yaml': httpTemplate('a') });
    const states = async (port: number) =>
      (await collect(engineFor(dir).run(jobOf([{ kind: 'url', value: `http://127.0.0.1:${port}/` }], { exclude_tags: ['test'] })))).flatMap((e) => (e.type === 'host' ? [e.state] : []));
    assert.deepEqual(await states(server.port), ['up'], 'no template selected: the live host is not down');
    assert.deepEqual(await states(await closedPort()), ['up'], 'not even a closed port is down when nothing was sent');
    assert.deepEqual(server.paths, []);
  });

  it('stops at an abort while a URL target is still being resolved', { timeout: 20_000 }, async (t) => {
    const dir = await writeTemplates(t, { 'a.yaml': httpTemplate('a') });
    let looking!: () => void;
    const lookupStarted = new Promise<void>((resolve) => (looking = resolve));
    let answer!: (addresses: string[]) => void;
    // A name server that answers only once the run is over, the look-up bound far beyond the test.
    const egress = createEgress({
      guard: createAddressGuard(['127.0.0.0/8']),
      dnsTimeoutMs: 600_000,
      lookup: () => (looking(), new Promise<string[]>((resolve) => (answer = resolve))),
    });
    t.after(() => answer(['127.0.0.1']));
    const controller = new AbortController();
    const job = { ...jobOf([{ kind: 'url', value: 'http://silent.test/' }, { kind: 'url', value: 'http://silent2.test/' }], {}, controller.signal), egress };
    const events: EngineEvent[] = [];
    const iteration = (async () => {
      for await (const event of engineFor(dir).run(job)) events.push(event);
    })();
    await lookupStarted;
    controller.abort();
    await iteration;
    assert.deepEqual(findingsOf(events), []);
    assert.ok(!events.some((e) => e.type === 'host'), 'no host state after the abort');
  });
});
