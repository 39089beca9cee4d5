/**
 * The XML report: one run as an XML 1.0 document in the namespace `urn:rampart:report:1.0`.
 * `docs/report-xml.md` describes every element and attribute, and `docs/report-1.0.xsd` is its
 * schema; a change here is a change to that published format (additive keeps 1.0, breaking bumps
 * the namespace).
 *
 * Findings are written as they are read, so a run of any size takes the memory of one finding.
 * Everything in a finding can come from a scanned host (names, banners, evidence), so every value
 * goes through `xmlText` / `xmlAttribute`: markup escaped, characters XML forbids replaced.
 */
import { Readable } from 'node:stream';
import type { Narrative, NarrativeClaim, ReportFinding, ReportRecord, ReportService } from './report.js';
import { engineLine, THREAT_ORDER } from './report.js';

/** The namespace of the document's elements; its version changes only on a breaking change. */
const XML_REPORT_NAMESPACE = 'urn:rampart:report:1.0';
/** The format version, repeated in the root's `version` attribute. */
const XML_REPORT_VERSION = '1.0';

type AttributeValue = string | number | boolean | Date | null;

/**
 * What needs escaping. Besides markup: CR (a parser would turn it into LF), DEL and C1 controls
 * (legal XML, but raw they would drive a terminal showing the file, so they go as references), and
 * what XML 1.0 forbids outright (C0 controls other than tab, LF and CR; U+FFFE, U+FFFF; lone
 * surrogates), which no reference can carry and become U+FFFD.
 */
const NEEDS_ESCAPE =
  /[&<>"'\t\n\r\x7F-\x9F\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

function escape(value: string, inAttribute: boolean): string {
  return value.replace(NEEDS_ESCAPE, (ch) => {
    const entity = ENTITIES[ch];
    if (entity !== undefined) return entity;
    const code = ch.charCodeAt(0);
    // Tab and LF are kept in text; in an attribute a parser would turn them into spaces.
    if (ch === '\t' || ch === '\n') return inAttribute ? `&#${code};` : ch;
    if (ch === '\r' || (code >= 0x7f && code <= 0x9f)) return `&#${code};`;
    return '\uFFFD';
  });
}

/** A value made safe as element text: round-trips exactly except forbidden characters (U+FFFD). */
function xmlText(value: string): string {
  return escape(value, false);
}

/** A value made safe inside a double- or single-quoted attribute, whitespace included. */
function xmlAttribute(value: string): string {
  return escape(value, true);
}

function formatValue(value: Exclude<AttributeValue, null>): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== 'number') return String(value);
  // JavaScript writes numbers below 1e-6 with an exponent (an EPSS of 1e-7), which xs:decimal forbids.
  const text = String(value);
  return /e/i.test(text) ? value.toFixed(20).replace(/\.?0+$/, '') : text;
}

/** ` name="value"` for each pair; a null value leaves its attribute out. */
function attributes(pairs: Record<string, AttributeValue>): string {
  let out = '';
  for (const [name, value] of Object.entries(pairs)) {
    if (value !== null) out += ` ${name}="${xmlAttribute(formatValue(value))}"`;
  }
  return out;
}

/** One text element on its own line; a null value leaves the element out. */
function textElement(indent: string, name: string, value: string | Date | null, attrs: Record<string, AttributeValue> = {}): string {
  if (value === null) return '';
  return `${indent}<${name}${attributes(attrs)}>${xmlText(formatValue(value))}</${name}>\n`;
}

/** A wrapper element around one text child per item; an empty list is an empty element. */
function listElement(indent: string, name: string, child: string, items: readonly string[]): string {
  if (items.length === 0) return `${indent}<${name}/>\n`;
  return `${indent}<${name}>\n${items.map((item) => textElement(`${indent}  `, child, item)).join('')}${indent}</${name}>\n`;
}

function scanXml(scan: ReportRecord['scan']): string {
  const open = `  <scan${attributes({ uuid: scan.uuid, type: scan.type, frequency: scan.frequency, 'time-zone': scan.timeZone })}>\n`;
  return `${open}${textElement('    ', 'name', scan.name)}${listElement('    ', 'targets', 'target', scan.targets)}  </scan>\n`;
}

function runXml(record: ReportRecord): string {
  const { run } = record;
  const open = `  <run${attributes({
    index: run.index, trigger: run.trigger, status: run.status, outcome: run.outcome,
    'queued-at': run.queuedAt, 'started-at': run.startedAt, 'completed-at': run.completedAt,
    'hosts-up': run.hostsUp, 'hosts-down': run.hostsDown,
  })}>\n`;
  return open
    + `    <engine${attributes({ name: run.engine, version: run.engineVersion, detail: run.engineDetail, line: engineLine(run) })}/>\n`
    + `    <vulnerability-database${attributes({ 'synced-at': record.vulnDbSyncedAt })}/>\n`
    + textElement('    ', 'error', run.error)
    + listElement('    ', 'notes', 'note', run.notes)
    + '  </run>\n';
}

function summaryXml(record: ReportRecord): string {
  const counts = THREAT_ORDER.map((threat) => textElement('    ', 'count', String(record.counts[threat]), { threat })).join('');
  const { lifecycle } = record;
  const labels = attributes({ new: lifecycle.new, 'still-open': lifecycle.still_open, fixed: lifecycle.fixed, regressed: lifecycle.regressed });
  const quality = `    <quality${attributes({ 'min-qod': record.quality.minQod, hidden: record.quality.hidden })}/>\n`;
  return `  <summary${attributes({ total: record.total })}>\n${counts}    <lifecycle${labels}/>\n${quality}  </summary>\n`;
}

function serviceXml(service: ReportService): string {
  return `    <service${attributes({
    hostname: service.hostname, address: service.hostIp, port: service.port, protocol: service.protocol,
    name: service.service, findings: service.findings, 'worst-threat': service.worstThreat,
  })}/>\n`;
}

function servicesXml(services: readonly ReportService[]): string {
  return services.length === 0 ? '  <services/>\n' : `  <services>\n${services.map(serviceXml).join('')}  </services>\n`;
}

/** One `<finding>`, indented for its place under `<findings>` or `<fixed>`. */
function findingXml(f: ReportFinding): string {
  const open = `    <finding${attributes({
    id: f.id, threat: f.threat, 'cvss-base': f.cvssBase, lifecycle: f.lifecycle, status: f.status, kev: f.kev, epss: f.epss, qod: f.qod,
  })}>\n`;
  const host = `      <host${attributes({ name: f.hostname, address: f.hostIp, port: f.port, protocol: f.protocol, service: f.service })}/>\n`;
  // Web findings only: where on the site (each attribute left out when null).
  const web = f.url === null && f.method === null && f.parameter === null ? '' : `      <web${attributes({ url: f.url, method: f.method, parameter: f.parameter })}/>\n`;
  return open
    + textElement('      ', 'name', f.name)
    + textElement('      ', 'cvss-vector', f.cvssVector)
    + host
    + web
    + f.cve.map((cve) => textElement('      ', 'cve', cve)).join('')
    + textElement('      ', 'cwe', f.cwe)
    + listElement('      ', 'engines', 'engine', f.engines)
    + textElement('      ', 'rule-id', f.ruleId)
    + textElement('      ', 'description', f.description)
    + textElement('      ', 'evidence', f.evidence)
    + textElement('      ', 'solution', f.solution)
    + listElement('      ', 'references', 'reference', f.references)
    + textElement('      ', 'first-seen-at', f.firstSeenAt)
    + textElement('      ', 'last-seen-at', f.lastSeenAt)
    + '    </finding>\n';
}

function claimsXml(name: string, claims: readonly NarrativeClaim[]): string {
  if (claims.length === 0) return `    <${name}/>\n`;
  const items = claims.map((claim) => textElement('      ', 'claim', claim.text, { findings: claim.findingIds.join(' ') }));
  return `    <${name}>\n${items.join('')}    </${name}>\n`;
}

function narrativeXml(narrative: Narrative): string {
  const open = `  <narrative${attributes({ 'produced-by': narrative.producedBy, model: narrative.model, 'fallback-reason': narrative.fallbackReason })}>\n`;
  return open
    + claimsXml('summary', narrative.summary)
    + claimsXml('entry-points', narrative.entryPoints)
    + claimsXml('chains', narrative.chains)
    + claimsXml('fixes', narrative.fixes)
    + '  </narrative>\n';
}

async function* findingsXml(name: string, findings: AsyncIterable<ReportFinding>): AsyncGenerator<string> {
  let opened = false;
  for await (const finding of findings) {
    if (!opened) yield `  <${name}>\n`;
    opened = true;
    yield findingXml(finding);
  }
  yield opened ? `  </${name}>\n` : `  <${name}/>\n`;
}

async function* documentXml(record: ReportRecord): AsyncGenerator<string> {
  yield '<?xml version="1.0" encoding="UTF-8"?>\n'
    + `<report${attributes({ xmlns: XML_REPORT_NAMESPACE, version: XML_REPORT_VERSION, 'generated-at': record.generatedAt })}>\n`
    + scanXml(record.scan) + runXml(record) + summaryXml(record) + servicesXml(record.services);
  yield* findingsXml('findings', record.findings());
  yield* findingsXml('fixed', record.fixed());
  if (record.narrative) yield narrativeXml(record.narrative);
  yield '</report>\n';
}

/**
 * The run as an XML document (UTF-8), streamed finding by finding. A failure while reading the
 * findings destroys the stream with that error, leaving the document unfinished (not well-formed),
 * so a cut-short download cannot pass for a complete report.
 */
export function renderXml(record: ReportRecord): Readable {
  return Readable.from(documentXml(record), { objectMode: false });
}
