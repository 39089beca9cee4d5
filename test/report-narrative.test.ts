/**
 * The attack narrative: the deterministic builder on a realistic run, and the LLM writer against a
 * real local HTTP server that speaks the Chat Completions protocol, serving the canned bodies in
 * `test/fixtures/llm/` (see its README). No network beyond 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildNarrative, type NarrativeInput } from '../src/reports/narrative.js';
import { writeNarrative, type LlmOptions } from '../src/reports/narrative-llm.js';
import type { Narrative, ReportFinding, ReportService } from '../src/reports/report.js';
import { makeFinding } from './helpers/report-fixture.js';
import { listenOnLoopback } from './helpers/servers.js';

const WEB = { hostname: 'www.example.test', hostIp: '192.0.2.10' };
const CACHE = { hostname: 'cache.example.test', hostIp: '192.0.2.20' };
const MAIL = { hostname: 'mail.example.test', hostIp: '192.0.2.30' };
/** makeFinding derives CVEs and CWEs from the id; these findings state their own. */
const PLAIN = { cve: [], cwe: null, kev: false, epss: null };
const TLS_FIX = 'Disable TLS 1.0 and TLS 1.1; accept TLS 1.2 and later only.';
const PORT_FIX = 'Close the port if the service is not needed.';
const API_KEY = 'sk-test-narrative-0123456789';

function openPort(id: number, host: typeof WEB, port: number, service: string): ReportFinding {
  return makeFinding(id, { ...host, ...PLAIN, port, service, name: 'Open port', threat: 'Informational', cvssBase: null, cvssVector: null, ruleId: 'rampart:open-port', solution: PORT_FIX });
}

/** Apache with a KEV CVE, an unauthenticated Redis, TLS 1.0 on two hosts, a missing header, open ports and a false positive. */
function realisticFindings(): ReportFinding[] {
  return [
    makeFinding(1, {
      ...WEB, ...PLAIN, port: 80, service: 'http', name: 'Apache HTTP Server 2.4.49 path traversal', threat: 'Critical', cvssBase: 7.5,
      cve: ['CVE-2021-41773'], cwe: 'CWE-22', kev: true, epss: 0.94, ruleId: 'rampart:known-vulnerability',
      solution: 'Upgrade Apache HTTP Server to 2.4.51 or later.',
    }),
    makeFinding(9, {
      ...WEB, ...PLAIN, port: 8009, service: 'ajp13', name: 'Apache Tomcat AJP file read (Ghostcat)', threat: 'Critical', cvssBase: 9.8,
      cve: ['CVE-2020-1938'], status: 'False Positive', solution: 'Upgrade Apache Tomcat.',
    }),
    makeFinding(2, {
      ...CACHE, ...PLAIN, port: 6379, service: 'redis', name: 'Redis accessible without authentication', threat: 'High', cvssBase: 7.5,
      cwe: 'CWE-306', ruleId: 'rampart:unauth-redis', evidence: `redis_version:7.2.4 ${'x'.repeat(1000)}`,
      solution: 'Require authentication on Redis (requirepass or ACL users) and bind it to trusted interfaces.',
    }),
    makeFinding(3, { ...WEB, ...PLAIN, port: 443, service: 'https', name: 'Deprecated protocol TLS 1.0 accepted', threat: 'Medium', cvssBase: 5.3, ruleId: 'rampart:tls-1.0', solution: TLS_FIX }),
    makeFinding(8, { ...MAIL, ...PLAIN, port: 993, service: 'imaps', name: 'Deprecated protocol TLS 1.0 accepted', threat: 'Medium', cvssBase: 5.3, ruleId: 'rampart:tls-1.0', solution: TLS_FIX }),
    makeFinding(7, {
      ...WEB, ...PLAIN, port: 443, service: 'https', name: 'Strict-Transport-Security header missing', threat: 'Low', cvssBase: 3.1,
      cwe: 'CWE-319', ruleId: 'rampart:http-missing-hsts', solution: 'Send a Strict-Transport-Security header on every HTTPS response.',
    }),
    openPort(4, WEB, 22, 'ssh'),
    openPort(5, CACHE, 22, 'ssh'),
    openPort(6, MAIL, 25, 'smtp'),
  ];
}

function servicesOf(findings: ReportFinding[]): ReportService[] {
  const services = new Map<string, ReportService>();
  for (const f of findings) {
    const key = `${f.hostIp}:${f.port}`;
    const s = services.get(key) ?? { hostname: f.hostname, hostIp: f.hostIp, port: f.port, protocol: f.protocol, service: f.service, findings: 0, worstThreat: f.threat };
    s.findings++;
    services.set(key, s);
  }
  return [...services.values()];
}

function realisticInput(): NarrativeInput {
  const findings = realisticFindings();
  return { findings, services: servicesOf(findings) };
}

const INPUT_IDS = new Set([1, 2, 3, 4, 5, 6, 7, 8]);
const claimsOf = (n: Narrative) => [...n.summary, ...n.entryPoints, ...n.chains, ...n.fixes];

function assertCitationsValid(n: Narrative, ids: Set<number>): void {
  for (const claim of claimsOf(n)) {
    assert.ok(claim.text.length > 0);
    assert.ok(claim.findingIds.length > 0, `uncited claim: ${claim.text}`);
    for (const id of claim.findingIds) assert.ok(ids.has(id), `claim cites #${id}: ${claim.text}`);
  }
}

describe('buildNarrative', () => {
  test('a realistic run: entry points, chains, fixes by score, summary, every citation an input id', () => {
    const n = buildNarrative(realisticInput());
    assert.equal(n.producedBy, 'deterministic');
    assert.equal(n.model, null);
    assert.equal(n.fallbackReason, null);
    assertCitationsValid(n, INPUT_IDS);

    // Worst threat first, then CVSS: Apache, Redis, then the TLS 1.0 services. SSH and SMTP have only open ports.
    assert.deepEqual(n.entryPoints.map((c) => c.findingIds[0]), [1, 2, 3, 8]);
    assert.match(n.entryPoints[0]!.text, /www\.example\.test:80\b/);
    assert.match(n.entryPoints[0]!.text, /CVE-2021-41773/);
    assert.match(n.entryPoints[1]!.text, /redis service on cache\.example\.test:6379 .*without authentication/);
    assert.deepEqual(n.entryPoints[2]!.findingIds, [3, 7], 'an entry point cites every finding on it');
    assert.ok(!n.entryPoints.some((c) => /:22\b|:25\b/.test(c.text)));

    const apache = n.chains.find((c) => c.text.includes('CVE-2021-41773'));
    assert.ok(apache, 'a chain names the CVE');
    assert.match(apache.text, /known to be exploited in the wild/);
    assert.match(apache.text, /94%/);
    assert.match(apache.text, /read files/);
    assert.deepEqual(apache.findingIds, [1]);
    const redis = n.chains.find((c) => c.findingIds.includes(2));
    assert.match(redis?.text ?? '', /cache\.example\.test:6379 -> Redis accessible without authentication -> .*without credentials/);
    assert.ok(n.chains.some((c) => c.findingIds.includes(3) && /intercept/.test(c.text)), 'TLS 1.0 chains to interception');
    assert.ok(!n.chains.some((c) => /known to be exploited/.test(c.text) && !c.findingIds.includes(1)));

    // Scores: Apache 10 x 2 (KEV) = 20, Redis 5, TLS 1.0 2 + 2 = 4, HSTS 1; open ports (0) are skipped.
    assert.deepEqual(n.fixes.map((c) => c.findingIds), [[1], [2], [3, 8], [7]]);
    assert.match(n.fixes[0]!.text, /^Upgrade Apache HTTP Server to 2\.4\.51 or later\. This closes 1 finding on 1 host; it is known to be exploited in the wild\.$/);
    assert.match(n.fixes[2]!.text, /closes 2 findings on 2 hosts/);

    assert.match(n.summary[0]!.text, /^4 entry points on 3 hosts; the most serious: the http service on www\.example\.test:80/);
    assert.match(n.summary[1]!.text, /CVE-2021-41773.*known to be exploited/);
    assert.ok(n.summary.length <= 2);
  });

  test('false positives are left out of the story', () => {
    const n = buildNarrative(realisticInput());
    assert.ok(!claimsOf(n).some((c) => c.findingIds.includes(9) || /8009|CVE-2020-1938/.test(c.text)));
  });

  test('the same findings in any order give the same narrative', () => {
    const input = realisticInput();
    assert.deepEqual(buildNarrative({ ...input, findings: [...input.findings].reverse() }), buildNarrative(input));
  });

  test('no findings, or only false positives: every list is empty', () => {
    const empty = { producedBy: 'deterministic', model: null, fallbackReason: null, summary: [], entryPoints: [], chains: [], fixes: [] };
    assert.deepEqual(buildNarrative({ findings: [], services: [] }), empty);
    const onlyFalse = realisticFindings().map((f) => ({ ...f, status: 'False Positive' as const }));
    assert.deepEqual(buildNarrative({ findings: onlyFalse, services: servicesOf(onlyFalse) }), empty);
  });

  test('only open ports: no entry point nor chain, a summary, and the informational fix since nothing else exists', () => {
    const findings = [openPort(4, WEB, 22, 'ssh'), openPort(5, CACHE, 22, 'ssh')];
    const n = buildNarrative({ findings, services: servicesOf(findings) });
    assert.deepEqual(n.entryPoints, []);
    assert.deepEqual(n.chains, []);
    assert.equal(n.summary.length, 1);
    assert.deepEqual(n.summary[0]!.findingIds, [4, 5]);
    assert.deepEqual(n.fixes.map((c) => c.findingIds), [[4, 5]]);
    assert.match(n.fixes[0]!.text, /closes 2 findings on 2 hosts/);
  });

  test('a Low anonymous-access finding still makes an entry point and a chain', () => {
    const ftp = makeFinding(11, { ...MAIL, ...PLAIN, port: 21, service: 'ftp', name: 'FTP server allows anonymous login', threat: 'Low', cvssBase: null, cvssVector: null, ruleId: 'rampart:ftp-anonymous' });
    const n = buildNarrative({ findings: [ftp], services: servicesOf([ftp]) });
    assert.equal(n.entryPoints.length, 1);
    assert.match(n.entryPoints[0]!.text, /ftp service on mail\.example\.test:21 is reachable and accepts anonymous logins/);
    assert.deepEqual(n.chains.map((c) => c.findingIds), [[11]]);
  });

  test('a weakness with no known impact (no CWE, rule family, CVSS vector nor KEV) gets no chain', () => {
    const vague = makeFinding(12, { ...WEB, ...PLAIN, port: 8443, service: 'https', name: 'Odd banner', threat: 'Medium', cvssBase: 5.0, cvssVector: null, ruleId: 'vendor:odd-banner' });
    const n = buildNarrative({ findings: [vague], services: servicesOf([vague]) });
    assert.deepEqual(n.entryPoints.map((c) => c.findingIds), [[12]]);
    assert.deepEqual(n.chains, []);
    assert.match(n.summary[1]!.text, /^The first fix below closes the only finding above Informational\.$/);
  });

  test('500 findings: each section stays short and every citation is an input id', () => {
    const findings = Array.from({ length: 500 }, (_, i) => makeFinding(i + 1));
    const n = buildNarrative({ findings, services: servicesOf(findings) });
    assertCitationsValid(n, new Set(findings.map((f) => f.id)));
    for (const section of [n.entryPoints, n.chains, n.fixes]) assert.ok(section.length > 0 && section.length <= 10);
    assert.ok(n.summary.length >= 1 && n.summary.length <= 2);
  });
});

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const FIXTURES = (() => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  // From test/ under tsx, or dist/test/ once compiled: the JSON files stay in the source tree.
  return path.resolve(here, here.includes(`${path.sep}dist${path.sep}`) ? '../../test/fixtures/llm' : 'fixtures/llm');
})();
const fixture = (name: string): string => readFileSync(path.join(FIXTURES, name), 'utf8');

/** Answers with a canned body. */
const reply = (status: number, file: string) => (res: ServerResponse) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(fixture(file));
};

/** A Chat Completions server on 127.0.0.1 that records each request; `respond` may also never answer. */
async function startLlm(t: TestContext, respond: (res: ServerResponse) => void): Promise<{ base: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      respond(res);
    });
  });
  await listenOnLoopback(t, server);
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, received };
}

const options = (base: string, overrides: Partial<LlmOptions> = {}): LlmOptions => ({ url: base, model: 'gpt-4o-mini', apiKey: API_KEY, timeoutMs: 5000, ...overrides });

/** The deterministic narrative, with the reason the LLM's was refused. */
function assertFallback(n: Narrative, reason: RegExp): void {
  assert.equal(n.producedBy, 'deterministic');
  assert.equal(n.model, null);
  assert.match(n.fallbackReason ?? '', reason);
  assert.deepEqual({ ...n, fallbackReason: null }, buildNarrative(realisticInput()));
  assert.ok(!JSON.stringify(n).includes(API_KEY), 'the API key never shows');
}

describe('writeNarrative', () => {
  test('without an LLM: the deterministic narrative', async () => {
    assert.deepEqual(await writeNarrative(realisticInput(), undefined), buildNarrative(realisticInput()));
  });

  test('a valid reply is accepted, and the request is a Chat Completions call', async (t) => {
    const llm = await startLlm(t, reply(200, 'valid.json'));
    const n = await writeNarrative(realisticInput(), options(`${llm.base}/`));
    assert.equal(n.producedBy, 'llm');
    assert.equal(n.model, 'gpt-4o-mini-2024-07-18', 'the model the reply reports');
    assert.equal(n.fallbackReason, null);
    assert.deepEqual(n.summary.map((c) => c.findingIds), [[1, 2]]);
    assert.deepEqual(n.fixes.map((c) => c.findingIds), [[1], [2], [3, 8]]);
    assert.match(n.chains[0]!.text, /CVE-2021-41773/);
    assertCitationsValid(n, INPUT_IDS);

    assert.equal(llm.received.length, 1);
    const request = llm.received[0]!;
    assert.equal(request.method, 'POST');
    assert.equal(request.url, '/v1/chat/completions', 'the trailing slash of the base is stripped');
    assert.equal(request.headers.authorization, `Bearer ${API_KEY}`);
    assert.match(request.headers['content-type'] ?? '', /^application\/json/);
    const body = JSON.parse(request.body);
    assert.equal(body.model, 'gpt-4o-mini');
    assert.equal(body.temperature, 0.2);
    assert.deepEqual(body.response_format, { type: 'json_object' });
    assert.deepEqual(body.messages.map((m: { role: string }) => m.role), ['system', 'user']);
    const user: string = body.messages[1].content;
    for (const key of ['summary', 'entry_points', 'chains', 'fixes', 'finding_ids']) assert.ok(user.includes(key), `the prompt asks for ${key}`);
    const sent = JSON.parse(/^Findings, most severe first: (.*)$/m.exec(user)![1]!) as { id: number; evidence: string; kev: boolean; epss: number | null }[];
    assert.deepEqual(sent.map((f) => f.id), [1, 2, 3, 8, 7, 4, 5, 6], 'no false positive is sent');
    assert.deepEqual([sent[0]!.kev, sent[0]!.epss], [true, 0.94]);
    assert.ok(sent.every((f) => f.evidence.length <= 300));
  });

  test('a reply fenced in ```json is accepted', async (t) => {
    const llm = await startLlm(t, reply(200, 'fenced.json'));
    const n = await writeNarrative(realisticInput(), options(llm.base));
    assert.equal(n.producedBy, 'llm');
    assert.equal(n.entryPoints.length, 2);
  });

  test('no API key: no Authorization header', async (t) => {
    const llm = await startLlm(t, reply(200, 'valid.json'));
    const n = await writeNarrative(realisticInput(), options(llm.base, { apiKey: undefined }));
    assert.equal(n.producedBy, 'llm');
    assert.equal(llm.received[0]!.headers.authorization, undefined);
  });

  test('a reply citing a finding not in the run is refused', async (t) => {
    const llm = await startLlm(t, reply(200, 'hallucinated-id.json'));
    assertFallback(await writeNarrative(realisticInput(), options(llm.base)), /cited finding #999, which is not in this run/);
  });

  test('a reply with an uncited claim is refused', async (t) => {
    const llm = await startLlm(t, reply(200, 'uncited-claim.json'));
    assertFallback(await writeNarrative(realisticInput(), options(llm.base)), /claim in summary that cites no finding/);
  });

  test('HTTP 500 falls back', async (t) => {
    const llm = await startLlm(t, reply(500, 'server-error.json'));
    assertFallback(await writeNarrative(realisticInput(), options(llm.base)), /HTTP 500/);
  });

  test('a server that never answers falls back after the timeout', async (t) => {
    const llm = await startLlm(t, () => undefined);
    assertFallback(await writeNarrative(realisticInput(), options(llm.base, { timeoutMs: 200 })), /within the 200 ms timeout/);
    assert.equal(llm.received.length, 1);
  });

  test('content that is not JSON falls back', async (t) => {
    const llm = await startLlm(t, reply(200, 'invalid-content.json'));
    assertFallback(await writeNarrative(realisticInput(), options(llm.base)), /not valid JSON/);
  });

  test('a body over 1 MB is refused even without a Content-Length', async (t) => {
    const llm = await startLlm(t, (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = 'x'.repeat(64 * 1024);
      for (let i = 0; i < 20; i++) res.write(chunk);
      res.end();
    });
    assertFallback(await writeNarrative(realisticInput(), options(llm.base)), /larger than 1 MB/);
  });

  test('no findings: the LLM is not asked', async (t) => {
    const llm = await startLlm(t, reply(200, 'valid.json'));
    const n = await writeNarrative({ findings: [], services: [] }, options(llm.base));
    assert.equal(n.producedBy, 'deterministic');
    assert.deepEqual(claimsOf(n), []);
    assert.match(n.fallbackReason ?? '', /no findings/);
    assert.equal(llm.received.length, 0);
  });
});
