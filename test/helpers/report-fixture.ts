/**
 * Report records built in memory, for testing the renderers on their own. `sampleReport` gives a
 * small run with a finding of every threat, hostile text (markup, formulas, control characters,
 * long unbroken strings, non-Latin script), a fixed finding and a narrative; `largeReport` gives a
 * run of any size whose findings are generated as they are read.
 */
import type { Narrative, ReportFinding, ReportRecord, Threat } from '../../src/reports/report.js';
import { THREAT_ORDER } from '../../src/reports/report.js';

export const HOSTILE = {
  script: '<script>alert("x")</script>',
  formula: '=HYPERLINK("http://evil.example","click")',
  control: 'bell\u0007 and escape\u001b[31m red',
  cdata: 'ends ]]> a CDATA section & has <tags>',
  long: 'A'.repeat(400),
  unicode: 'Ünïcödé — 漢字 — emoji 🔥',
};

const BASE = new Date('2026-11-20T10:00:00Z');

export function makeFinding(id: number, overrides: Partial<ReportFinding> = {}): ReportFinding {
  const threat = THREAT_ORDER[id % 5]!;
  const cvss: Record<Threat, number | null> = { Critical: 9.8, High: 7.5, Medium: 5.3, Low: 3.1, Informational: null };
  return {
    id,
    name: `Finding ${id}`,
    threat,
    cvssBase: cvss[threat],
    cvssVector: cvss[threat] === null ? null : 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    cve: id % 3 === 0 ? [`CVE-2024-${1000 + id}`] : [],
    cwe: id % 3 === 0 ? 'CWE-79' : null,
    hostname: `host-${id % 7}.example.test`,
    hostIp: `192.0.2.${id % 7}`,
    port: 1000 + (id % 11),
    protocol: 'tcp',
    service: 'http',
    url: null,
    method: null,
    parameter: null,
    engine: 'rampart',
    engines: ['rampart'],
    ruleId: `rampart:rule-${id % 13}`,
    description: `Description of finding ${id}.`,
    solution: `Solution for finding ${id}.`,
    evidence: `Evidence of finding ${id}.`,
    references: [`https://nvd.nist.gov/vuln/detail/CVE-2024-${1000 + id}`],
    status: 'Unresolved',
    lifecycle: 'new',
    kev: false,
    epss: null,
    qod: 95,
    firstSeenAt: BASE,
    lastSeenAt: BASE,
    ...overrides,
  };
}

async function* iterate<T>(items: T[]): AsyncIterable<T> {
  for (const item of items) yield item;
}

function countByThreat(findings: ReportFinding[]): Record<Threat, number> {
  const counts = { Critical: 0, High: 0, Medium: 0, Low: 0, Informational: 0 };
  for (const f of findings) counts[f.threat]++;
  return counts;
}

function byReportOrder(a: ReportFinding, b: ReportFinding): number {
  return THREAT_ORDER.indexOf(a.threat) - THREAT_ORDER.indexOf(b.threat) || (b.cvssBase ?? -1) - (a.cvssBase ?? -1) || a.id - b.id;
}

export const SAMPLE_NARRATIVE: Narrative = {
  producedBy: 'deterministic',
  model: null,
  fallbackReason: null,
  summary: [{ text: 'An attacker on the network can reach an unauthenticated Redis and a web server with a known critical flaw.', findingIds: [1, 2] }],
  entryPoints: [{ text: 'Redis on host-1.example.test:6379 answers without authentication.', findingIds: [2] }],
  chains: [{ text: 'Redis without authentication -> write a cron file -> remote code execution as the redis user.', findingIds: [2] }],
  fixes: [{ text: 'Require a password on Redis and bind it to localhost.', findingIds: [2] }],
};

/** A small run: every threat, hostile text, regressed and still-open labels, one fixed finding. */
export function sampleReport(overrides: Partial<ReportRecord> = {}): ReportRecord {
  const findings = [
    makeFinding(1, { name: 'Apache HTTP Server path traversal', threat: 'Critical', cvssBase: 9.8, cve: ['CVE-2021-41773'], lifecycle: 'regressed', kev: true, epss: 0.97 }),
    makeFinding(2, { name: 'Redis without authentication', threat: 'High', cvssBase: 7.5, port: 6379, service: 'redis', evidence: HOSTILE.script, lifecycle: 'still_open' }),
    makeFinding(3, { name: `Cookie ${HOSTILE.formula}`, threat: 'Medium', cvssBase: 5.3, evidence: `${HOSTILE.control}\n${HOSTILE.cdata}`, engine: 'nuclei', engines: ['rampart', 'nuclei'] }),
    makeFinding(4, { name: 'TLS 1.0 accepted', threat: 'Low', cvssBase: 3.1, evidence: HOSTILE.long, solution: HOSTILE.unicode }),
    makeFinding(5, { name: 'Open port', threat: 'Informational', cvssBase: null, status: 'Accepted' }),
  ].sort(byReportOrder);
  const fixed = [makeFinding(6, { name: 'Expired certificate', threat: 'Medium', cvssBase: 5.3, lifecycle: 'fixed' })];
  return {
    generatedAt: new Date('2026-11-21T12:00:00Z'),
    baseUrl: 'https://rampart.example.test',
    scan: { uuid: '3f0c6a52-8f1e-4b8e-9a51-1f6c2d7e9b10', name: `Weekly perimeter ${HOSTILE.script}`, type: 'Rampart', targets: ['192.0.2.0/29', 'www.example.test'], frequency: 'Weekly', timeZone: 'Europe/Berlin' },
    run: {
      index: 2,
      trigger: 'schedule',
      status: 'completed',
      outcome: 'succeeded',
      error: null,
      notes: ['UDP probes were skipped: the scan rate limit was reached.'],
      queuedAt: new Date('2026-11-21T11:00:00Z'),
      startedAt: new Date('2026-11-21T11:00:05Z'),
      completedAt: new Date('2026-11-21T11:12:40Z'),
      engine: 'rampart',
      engineVersion: '1.0.0',
      engineDetail: null,
      hostsUp: 3,
      hostsDown: 5,
    },
    vulnDbSyncedAt: new Date('2026-11-20T03:00:00Z'),
    quality: { minQod: 70, hidden: 2 },
    counts: countByThreat(findings),
    total: findings.length,
    lifecycle: { new: 2, still_open: 1, fixed: 1, regressed: 1 },
    services: [
      { hostname: 'host-1.example.test', hostIp: '192.0.2.1', port: 80, protocol: 'tcp', service: 'http', findings: 2, worstThreat: 'Critical' },
      { hostname: 'host-1.example.test', hostIp: '192.0.2.1', port: 6379, protocol: 'tcp', service: 'redis', findings: 1, worstThreat: 'High' },
      { hostname: 'www.example.test', hostIp: '192.0.2.5', port: 443, protocol: 'tcp', service: 'https', findings: 2, worstThreat: 'Medium' },
    ],
    findings: () => iterate(findings),
    fixed: () => iterate(fixed),
    narrative: SAMPLE_NARRATIVE,
    ...overrides,
  };
}

/** A run of `size` findings generated as they are read (nothing held), in report order. */
export function largeReport(size: number): ReportRecord {
  const perThreat = Math.floor(size / 5);
  async function* generate(): AsyncIterable<ReportFinding> {
    let id = 1;
    for (const threat of THREAT_ORDER) {
      const n = threat === 'Informational' ? size - perThreat * 4 : perThreat;
      for (let k = 0; k < n; k++, id++) yield makeFinding(id, { threat, evidence: `Evidence ${id}: ${'x'.repeat(200)}` });
    }
  }
  return sampleReport({
    counts: { Critical: perThreat, High: perThreat, Medium: perThreat, Low: perThreat, Informational: size - perThreat * 4 },
    total: size,
    lifecycle: { new: size, still_open: 0, fixed: 0, regressed: 0 },
    findings: generate,
    fixed: () => iterate([]),
  });
}
