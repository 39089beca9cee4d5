/**
 * The importers on the real sample files (../shared/third_party/scan-samples) and on hand-made
 * hostile or edge-case input. Expected figures were counted from each file independently (see
 * test/helpers/scan-samples.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { EngineEvent, Finding } from '../src/engines/engine.js';
import { importFile } from '../src/engines/importers/import-file.js';
import { importNuclei } from '../src/engines/importers/nuclei.importer.js';
import { importNmap } from '../src/engines/importers/nmap.importer.js';
import { importOpenvasXml } from '../src/engines/importers/openvas.importer.js';
import { detectFormat } from '../src/engines/importers/detect-format.js';
import { AppError } from '../src/shared/errors.js';
import { SAMPLES, SAMPLES_DIR, SAMPLES_SKIP } from './helpers/scan-samples.js';

async function collect(events: AsyncIterable<EngineEvent>): Promise<{ hosts: Set<string>; findings: Finding[]; logs: string[] }> {
  const out = { hosts: new Set<string>(), findings: [] as Finding[], logs: [] as string[] };
  for await (const e of events) {
    if (e.type === 'host') out.hosts.add(e.address);
    else if (e.type === 'finding') out.findings.push(e.finding);
    else if (e.type === 'log') out.logs.push(e.message);
  }
  return out;
}

/** A stream of the text in small chunks, so every reader crosses chunk boundaries. */
function chunked(text: string, size = 7): Readable {
  const bytes = Buffer.from(text);
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
  return Readable.from(parts);
}

async function importText(text: string) {
  const result = await importFile(chunked(text));
  return { ...result, ...(await collect(result.events)) };
}

async function rejects422(run: () => Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(run, (error: unknown) => {
    assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
    assert.equal(error.code, 'validation_failed');
    assert.match(error.message, pattern);
    return true;
  });
}

test('every sample file parses to the hosts, findings, threats and rule ids counted from it', { skip: SAMPLES_SKIP }, async () => {
  for (const sample of SAMPLES) {
    const open = () => createReadStream(path.join(SAMPLES_DIR, sample.file), { highWaterMark: 4096 });
    // Empty files are refused by the upload (nothing to detect); the parser itself reads zero results.
    const result = sample.findings === 0 && sample.file.startsWith('nuclei/') ? await importNuclei(open()) : await importFile(open());
    const { hosts, findings } = await collect(result.events);
    assert.equal(`${result.engine.name} ${result.engine.version}`, sample.engine, sample.file);
    assert.equal(hosts.size, sample.hosts, `${sample.file}: hosts`);
    assert.equal(findings.length, sample.findings, `${sample.file}: findings`);
    const threats: Record<string, number> = {};
    for (const f of findings) threats[f.threat] = (threats[f.threat] ?? 0) + 1;
    assert.deepEqual(threats, sample.threats, `${sample.file}: threats`);
    if (sample.ruleId) assert.ok(findings.some((f) => f.ruleId === sample.ruleId), `${sample.file}: rule ${sample.ruleId}`);
    for (const f of findings) {
      assert.ok(f.hostname && f.hostIp && f.ruleId && f.name, `${sample.file}: location and identity set`);
      assert.ok(f.port === null || (f.port >= 1 && f.port <= 65535));
    }
  }
});

test('OpenVAS: CVEs, references, solution, vector and unknown fields of a gvmd 22.6 result', { skip: SAMPLES_SKIP }, async () => {
  const result = await importFile(createReadStream(path.join(SAMPLES_DIR, 'openvas/report_detail_v2.xml')));
  const [f] = (await collect(result.events)).findings;
  assert.ok(f);
  // grep -c '<ref type="cve"' report_detail_v2.xml -> 93
  assert.equal(f.cve.length, 93);
  assert.equal(f.hostIp, '10.99.99.99');
  assert.equal(f.hostname, 'server99');
  assert.equal(f.port, 42);
  assert.equal(f.protocol, 'tcp');
  assert.equal(f.cvssBase, 9.8);
  assert.equal(f.cvssVector, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H');
  assert.match(f.solution, /^The vendor has released updates/);
  assert.deepEqual(f.references, ['https://support.microsoft.com/en-us/help/5062557']);
  assert.match(f.evidence, /Vulnerable range/);
  assert.match(f.evidence, /other fields:[\s\S]*dfn-cert:DFN-CERT-2025-2181/);
  assert.match(f.evidence, /compliance=undefined/);
});

test('OpenVAS: general/tcp has no port; gvmd 9 keeps the solution in the tags', { skip: SAMPLES_SKIP }, async () => {
  const result = await importFile(createReadStream(path.join(SAMPLES_DIR, 'openvas/one_vuln.xml')));
  const [f] = (await collect(result.events)).findings;
  assert.ok(f);
  assert.equal(f.port, null);
  assert.equal(f.protocol, null);
  assert.ok(f.solution.length > 0);
  // grep -o '<ref type="cve"\|<ref id="CVE' one_vuln.xml: 12 CVE refs.
  assert.equal(f.cve.length, 12);
});

test('OpenVAS: a false positive is skipped with a note, nested detection results are not results, Log is Informational', async () => {
  const result = (n: number, severity: string, port: string, inner = '') =>
    `<result id="r${n}"><host>10.0.0.${n}</host><port>${port}</port><nvt oid="1.2.${n}"><name>Check ${n}</name><tags>summary=S|solution=Fix</tags></nvt>` +
    `<severity>${severity}</severity><threat>High</threat>${inner}</result>`;
  const nested = `<detection><result id="d"><details><detail><name>product</name><value>cpe:/a:x</value></detail></details></result></detection>`;
  const xml =
    `<get_reports_response status="200"><report id="a"><report id="a"><gmp><version>24.2</version></gmp><results>` +
    result(1, '-1', '80/tcp') + result(2, '0.0', 'general/tcp', nested) + result(3, '9.0', '443/tcp') + `</results></report></report></get_reports_response>`;
  const out = await importText(xml);
  assert.equal(out.engine.version, 'gmp 24.2');
  assert.deepEqual(out.findings.map((f) => [f.ruleId, f.threat]), [['1.2.2', 'Informational'], ['1.2.3', 'Critical']]);
  assert.match(out.findings[0]!.evidence, /detection=.*cpe:\/a:x/);
  assert.deepEqual(out.logs, ['1 result marked false positive (severity -1) in the file was not imported.']);
});

test('ZAP: url, method and parameter are the location; rule id, CWE, solution and references mapped', { skip: SAMPLES_SKIP }, async () => {
  const result = await importFile(createReadStream(path.join(SAMPLES_DIR, 'zap/0_zap_sample.xml')));
  const { findings } = await collect(result.events);
  const cookie = findings.filter((f) => f.ruleId === 'zap:10011');
  // 0_zap_sample.xml: plugin 10011 has 3 instances (opvc, dmid, sitevisitscookie).
  assert.deepEqual(cookie.map((f) => f.parameter), ['opvc', 'dmid', 'sitevisitscookie']);
  assert.equal(cookie[0]!.url, 'https://mainsite.com/dashboard');
  assert.equal(cookie[0]!.method, 'GET');
  assert.equal(cookie[0]!.port, 443);
  assert.equal(cookie[0]!.cwe, 'CWE-614');
  assert.match(cookie[0]!.solution, /secure flag/);
  assert.match(cookie[0]!.evidence, /Set-Cookie: opvc/);
  assert.match(cookie[0]!.evidence, /wascid=13/);
});

test('ZAP traditional JSON report: alerts per instance, version, false positives skipped', async () => {
  const report = {
    '@programName': 'ZAP',
    '@version': '2.16.1',
    '@generated': 'Thu, 1 May 2025 10:00:00',
    site: [
      {
        '@name': 'https://shop.example',
        '@host': 'shop.example',
        '@port': '443',
        '@ssl': 'true',
        alerts: [
          { pluginid: '40012', alertRef: '40012', alert: 'XSS', name: 'Cross Site Scripting (Reflected)', riskcode: '3', confidence: '2', riskdesc: 'High (Medium)', desc: '<p>XSS</p>', instances: [{ uri: 'https://shop.example/search?q=1', method: 'GET', param: 'q', attack: '<script>', evidence: '<script>' }, { uri: 'https://shop.example/login', method: 'post', param: 'user', attack: '', evidence: '' }], count: '2', solution: '<p>Encode</p>', reference: '<p>https://owasp.org/xss</p>', cweid: '79', wascid: '8', sourceid: '1', tags: { 'OWASP_2021_A03': 'https://owasp.org/Top10/A03_2021-Injection/' } },
          { pluginid: '10020', alertRef: '10020-1', name: 'Missing Anti-clickjacking Header', riskcode: '2', confidence: '0', instances: [{ uri: 'https://shop.example/', method: 'GET', param: 'x-frame-options' }] },
        ],
      },
    ],
  };
  const out = await importText(JSON.stringify(report, null, 1));
  assert.equal(out.format, 'zap-json');
  assert.equal(`${out.engine.name} ${out.engine.version}`, 'zap 2.16.1');
  assert.deepEqual(out.findings.map((f) => [f.ruleId, f.threat, f.method, f.parameter, f.url]), [
    ['zap:40012', 'High', 'GET', 'q', 'https://shop.example/search?q=1'],
    ['zap:40012', 'High', 'POST', 'user', 'https://shop.example/login'],
  ]);
  assert.equal(out.findings[0]!.cwe, 'CWE-79');
  assert.deepEqual(out.findings[0]!.references, ['https://owasp.org/xss']);
  assert.match(out.findings[0]!.evidence, /tags=\{"OWASP_2021_A03"/);
  assert.deepEqual(out.logs, ['1 alert marked false positive (confidence 0) in the file was not imported.']);
});

test('nuclei: rule id template-id[:matcher], CVE, CWE, CVSS and location from matched-at', { skip: SAMPLES_SKIP }, async () => {
  const newer = await collect((await importFile(createReadStream(path.join(SAMPLES_DIR, 'nuclei/many_findings_new.json')))).events);
  const cve = newer.findings.find((f) => f.cve.length > 0);
  // jq: .info.classification of the first line: cve-2018-15473, cwe-362, cvss 5.3.
  assert.ok(cve);
  assert.deepEqual(cve.cve, ['CVE-2018-15473']);
  assert.equal(cve.cwe, 'CWE-362');
  assert.equal(cve.cvssBase, 5.3);
  const multi = await collect((await importFile(createReadStream(path.join(SAMPLES_DIR, 'nuclei/multi_cwe_fabricated.json')))).events);
  assert.equal(multi.findings[0]!.cwe, 'CWE-79');
  assert.match(multi.findings[0]!.evidence, /cwe-ids=CWE-79 CWE-89/);
  const matches = await collect((await importFile(createReadStream(path.join(SAMPLES_DIR, 'nuclei/multiple_matches.json')))).events);
  // Both results are one template with two matcher names: two rule ids.
  assert.equal(new Set(matches.findings.map((f) => f.ruleId)).size, 2);
  assert.ok(matches.findings.every((f) => f.ruleId.includes(':')));
  const bad = await collect((await importFile(createReadStream(path.join(SAMPLES_DIR, 'nuclei/invalid_cwe.json')))).events);
  assert.equal(bad.findings[0]!.cwe, null);
  assert.match(bad.findings[0]!.evidence, /not a CWE\)=nvd-cve-other/);
});

test('nmap: vulners CVEs carry their CVSS; non-CVE entries stay in the port evidence', { skip: SAMPLES_SKIP }, async () => {
  const out = await collect((await importFile(createReadStream(path.join(SAMPLES_DIR, 'nmap/issue4406.xml')))).events);
  const ssh = out.findings.filter((f) => f.port === 22);
  const cves = ssh.filter((f) => f.ruleId === 'nmap:vulners').map((f) => `${f.cve[0]} ${f.cvssBase}`);
  // The port 22 table lists CVE-2019-6111 5.8 ... CVE-2018-20685 2.6 (type cve).
  assert.deepEqual(cves, ['CVE-2019-6111 5.8', 'CVE-2018-15919 5', 'CVE-2018-15473 5', 'CVE-2017-15906 5', 'CVE-2020-14145 4.3', 'CVE-2019-6110 4', 'CVE-2019-6109 4', 'CVE-2018-20685 2.6']);
  const port = ssh.find((f) => f.ruleId === 'nmap:open-port');
  assert.ok(port);
  assert.equal(port.service, 'ssh');
  assert.match(port.evidence, /product: OpenSSH/);
  assert.match(port.evidence, /cpe: cpe:\/a:openbsd:openssh:7\.4/);
  assert.match(port.evidence, /EDB-ID:46516 exploitdb cvss 5\.8 exploit/);
});

test('nmap: a plain <!DOCTYPE nmaprun> is accepted, down hosts are host events without findings', async () => {
  const xml = `<?xml version="1.0"?>\n<!DOCTYPE nmaprun>\n<nmaprun scanner="nmap" version="7.93"><host><status state="down"/><address addr="10.0.0.9" addrtype="ipv4"/></host></nmaprun>`;
  const result = await importNmap(chunked(xml));
  const events: EngineEvent[] = [];
  for await (const e of result.events) events.push(e);
  assert.deepEqual(events, [{ type: 'host', hostname: '10.0.0.9', address: '10.0.0.9', state: 'down' }]);
});

test('XML with entities, an internal subset or external references is refused (XXE, billion laughs)', async () => {
  const hostile = [
    `<?xml version="1.0"?><!DOCTYPE nmaprun [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><nmaprun version="1">&xxe;</nmaprun>`,
    `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]><report>&lol2;</report>`,
    `<?xml version="1.0"?><!DOCTYPE nmaprun SYSTEM "http://attacker.example/nmap.dtd"><nmaprun version="1"/>`,
    `<!DOCTYPE OWASPZAPReport PUBLIC "-//X//EN" "http://attacker.example/x.dtd"><OWASPZAPReport version="2"/>`,
  ];
  for (const xml of hostile) {
    await rejects422(async () => {
      const out = await importFile(chunked(xml));
      await collect(out.events);
    }, /DOCTYPE/);
  }
});

test('broken input: malformed XML, bad JSON, unknown formats and empty files are 422s naming the problem', async () => {
  await rejects422(async () => collect((await importFile(chunked('<nmaprun version="7"><host></nmaprun>'))).events), /not well-formed/);
  await rejects422(async () => collect((await importFile(chunked('{"template-id":"x","info":{}}\n{"template-id": nope}'))).events), /JSON is not valid/);
  await rejects422(() => importFile(chunked('hello, world')), /Accepted formats: nmap XML/);
  await rejects422(() => importFile(chunked('<html><body/></html>')), /Accepted formats/);
  await rejects422(() => importFile(chunked(' \n ')), /empty/);
  await rejects422(async () => collect((await importOpenvasXml(chunked('<nmaprun/>'))).events), /not a Greenbone report/);
  // Nesting far beyond any report: refused instead of growing a stack per level.
  await rejects422(async () => collect((await importFile(Readable.from([`<nmaprun version="1">${'<a>'.repeat(100_000)}`]))).events), /nests deeper/);
  await rejects422(async () => collect((await importFile(Readable.from([`[{"template-id":"x","info":${'['.repeat(100_000)}`]))).events), /nests deeper/);
});

test('the format is detected from the content', () => {
  assert.equal(detectFormat('<?xml version="1.0"?>\n<!DOCTYPE nmaprun>\n<!-- c -->\n<nmaprun>'), 'nmap-xml');
  assert.equal(detectFormat('\uFEFF<report id="x">'), 'openvas-xml');
  assert.equal(detectFormat('<get_reports_response status="200">'), 'openvas-xml');
  assert.equal(detectFormat('<?xml version="1.0"?><OWASPZAPReport version="2.9.0">'), 'zap-xml');
  assert.equal(detectFormat('{"@programName":"ZAP","@version":"2.16.1","site":[]}'), 'zap-json');
  assert.equal(detectFormat('{"template-id":"x"}\n'), 'nuclei-json');
  assert.equal(detectFormat('[{"templateID":"x"}]'), 'nuclei-json');
  assert.equal(detectFormat('IP,Hostname,Port,Port Protocol,CVSS'), 'openvas-csv');
  assert.equal(detectFormat('{"foo":1}'), null);
  assert.equal(detectFormat(''), 'empty');
});

test('quality of detection: OpenVAS keeps its QoD, ZAP confidence maps, nuclei matched, nmap vulners by version', { skip: SAMPLES_SKIP }, async () => {
  const file = async (name: string) => collect((await importFile(createReadStream(path.join(SAMPLES_DIR, name)))).events);
  // one_vuln.xml: <qod><value>97</value><type>registry</type></qod>; report_detail_v2.csv: QoD column 80.
  assert.deepEqual((await file('openvas/one_vuln.xml')).findings.map((f) => f.qod), [97]);
  assert.deepEqual((await file('openvas/report_detail_v2.csv')).findings.map((f) => f.qod), [80]);
  // 0_zap_sample.xml: plugin 10096 (timestamp disclosure) has confidence 1 (Low), the other alerts 2 (Medium).
  const zap = (await file('zap/0_zap_sample.xml')).findings;
  assert.deepEqual([...new Set(zap.filter((f) => f.ruleId === 'zap:10096').map((f) => f.qod))], [30]);
  assert.deepEqual([...new Set(zap.filter((f) => f.ruleId !== 'zap:10096').map((f) => f.qod))], [70]);
  const nuclei = (await file('nuclei/many_findings_new.json')).findings;
  assert.ok(nuclei.length > 0 && nuclei.every((f) => f.qod === 95), 'a template matched: a test');
  // issue4406.xml: OpenSSH version "7.4", no distribution: version-based.
  const nmap = (await file('nmap/issue4406.xml')).findings;
  assert.ok(nmap.filter((f) => f.ruleId === 'nmap:vulners').every((f) => f.qod === 80));
  assert.equal(nmap.find((f) => f.ruleId === 'nmap:open-port')?.qod, undefined, 'an open port is proved (absent: confirmed)');
});

test("nmap: a vulners match on a distribution's package version is QoD packaged, with the backport caveat", async () => {
  const xml =
    `<?xml version="1.0"?><nmaprun scanner="nmap" version="7.93"><host><status state="up"/><address addr="10.0.0.5" addrtype="ipv4"/><ports>` +
    `<port protocol="tcp" portid="22"><state state="open" reason="syn-ack"/><service name="ssh" product="OpenSSH" version="9.2p1 Debian 2+deb12u10" extrainfo="protocol 2.0"/>` +
    `<script id="vulners" output="..."><table key="cpe:/a:openbsd:openssh:9.2p1"><table><elem key="id">CVE-2023-38408</elem><elem key="type">cve</elem><elem key="cvss">9.8</elem><elem key="is_exploit">false</elem></table></table></script>` +
    `</port></ports></host></nmaprun>`;
  const out = await importText(xml);
  const cve = out.findings.find((f) => f.ruleId === 'nmap:vulners');
  assert.ok(cve);
  assert.equal(cve.qod, 30);
  assert.match(cve.evidence, /Debian package revision 2\+deb12u10: Debian may have backported the fix for CVE-2023-38408/);
});
