/**
 * The plain-text and XML reports, rendered from in-memory records: the XML is well-formed, in its
 * namespace, and parses back to the record's values (hostile text included); the text stays within
 * 100 columns and never carries a control character; both stream runs of 10,000 findings and fail
 * loudly when the findings cannot be read.
 */
import assert from 'node:assert/strict';
import { text } from 'node:stream/consumers';
import { describe, test } from 'node:test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { ReportFinding, ReportRecord } from '../src/reports/report.js';
import { THREAT_ORDER } from '../src/reports/report.js';
import { renderTxt } from '../src/reports/render-txt.js';
import { renderXml } from '../src/reports/render-xml.js';
import { HOSTILE, SAMPLE_NARRATIVE, largeReport, makeFinding, sampleReport } from './helpers/report-fixture.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- parsed XML is untyped by nature */
type Node = any;

const LISTS = new Set(['target', 'note', 'count', 'service', 'finding', 'cve', 'engine', 'reference', 'claim']);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  // Decodes numeric character references (&#13;, &#155;), which the renderer uses for CR and C1.
  htmlEntities: true,
  isArray: (name) => LISTS.has(name),
});

function parseXml(xml: string): Node {
  assert.equal(XMLValidator.validate(xml), true);
  return parser.parse(xml).report;
}

function findingById(list: Node[], id: number): Node {
  const found = list.find((f) => f['@_id'] === String(id));
  assert.ok(found, `finding #${id} is in the document`);
  return found;
}

/** What a text element holds: a plain string, or `#text` beside its attributes. */
function textOf(node: Node): string {
  return typeof node === 'string' ? node : node['#text'] ?? '';
}

async function* failingFindings(): AsyncGenerator<ReportFinding> {
  yield makeFinding(1);
  throw new Error('the store went away');
}

async function* only(...findings: ReportFinding[]): AsyncGenerator<ReportFinding> {
  yield* findings;
}

/**
 * How many findings a renderer had read when its output began to flow, and whether it let go of the
 * findings once its reader went away: a streamed report reads a window ahead, not the whole run.
 */
async function readAhead(render: (record: ReportRecord) => NodeJS.ReadableStream): Promise<{ pulled: number; released: boolean }> {
  const record = largeReport(10_000);
  const source = record.findings;
  let pulled = 0;
  let released = false;
  record.findings = async function* counted() {
    try {
      for await (const finding of source()) {
        pulled++;
        yield finding;
      }
    } finally {
      released = true;
    }
  };
  for await (const _chunk of render(record)) if (pulled > 0) break;
  await new Promise((resolve) => setImmediate(resolve));
  return { pulled, released };
}

/** Characters XML 1.0 forbids: the renderer must never write one. */
const XML_FORBIDDEN = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('XML report', () => {
  test('the sample is well-formed, namespaced, and holds every finding with its name', async () => {
    const xml = await text(renderXml(sampleReport()));
    assert.ok(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n'));
    const report = parseXml(xml);
    assert.equal(report['@_xmlns'], 'urn:rampart:report:1.0');
    assert.equal(report['@_version'], '1.0');
    assert.equal(report['@_generated-at'], '2026-11-21T12:00:00.000Z');

    const names: Record<number, string> = {
      1: 'Apache HTTP Server path traversal',
      2: 'Redis without authentication',
      3: `Cookie ${HOSTILE.formula}`,
      4: 'TLS 1.0 accepted',
      5: 'Open port',
    };
    const findings = report.findings.finding as Node[];
    assert.deepEqual(findings.map((f) => Number(f['@_id'])), [1, 2, 3, 4, 5]);
    for (const [id, name] of Object.entries(names)) assert.equal(findingById(findings, Number(id)).name, name);
    const fixed = report.fixed.finding as Node[];
    assert.deepEqual(fixed.map((f) => [f['@_id'], f.name, f['@_lifecycle']]), [['6', 'Expired certificate', 'fixed']]);
  });

  test('a finding carries its attributes and elements, and null values leave theirs out', async () => {
    const report = parseXml(await text(renderXml(sampleReport())));
    const findings = report.findings.finding as Node[];
    const first = findingById(findings, 1);
    assert.deepEqual(
      [first['@_threat'], first['@_cvss-base'], first['@_lifecycle'], first['@_status'], first['@_kev'], first['@_epss']],
      ['Critical', '9.8', 'regressed', 'Unresolved', 'true', '0.97'],
    );
    assert.deepEqual(first.cve, ['CVE-2021-41773']);
    assert.equal(first.host['@_name'], 'host-1.example.test');
    assert.equal(first.host['@_port'], '1001');
    assert.equal(first['first-seen-at'], '2026-11-20T10:00:00.000Z');
    assert.deepEqual(findingById(findings, 3).engines.engine, ['rampart', 'nuclei']);

    const informational = findingById(findings, 5);
    assert.equal(informational['@_cvss-base'], undefined);
    assert.equal(informational['@_epss'], undefined);
    assert.equal(informational.cwe, undefined);
    assert.equal(informational['@_status'], 'Accepted');

    assert.deepEqual(report.summary.count.map((c: Node) => [c['@_threat'], textOf(c)]), THREAT_ORDER.map((t) => [t, '1']));
    assert.equal(report.summary.lifecycle['@_still-open'], '1');
    assert.equal(report.services.service.length, 3);
    assert.equal(report.services.service[1]['@_name'], 'redis');
    assert.equal(report.run.engine[0]['@_version'], '1.0.0');
    assert.equal(report.run['vulnerability-database']['@_synced-at'], '2026-11-20T03:00:00.000Z');
    assert.equal(report.run.error, undefined);
  });

  test('a run not yet finished and a database never synced omit those attributes', async () => {
    const base = sampleReport();
    const record = sampleReport({
      run: { ...base.run, status: 'current', outcome: null, startedAt: null, completedAt: null, engine: null, engineVersion: null, error: 'boom' },
      vulnDbSyncedAt: null,
      narrative: null,
    });
    const xml = await text(renderXml(record));
    const report = parseXml(xml);
    for (const name of ['outcome', 'started-at', 'completed-at']) assert.equal(report.run[`@_${name}`], undefined, name);
    assert.equal(report.run['@_queued-at'], '2026-11-21T11:00:00.000Z');
    assert.match(xml, /<vulnerability-database\/>/);
    assert.match(xml, /<engine\/>/);
    assert.equal(report.run.error, 'boom');
    assert.equal(report.narrative, undefined);
  });

  test('hostile text round-trips exactly, except characters XML forbids, which become U+FFFD', async () => {
    const xml = await text(renderXml(sampleReport()));
    assert.doesNotMatch(xml, XML_FORBIDDEN);
    assert.ok(!xml.includes(']]>'), 'no raw CDATA terminator anywhere');
    assert.ok(!xml.includes('<script>'));
    const report = parseXml(xml);
    const findings = report.findings.finding as Node[];
    assert.equal(report.scan.name, `Weekly perimeter ${HOSTILE.script}`);
    assert.equal(findingById(findings, 2).evidence, HOSTILE.script);
    assert.equal(findingById(findings, 3).evidence, `${HOSTILE.control.replace(/[\x07\x1b]/g, '\uFFFD')}\n${HOSTILE.cdata}`);
    assert.equal(findingById(findings, 4).evidence, HOSTILE.long);
    assert.equal(findingById(findings, 4).solution, HOSTILE.unicode);
  });

  test('CR, tab, C1 controls and whitespace in attributes survive; lone surrogates and U+FFFE do not', async () => {
    const evil = makeFinding(7, {
      name: 'nul\u0000 lone\uD800 high and \uDC00 low, \uFFFE and \uFFFF',
      evidence: 'line one\r\nline two\ttabbed\rcr \u009b[2J csi \u007f del',
      hostname: "quote\" apostrophe' & <angle>\nnewline\ttab",
      cvssVector: null,
      epss: 1e-7,
    });
    const narrative = { ...SAMPLE_NARRATIVE, producedBy: 'llm' as const, model: 'model "x"', fallbackReason: 'refused:\n\tno <citations>' };
    const xml = await text(renderXml(sampleReport({ findings: () => only(evil), narrative })));
    assert.doesNotMatch(xml, XML_FORBIDDEN);
    assert.ok(!/[\x7F-\x9F]/.test(xml), 'C1 controls are written as references, never raw');
    const report = parseXml(xml);
    const [finding] = report.findings.finding as Node[];
    assert.equal(finding.name, 'nul\uFFFD lone\uFFFD high and \uFFFD low, \uFFFD and \uFFFD');
    assert.equal(finding.evidence, 'line one\r\nline two\ttabbed\rcr \u009b[2J csi \u007f del');
    assert.equal(finding.host['@_name'], "quote\" apostrophe' & <angle>\nnewline\ttab");
    assert.equal(finding['cvss-vector'], undefined, 'a null element is left out');
    assert.equal(finding['@_epss'], '0.0000001', 'numbers are plain decimals, never exponents');
    assert.equal(report.narrative['@_produced-by'], 'llm');
    assert.equal(report.narrative['@_model'], 'model "x"');
    assert.equal(report.narrative['@_fallback-reason'], 'refused:\n\tno <citations>');
  });

  test('the narrative holds its claims with the ids of their findings', async () => {
    const report = parseXml(await text(renderXml(sampleReport())));
    const narrative = report.narrative;
    assert.equal(narrative['@_produced-by'], 'deterministic');
    assert.equal(narrative['@_model'], undefined);
    assert.equal(narrative['@_fallback-reason'], undefined);
    const claims = (section: string): [string, string][] => narrative[section].claim.map((c: Node) => [textOf(c), c['@_findings']]);
    assert.deepEqual(claims('summary'), [[SAMPLE_NARRATIVE.summary[0]!.text, '1 2']]);
    assert.deepEqual(claims('entry-points'), [[SAMPLE_NARRATIVE.entryPoints[0]!.text, '2']]);
    assert.deepEqual(claims('chains'), [[SAMPLE_NARRATIVE.chains[0]!.text, '2']]);
    assert.deepEqual(claims('fixes'), [[SAMPLE_NARRATIVE.fixes[0]!.text, '2']]);
  });

  test('a run of 10,000 findings streams into a well-formed document', async () => {
    const xml = await text(renderXml(largeReport(10_000)));
    assert.equal(XMLValidator.validate(xml), true);
    assert.equal(xml.match(/<finding /g)?.length, 10_000);
    assert.ok(xml.includes('<finding id="10000" threat="Informational"'));
  });

  test('findings are read as the output is consumed, and released when the reader goes away', async () => {
    const { pulled, released } = await readAhead(renderXml);
    assert.ok(pulled > 0 && pulled < 1000, `read ${pulled} findings ahead`);
    assert.ok(released);
  });

  test('findings that fail midway make the stream fail', async () => {
    await assert.rejects(text(renderXml(sampleReport({ findings: failingFindings }))), /the store went away/);
  });
});

function lines(output: string): string[] {
  assert.ok(output.endsWith('\n'));
  return output.slice(0, -1).split('\n');
}

function assertTerminalSafe(output: string): void {
  for (const line of lines(output)) assert.ok(Array.from(line).length <= 100, `line within 100 columns: ${JSON.stringify(line)}`);
  assert.ok(!output.includes('\u001b'), 'no ESC character');
  assert.doesNotMatch(output, /[\x00-\x09\x0B-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]/);
  assert.doesNotMatch(output, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
}

/** The `[#id] name` line and the lines its name wrapped onto, as one text. */
function titleOf(output: string, id: number): string {
  const all = lines(output);
  const start = all.findIndex((line) => line.startsWith(`[#${id}] `));
  assert.notEqual(start, -1, `the [#${id}] line is present`);
  const indent = ' '.repeat(`[#${id}] `.length);
  let title = all[start]!.slice(indent.length);
  for (let i = start + 1; all[i]!.startsWith(indent) && !all[i]!.startsWith('    Threat:'); i++) title += ` ${all[i]!.trim()}`;
  return title;
}

describe('Plain-text report', () => {
  test('the sample has every section, finding and citation within 100 columns', async () => {
    const output = await text(renderTxt(sampleReport()));
    assertTerminalSafe(output);
    const sections = ['RAMPART SCAN REPORT', 'SUMMARY', 'EXECUTIVE SUMMARY', 'HOSTS AND SERVICES', 'FINDINGS (5)', 'FIXED SINCE THE PREVIOUS RUN', 'ATTACK NARRATIVE'];
    const at = sections.map((title) => lines(output).indexOf(title));
    assert.ok(at.every((i) => i >= 0), `sections present: ${at}`);
    assert.deepEqual([...at].sort((a, b) => a - b), at, 'sections in order');
    const threats = THREAT_ORDER.map((threat) => output.indexOf(`== ${threat.toUpperCase()} (1) ==`));
    assert.ok(threats.every((i, k) => i > 0 && (k === 0 || i > threats[k - 1]!)), 'threat groups in order');

    const names = ['Apache HTTP Server path traversal', 'Redis without authentication', `Cookie ${HOSTILE.formula}`, 'TLS 1.0 accepted', 'Open port', 'Expired certificate'];
    names.forEach((name, i) => assert.equal(titleOf(output, i + 1), name));
    for (const expected of [
      'Vulnerability database: synced 2026-11-20 03:00:00 UTC',
      'Started:                2026-11-21 11:00:05 UTC',
      'Engine:                 rampart 1.0.0',
      '  Critical             1  #',
      'Lifecycle:  new 2, still open 1, fixed 1, regressed 1',
      'Hosts:      3 up, 5 down',
      '  - UDP probes were skipped: the scan rate limit was reached.',
      '    Exploitation: in the CISA KEV catalogue (known exploited); EPSS 0.97',
      '    Lifecycle:    regressed',
      'Produced by: the built-in deterministic writer',
      '  1. Require a password on Redis and bind it to localhost. [#2]',
    ]) assert.ok(lines(output).includes(expected), `has the line ${JSON.stringify(expected)}`);
    assert.ok(output.includes('flaw. [#1, #2]'));
    assert.match(output, /^host-1\.example\.test +192\.0\.2\.1 +6379\/tcp +redis +1 High$/m);
  });

  test('hostile values are shown, not obeyed: controls escaped, long words cut', async () => {
    const output = await text(renderTxt(sampleReport()));
    assert.ok(output.includes('        bell\\x07 and escape\\x1b[31m red'));
    assert.ok(output.includes(`        ${HOSTILE.cdata}`));
    assert.ok(output.includes(HOSTILE.script));
    assert.ok(output.includes(HOSTILE.unicode));
    const aLines = lines(output).filter((line) => /^ +A+$/.test(line));
    assert.equal(aLines.join('').replace(/ /g, '').length, 400);
  });

  test('controls of every kind, long names and wide text stay within the line', async () => {
    const longName = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const evil = makeFinding(8, {
      name: longName,
      evidence: `crlf\r\nnext\u009b[2J\u202eevil\u2066 nul\u0000 lone\uD800 ${'漢'.repeat(150)} ${'🔥'.repeat(150)}`,
      hostname: `${'h'.repeat(60)}.example.test`,
    });
    const services = [{ hostname: `${'s'.repeat(70)}.test`, hostIp: '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', port: 65535, protocol: 'tcp', service: 'a-very-long-service-name', findings: 123456, worstThreat: 'Informational' as const }];
    const output = await text(renderTxt(sampleReport({ findings: () => only(evil), services })));
    assertTerminalSafe(output);
    assert.equal(titleOf(output, 8), longName);
    assert.ok(output.includes('        crlf\n        next\\x9b[2J\\u202eevil\\u2066 nul\\x00 lone\uFFFD'));
    const wide = lines(output).filter((line) => line.includes('漢') || line.includes('🔥'));
    assert.equal(wide.join('').match(/漢/g)?.length, 150);
    assert.equal(wide.join('').match(/🔥/g)?.length, 150);
    assert.ok(output.includes('Informational'));
  });

  test('an LLM narrative names its model and why it fell back; no narrative, no sections', async () => {
    const narrative = { ...SAMPLE_NARRATIVE, producedBy: 'llm' as const, model: 'gpt-test', fallbackReason: null, entryPoints: [] };
    const withLlm = await text(renderTxt(sampleReport({ narrative })));
    assert.ok(withLlm.includes('Produced by: LLM (model gpt-test)'));
    assert.ok(withLlm.includes('Entry points:\n  None.'));

    const fellBack = await text(renderTxt(sampleReport({ narrative: { ...SAMPLE_NARRATIVE, fallbackReason: 'uncited claim' } })));
    assert.ok(fellBack.includes("Fallback:    the LLM's answer was not used: uncited claim"));

    const none = await text(renderTxt(sampleReport({ narrative: null, vulnDbSyncedAt: null })));
    assert.ok(!none.includes('ATTACK NARRATIVE') && !none.includes('EXECUTIVE SUMMARY'));
    assert.ok(none.includes('Vulnerability database: never synced'));
  });

  test('an empty run says so', async () => {
    const record: ReportRecord = sampleReport({
      findings: () => only(),
      fixed: () => only(),
      services: [],
      total: 0,
      counts: { Critical: 0, High: 0, Medium: 0, Low: 0, Informational: 0 },
    });
    const output = await text(renderTxt(record));
    assertTerminalSafe(output);
    for (const expected of ['No findings.', 'None.', 'No open ports or services were seen.', '  Critical             0']) {
      assert.ok(lines(output).includes(expected), expected);
    }
  });

  test('a run of 10,000 findings streams whole, bars scaled to the line', async () => {
    const output = await text(renderTxt(largeReport(10_000)));
    assertTerminalSafe(output);
    assert.ok(output.includes('\n[#10000] Finding 10000\n'));
    assert.equal(output.match(/^\[#\d+\] /gm)?.length, 10_000);
    assert.ok(lines(output).includes(`  Critical          2000  ${'#'.repeat(60)}`));
  });

  test('findings are read as the output is consumed, and released when the reader goes away', async () => {
    const { pulled, released } = await readAhead(renderTxt);
    assert.ok(pulled > 0 && pulled < 1000, `read ${pulled} findings ahead`);
    assert.ok(released);
  });

  test('findings that fail midway make the stream fail', async () => {
    await assert.rejects(text(renderTxt(sampleReport({ findings: failingFindings }))), /the store went away/);
  });
});
