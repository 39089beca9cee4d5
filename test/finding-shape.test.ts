/**
 * One finding shape (issue 13): web locations (url, method, parameter) as part of a finding's
 * identity, in the API, its filters and search, the CSV export, the reports and the MCP tools;
 * and evidence capped and masked on the one path every finding is stored by. The stored path runs
 * through the real worker with a scripted engine, so nothing is uploaded or inserted by hand.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CSV_FIELDS, FIELD_ENTRIES } from '../src/findings/finding-fields.js';
import { fingerprintOf, identityUrl } from '../src/findings/finding-identity.js';
import { makeFinding } from './helpers/report-fixture.js';
import { EVIDENCE_MAX_BYTES, boundFinding, capEvidence, maskSecrets } from '../src/shared/evidence.js';
import { STORE_KIND } from './helpers/app.js';
import { completedRun, createScan, finding, HOST, rerun, startScripted, type Harness } from './helpers/scripted-engines.js';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

test('secrets a scanned service sent back are masked, their context kept', () => {
  const evidence = [
    'GET /account HTTP/1.1',
    'Authorization: Bearer abcdefghijklmnop.qrstuv',
    'Proxy-Authorization: Basic dXNlcjpodW50ZXIy',
    'Cookie: session=s3cr3tvalue; theme=dark',
    'HTTP/1.1 200 OK',
    'Set-Cookie: sid=0123456789abcdef; Path=/; Secure',
    `X-Debug: token ${JWT} in a header`,
    'body: user=alice&password=hunter2&remember=1',
    '{"username": "alice", "password": "hunter2", "api_key": "k-123456"}',
    'aws AKIAIOSFODNN7EXAMPLE here',
    '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7v\nabcdef\n-----END RSA PRIVATE KEY-----',
    'rampart rk_0123abcd_Zm9vYmFyYmF6 and whsec_c2VjcmV0c2VjcmV0',
    'agent ragt_QWdlbnRDcmVkZW50aWFs-_x9 in a log line',
  ].join('\n');
  const masked = maskSecrets(evidence);
  for (const secret of ['abcdefghijklmnop', 'dXNlcjpodW50ZXIy', 's3cr3tvalue', 'dark', '0123456789abcdef', JWT, 'hunter2', 'k-123456', 'AKIAIOSFODNN7EXAMPLE', 'MIIEpAIBAAKCAQEA7v', 'Zm9vYmFyYmF6', 'c2VjcmV0c2VjcmV0', 'QWdlbnRDcmVkZW50aWFs-_x9']) {
    assert.ok(!masked.includes(secret), `${secret} is masked:\n${masked}`);
  }
  // What a reader needs to understand the finding stays.
  assert.match(masked, /^Authorization: Bearer \[REDACTED\]$/m);
  assert.match(masked, /^Proxy-Authorization: Basic \[REDACTED\]$/m);
  assert.match(masked, /^Cookie: session=\[REDACTED\]; theme=\[REDACTED\]$/m);
  assert.match(masked, /^Set-Cookie: sid=\[REDACTED\]; Path=\/; Secure$/m, 'cookie flags stay: findings about them need them');
  assert.match(masked, /user=alice&password=\[REDACTED\]&remember=1/);
  assert.match(masked, /"username": "alice", "password": "\[REDACTED\]"/);
  assert.match(masked, /-----BEGIN RSA PRIVATE KEY-----\n\[REDACTED\]\n-----END RSA PRIVATE KEY-----/);
  assert.match(masked, /^GET \/account HTTP\/1\.1$/m);
});

test('evidence is capped at 16 KiB of UTF-8 on a character boundary, with the bytes cut counted', () => {
  assert.equal(capEvidence('short'), 'short');
  const ascii = 'a'.repeat(100_000);
  const capped = capEvidence(ascii);
  assert.ok(Buffer.byteLength(capped) <= EVIDENCE_MAX_BYTES);
  const cut = /\n\[… (\d+) bytes cut\]$/.exec(capped);
  assert.ok(cut, 'a visible marker ends it');
  assert.equal(capped.length - cut[0].length + Number(cut[1]), 100_000, 'kept plus cut is the whole');

  // Three-byte characters: the cut never splits one.
  const wide = '漢'.repeat(10_000);
  const cappedWide = capEvidence(wide);
  assert.ok(Buffer.byteLength(cappedWide) <= EVIDENCE_MAX_BYTES);
  assert.ok(!cappedWide.includes('\uFFFD'), 'no broken character');
  const kept = cappedWide.replace(/\n\[… \d+ bytes cut\]$/, '');
  assert.match(kept, /^漢+$/);
  assert.equal(Buffer.byteLength(kept) + Number(/(\d+) bytes cut/.exec(cappedWide)![1]), 30_000);

  assert.equal(capEvidence('nul\u0000byte'), 'nul\uFFFDbyte', 'the store cannot hold NUL');
});

test('every text field of a finding is bounded and masked before it is stored', () => {
  const bounded = boundFinding(
    finding('r', { name: 'N'.repeat(5000), url: `https://h.example/${'p'.repeat(10_000)}?token=abc`, parameter: 'q'.repeat(1000), description: JWT }),
  );
  assert.equal(Array.from(bounded.name).length, 500);
  assert.ok(bounded.url!.length <= 2048 && bounded.url!.endsWith('…'));
  assert.equal(bounded.parameter!.length, 256);
  assert.equal(bounded.description, '[REDACTED]');
  assert.equal(boundFinding(finding('r', { url: 'https://h.example/a?token=abcdef&x=1' })).url, 'https://h.example/a?token=[REDACTED]&x=1');
  // Identifiers a tool chose are bounded, never masked (the fingerprint is the reported one's anyway).
  assert.equal(boundFinding(finding('rampart:default-password:ftp')).ruleId, 'rampart:default-password:ftp');
});

test('identity: a network finding keeps its fingerprint; a web location is normalised and part of it', () => {
  const network = finding('rampart:tls-old', { hostname: 'Mail.Example.com', port: 993 });
  // The formula every store written before web locations used (findings.service.ts until issue 13).
  assert.equal(fingerprintOf(7, network), sha256(['7', 'mail.example.com', '993', 'tcp', 'rampart:tls-old'].join('|')));
  const cve = finding('rampart:cve', { cve: ['CVE-2024-2', 'CVE-2023-1'], port: null, protocol: null });
  assert.equal(fingerprintOf(7, cve), sha256(['7', HOST, '', '', 'CVE-2023-1'].join('|')));
  assert.equal(fingerprintOf(7, { ...network, url: null, method: null, parameter: null }), fingerprintOf(7, network));

  assert.equal(identityUrl('HTTPS://Shop.Example.COM:443/a/./b/../Cart?id=7&x=1#top'), 'https://shop.example.com/a/Cart');
  assert.equal(identityUrl('http://shop.example.com:8080/'), 'http://shop.example.com:8080/');
  assert.equal(identityUrl('not a url?x=1'), 'not a url');
  const xss = (over: Partial<Parameters<typeof finding>[1]>) => fingerprintOf(7, finding('zap:40012', { url: 'https://h.example/search?q=1', method: 'GET', parameter: 'q', ...over }));
  assert.equal(xss({ url: 'https://H.example:443/search?q=<script>#x' }), xss({}), 'query values, port 443, host case and fragment do not matter');
  assert.equal(xss({ method: 'get' }), xss({}));
  assert.notEqual(xss({ parameter: 'lang' }), xss({}), 'another parameter is another finding');
  assert.notEqual(xss({ method: 'POST' }), xss({}));
  assert.notEqual(xss({ url: 'https://h.example/Search' }), xss({}), 'paths are case-sensitive');
  assert.notEqual(xss({}), fingerprintOf(7, finding('zap:40012')), 'a web finding is not its network twin');
});

test('the finding fields: resource, CSV and report agree', () => {
  assert.deepEqual(CSV_FIELDS.slice(-4), ['url', 'method', 'parameter', 'qod'], 'new CSV columns at the end (issue 13, then 14)');
  const report = makeFinding(1) as unknown as Record<string, unknown>;
  for (const [name, field] of FIELD_ENTRIES) {
    if (field.key) assert.ok(field.key in report, `a report finding carries ${name} as ${field.key}`);
  }
});

interface Listed {
  id: number;
  name: string;
  rule_id: string;
  url: string | null;
  method: string | null;
  parameter: string | null;
  evidence: string;
  evidence_by_engine: Record<string, string>;
  status: string;
  lifecycle: string;
}

async function list(h: Harness, query = '', path = '/api/vulnerabilities'): Promise<{ data: Listed[]; total: number }> {
  const res = await h.ctx.app.inject({ method: 'GET', url: `${path}?per_page=100${query}`, headers: h.auth });
  assert.equal(res.statusCode, 200, res.body);
  return { data: res.json().data, total: res.json().meta.total };
}

test(`web findings through the worker: identity, filters, search, exports, reports, MCP (${STORE_KIND})`, async (t) => {
  const h = await startScripted(t);
  const xss = (parameter: string, url = 'https://shop.example.com/search?q=1&lang=en') =>
    finding('zap:40012', { name: 'Cross Site Scripting (Reflected)', service: 'https', url, method: 'GET', parameter, evidence: `<script>alert(1)</script> in ${parameter}` });
  const tls = finding('rampart:tls-weak', { name: 'Weak TLS protocol' });
  const huge = finding('rampart:leaky', {
    name: 'Verbose error page',
    evidence: `HTTP/1.1 500\nSet-Cookie: sid=supersecretsession; HttpOnly\nX-Token: ${JWT}\n${'x'.repeat(200_000)}`,
  });
  h.scripts.rampart.next = { findings: [xss('q'), xss('lang'), tls, huge] };
  const uuid = await createScan(h, 'Rampart');
  await completedRun(h, uuid, 0);

  const first = await list(h);
  await t.test('two parameters of one URL are two findings; network findings have no web location', () => {
    assert.equal(first.total, 4);
    const web = first.data.filter((f) => f.rule_id === 'zap:40012').map((f) => [f.url, f.method, f.parameter]).sort();
    assert.deepEqual(web, [
      ['https://shop.example.com/search?q=1&lang=en', 'GET', 'lang'],
      ['https://shop.example.com/search?q=1&lang=en', 'GET', 'q'],
    ]);
    const network = first.data.find((f) => f.rule_id === 'rampart:tls-weak')!;
    assert.deepEqual([network.url, network.method, network.parameter], [null, null, null]);
  });

  await t.test('a network finding is stored under the fingerprint stores have always used', async () => {
    const row = await h.ctx.store.db.selectFrom('findings').select(['user_id', 'fingerprint']).where('rule_id', '=', 'rampart:tls-weak').executeTakeFirstOrThrow();
    assert.equal(row.fingerprint, sha256([row.user_id, HOST, 443, 'tcp', 'rampart:tls-weak'].join('|')));
  });

  await t.test('huge evidence is stored capped, with its session cookie and JWT masked', () => {
    const leaky = first.data.find((f) => f.rule_id === 'rampart:leaky')!;
    for (const text of [leaky.evidence, leaky.evidence_by_engine.rampart!]) {
      assert.ok(Buffer.byteLength(text) <= EVIDENCE_MAX_BYTES, 'capped');
      assert.match(text, /\n\[… \d+ bytes cut\]$/);
      assert.ok(!text.includes('supersecretsession') && !text.includes(JWT), 'masked');
      assert.match(text, /^Set-Cookie: sid=\[REDACTED\]; HttpOnly$/m);
    }
  });

  const q = first.data.find((f) => f.parameter === 'q')!;
  const accepted = await h.ctx.app.inject({ method: 'POST', url: `/api/vulnerabilities/${q.id}/accept`, headers: h.auth, payload: {} });
  assert.equal(accepted.statusCode, 200);
  // Run 1: the same location as another tool writes it (port, host case, other query values).
  h.scripts.rampart.next = { findings: [xss('q', 'https://SHOP.example.com:443/search?q=2'), tls] };
  await rerun(h, uuid, 1);

  await t.test('the same location seen again is the same finding, its triage kept and its URL the latest', async () => {
    const again = (await list(h)).data.filter((f) => f.parameter === 'q');
    assert.equal(again.length, 1);
    assert.equal(again[0]!.id, q.id);
    assert.equal(again[0]!.status, 'Accepted');
    assert.equal(again[0]!.lifecycle, 'still_open');
    assert.equal(again[0]!.url, 'https://SHOP.example.com:443/search?q=2');
    assert.equal((await list(h)).total, 4, 'no duplicates');
  });

  await t.test('the url filter is a case-insensitive substring of web findings URLs; search covers URLs', async () => {
    assert.equal((await list(h, '&url=Shop.EXAMPLE.com')).total, 2);
    assert.equal((await list(h, '&url=%2Fadmin')).total, 0);
    assert.equal((await list(h, '&url=lang%3Den')).total, 1, 'the stored URL, as reported, is searched');
    assert.deepEqual((await list(h, '&url=search&severity=Medium&status=Accepted')).data.map((f) => f.id), [q.id]);
    const searched = await list(h, '&search=%2Fsearch');
    assert.deepEqual(searched.data.map((f) => f.rule_id).sort(), ['zap:40012', 'zap:40012'], 'search finds findings by URL');
    const targets = (await h.ctx.app.inject({ method: 'GET', url: '/api/targets', headers: h.auth })).json().data as { id: number }[];
    assert.equal((await list(h, '&url=search', `/api/targets/${targets[0]!.id}/vulnerabilities`)).total, 2, "the target's list filters by url too");
    const bad = await h.ctx.app.inject({ method: 'GET', url: `/api/vulnerabilities?url=${'a'.repeat(256)}`, headers: h.auth });
    assert.equal(bad.statusCode, 422);
    assert.ok(bad.json().errors.url);
  });

  await t.test('the CSV export ends with url, method, parameter and applies the url filter', async () => {
    const res = await h.ctx.app.inject({ method: 'GET', url: '/api/vulnerabilities/export?url=search', headers: h.auth });
    assert.equal(res.statusCode, 200);
    const lines = res.body.trimEnd().split('\r\n');
    assert.match(lines[0]!, /,references,url,method,parameter,qod$/);
    assert.equal(lines.length, 3, 'header and the two web findings');
    assert.ok(lines.some((line) => line.endsWith(',https://SHOP.example.com:443/search?q=2,GET,q,95')), res.body);
  });

  await t.test('reports show the web location: csv, xml, html, txt (and the pdf renders)', async () => {
    const report = async (format: string) => {
      const res = await h.ctx.app.inject({ method: 'GET', url: `/api/scans/${format}/${uuid}?run_index=0`, headers: h.auth });
      assert.equal(res.statusCode, 200, `${format}: ${res.body.slice(0, 200)}`);
      return res.body;
    };
    const csv = await report('csv');
    assert.match(csv.split('\r\n')[0]!, /,url,method,parameter,qod$/);
    assert.match(csv, /,https:\/\/SHOP\.example\.com:443\/search\?q=2,GET,q,95\r\n/);
    assert.match(csv, /,https:\/\/shop\.example\.com\/search\?q=1&lang=en,GET,lang,95\r\n/);
    const xml = await report('xml');
    assert.match(xml, /<web url="https:\/\/shop\.example\.com\/search\?q=1&amp;lang=en" method="GET" parameter="lang"\/>/);
    assert.equal(xml.match(/<web /g)?.length, 2, 'network findings have no web element');
    const html = await report('html');
    assert.match(html, /<dt>URL<\/dt><dd><code>GET https:\/\/shop\.example\.com\/search\?q=1&amp;lang=en \(parameter lang\)<\/code><\/dd>/);
    const txt = await report('txt');
    assert.match(txt, /URL:\s+GET https:\/\/shop\.example\.com\/search\?q=1&lang=en \(parameter lang\)/);
    // The PDF's text needs pdftotext to read back (report-pdf.test.ts); here: it renders web findings.
    assert.match(await report('pdf'), /^%PDF-/);
  });

  await t.test('the MCP list tool returns the web location and takes the url filter', async () => {
    const address = await h.ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${address}/mcp`), { requestInit: { headers: h.auth } });
    const client = new Client({ name: 'rampart-test', version: '1.0.0' });
    await client.connect(transport);
    t.after(() => client.close());
    const result = (await client.callTool({ name: 'vulnerabilities_list', arguments: { url: 'search', per_page: 100 } })) as CallToolResult;
    assert.ok(!result.isError, JSON.stringify(result.content));
    const data = (result.structuredContent as { data: Listed[] }).data;
    assert.deepEqual(data.map((f) => f.parameter).sort(), ['lang', 'q']);
    assert.ok(data.every((f) => f.method === 'GET' && f.url?.includes('/search')));
  });
});
