/**
 * The plain-text report: one run laid out for a terminal or a mail body, no line longer than 100
 * characters (code points: a wide CJK character or emoji takes two terminal columns, so such lines
 * may look wider), no colour, no escape sequences.
 *
 * Findings carry text a scanned host chose (banners, titles, evidence), and `cat report.txt` must
 * not let that host drive the reader's terminal: every value goes through `printable`, which shows
 * control characters as `\xNN` / `\uNNNN` instead of sending them.
 *
 * Findings are written as they are read, so a run of any size takes the memory of one finding.
 */
import { Readable } from 'node:stream';
import type { Lifecycle, Narrative, NarrativeClaim, ReportFinding, ReportRecord, ReportService, Threat } from './report.js';
import { engineLine, qualityLine, THREAT_ORDER, webLocation } from './report.js';

/** The widest line the report writes, in code points. */
const TXT_WIDTH = 100;

/**
 * Characters never sent raw: C0 controls (LF and tab are handled before), DEL, C1 controls (0x9B
 * alone starts an escape sequence on some terminals), bidirectional overrides and isolates (they
 * reorder what the reader sees, "Trojan Source"), the Unicode line and paragraph separators, and
 * lone surrogates (not encodable).
 */
const UNPRINTABLE =
  /[\x00-\x1F\x7F-\x9F\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A value safe to print: CRLF and lone CR become LF, a tab a space, other controls a visible
 * escape (`\x1b`, `\u202e`), a lone surrogate U+FFFD. The escapes are for reading, not decoding:
 * a value that itself holds the text `\x1b` looks the same.
 */
function printable(value: string): string {
  return value.replace(/\r\n?/g, '\n').replace(/\t/g, ' ').replace(UNPRINTABLE, (ch) => {
    if (ch === '\n') return ch;
    const code = ch.charCodeAt(0);
    if (code >= 0xd800 && code <= 0xdfff) return '\uFFFD';
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * Lines of at most `width` code points: each line of `text` kept as it is when it fits (so its
 * spacing survives), otherwise wrapped at spaces, and a word longer than a line cut into pieces.
 * `text` must already be printable. Always at least one line.
 */
function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    const line = paragraph.trimEnd();
    if (line.length <= width || Array.from(line).length <= width) out.push(line);
    else wrapLong(line, width, out);
  }
  return out;
}

function wrapLong(line: string, width: number, out: string[]): void {
  let current: string[] = [];
  let wrapped = false; // the current line began at a break: spaces before its first word are dropped
  const parts = line.split(/( +)/);
  for (let i = 0; i < parts.length; i += 2) {
    const word = Array.from(parts[i]!);
    if (word.length === 0) continue;
    const space = i === 0 || (current.length === 0 && wrapped) ? [] : Array.from(parts[i - 1]!);
    if (current.length + space.length + word.length <= width) {
      current = current.concat(space, word);
      continue;
    }
    if (current.length > 0) out.push(current.join(''));
    wrapped = true;
    let start = 0;
    for (; word.length - start > width; start += width) out.push(word.slice(start, start + width).join(''));
    current = word.slice(start);
  }
  if (current.length > 0) out.push(current.join(''));
}

/** `label` padded to `labelWidth`, then the value wrapped under itself. */
function field(indent: number, labelWidth: number, label: string, value: string): string[] {
  const pad = ' '.repeat(indent + labelWidth);
  const lines = wrap(printable(value), TXT_WIDTH - indent - labelWidth);
  return lines.map((line, i) => (i === 0 ? `${' '.repeat(indent)}${label.padEnd(labelWidth)}${line}` : `${pad}${line}`).trimEnd());
}

/** A label on its own line, then the text wrapped four spaces further in. */
function block(indent: number, label: string, text: string): string[] {
  const inner = ' '.repeat(indent + 4);
  return [`${' '.repeat(indent)}${label}`, ...wrap(printable(text), TXT_WIDTH - indent - 4).map((line) => `${inner}${line}`.trimEnd())];
}

/** Items as `- item`, each wrapped under its own text. */
function bullets(indent: number, items: readonly string[], marker: (i: number) => string = () => '- '): string[] {
  return items.flatMap((item, i) => field(indent, marker(i).length, marker(i), item));
}

function heading(title: string): string[] {
  return ['', title, '-'.repeat(title.length)];
}

function utc(date: Date | null, missing = '-'): string {
  return date === null ? missing : `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

const LIFECYCLE_LABEL: Record<Lifecycle, string> = { new: 'new', still_open: 'still open', fixed: 'fixed', regressed: 'regressed' };
const BAR_WIDTH = 60;

function headerLines(record: ReportRecord): string[] {
  const { scan, run } = record;
  const line = (label: string, value: string): string[] => field(0, 24, `${label}:`, value);
  const engine = engineLine(run) ?? 'unknown';
  return [
    '='.repeat(TXT_WIDTH),
    'RAMPART SCAN REPORT',
    '='.repeat(TXT_WIDTH),
    ...line('Scan', scan.name),
    ...line('Scan type', scan.type),
    ...line('Scan id', scan.uuid),
    ...line('Schedule', `${scan.frequency} (${scan.timeZone})`),
    ...line('Targets', scan.targets.join(', ') || '-'),
    ...line('Run', `#${run.index} (${run.trigger}, ${run.status})`),
    ...line('Queued', utc(run.queuedAt)),
    ...line('Started', utc(run.startedAt, 'not started')),
    ...line('Ended', utc(run.completedAt, 'not ended')),
    ...line('Outcome', run.outcome ?? 'in progress'),
    ...line('Engine', engine),
    ...line('Vulnerability database', record.vulnDbSyncedAt === null ? 'never synced' : `synced ${utc(record.vulnDbSyncedAt)}`),
    ...line('Generated', utc(record.generatedAt)),
    ...line('Quality', qualityLine(record.quality)),
  ];
}

function summaryLines(record: ReportRecord): string[] {
  const most = Math.max(...THREAT_ORDER.map((threat) => record.counts[threat]));
  // Counts up to BAR_WIDTH are drawn one mark each; larger ones scale, and a non-zero count shows.
  const bar = (n: number): string => '#'.repeat(most <= BAR_WIDTH ? n : Math.ceil((n / most) * BAR_WIDTH));
  const { lifecycle, run } = record;
  return [
    ...heading('SUMMARY'),
    `Findings by threat (${record.total} present):`,
    ...THREAT_ORDER.map((threat) => `  ${threat.padEnd(15)}${String(record.counts[threat]).padStart(7)}  ${bar(record.counts[threat])}`.trimEnd()),
    '',
    ...field(0, 12, 'Lifecycle:', (Object.keys(LIFECYCLE_LABEL) as Lifecycle[]).map((k) => `${LIFECYCLE_LABEL[k]} ${lifecycle[k]}`).join(', ')),
    ...field(0, 12, 'Hosts:', `${run.hostsUp} up, ${run.hostsDown} down`),
    ...(run.error === null ? [] : field(0, 12, 'Error:', run.error)),
    ...(run.notes.length === 0 ? [] : ['Notes:', ...bullets(2, run.notes)]),
  ];
}

function cite(claim: NarrativeClaim): string {
  return `${claim.text} [${claim.findingIds.map((id) => `#${id}`).join(', ')}]`;
}

function claimLines(title: string, claims: readonly NarrativeClaim[]): string[] {
  return ['', title, ...(claims.length === 0 ? ['  None.'] : bullets(2, claims.map(cite), (i) => `${i + 1}. `))];
}

function narrativeLines(narrative: Narrative): string[] {
  const producer = narrative.producedBy === 'llm' ? `LLM${narrative.model === null ? '' : ` (model ${narrative.model})`}` : 'the built-in deterministic writer';
  return [
    ...heading('ATTACK NARRATIVE'),
    ...field(0, 13, 'Produced by:', producer),
    ...(narrative.fallbackReason === null ? [] : field(0, 13, 'Fallback:', `the LLM's answer was not used: ${narrative.fallbackReason}`)),
    ...claimLines('Entry points:', narrative.entryPoints),
    ...claimLines('Attack chains:', narrative.chains),
    ...claimLines('Fixes, most effective first:', narrative.fixes),
  ];
}

const COLUMNS = [
  { title: 'Host', width: 28 },
  { title: 'Address', width: 24 },
  { title: 'Port', width: 10 },
  { title: 'Service', width: 12 },
  { title: 'Findings', width: 8, right: true },
  { title: 'Worst threat', width: 13 },
];

/** One table row: each cell wrapped in its column, the row as tall as its tallest cell. */
function tableRow(cells: string[]): string[] {
  const wrapped = cells.map((cell, i) => wrap(printable(cell), COLUMNS[i]!.width));
  const height = Math.max(...wrapped.map((lines) => lines.length));
  const rows: string[] = [];
  for (let r = 0; r < height; r++) {
    const row = COLUMNS.map((col, i) => {
      const text = wrapped[i]![r] ?? '';
      const pad = ' '.repeat(col.width - Array.from(text).length);
      return col.right ? pad + text : text + pad;
    });
    rows.push(row.join(' ').trimEnd());
  }
  return rows;
}

function servicesLines(services: readonly ReportService[]): string[] {
  if (services.length === 0) return [...heading('HOSTS AND SERVICES'), 'No open ports or services were seen.'];
  return [
    ...heading('HOSTS AND SERVICES'),
    ...tableRow(COLUMNS.map((col) => col.title)),
    COLUMNS.map((col) => '-'.repeat(col.width)).join(' '),
    ...services.flatMap((s) =>
      tableRow([s.hostname, s.hostIp, s.port === null ? '-' : `${s.port}/${s.protocol ?? '?'}`, s.service ?? '-', String(s.findings), s.worstThreat ?? '-']),
    ),
  ];
}

function location(f: ReportFinding): string {
  const port = f.port === null ? '' : `:${f.port}${f.protocol === null ? '' : `/${f.protocol}`}`;
  return f.hostIp === '' || f.hostIp === f.hostname ? `${f.hostname}${port}` : `${f.hostname}${port} (${f.hostIp})`;
}

/** The `URL:` line of a web finding (method, URL, parameter); none for a network finding. */
const webLine = (f: ReportFinding): string[] => (webLocation(f) === null ? [] : field(4, 14, 'URL:', webLocation(f)!));

function severity(f: ReportFinding): string {
  if (f.cvssBase === null) return `${f.threat}, no CVSS score`;
  return `${f.threat}, CVSS ${f.cvssBase.toFixed(1)}${f.cvssVector === null ? '' : ` (${f.cvssVector})`}`;
}

/** The `[#id] name` line, wrapped under the name. */
function titleLines(f: ReportFinding): string[] {
  return field(0, `[#${f.id}] `.length, `[#${f.id}] `, f.name);
}

function findingLines(f: ReportFinding): string[] {
  const line = (label: string, value: string): string[] => field(4, 14, `${label}:`, value);
  const exploitation = `${f.kev ? 'in the CISA KEV catalogue (known exploited)' : 'not in the CISA KEV catalogue'}; EPSS ${f.epss ?? 'unknown'}`;
  const prose = (label: string, value: string): string[] => (value.trim() === '' ? [] : block(4, `${label}:`, value));
  return [
    '',
    ...titleLines(f),
    ...line('Threat', severity(f)),
    ...line('QoD', String(f.qod)),
    ...line('Location', location(f)),
    ...webLine(f),
    ...line('Service', f.service ?? '-'),
    ...line('CVE', f.cve.join(', ') || '-'),
    ...line('CWE', f.cwe ?? '-'),
    ...line('Exploitation', exploitation),
    ...line('Engines', `${f.engines.join(', ') || '-'} (rule ${f.ruleId})`),
    ...line('Lifecycle', LIFECYCLE_LABEL[f.lifecycle]),
    ...line('Status', f.status),
    ...line('Seen', `first ${utc(f.firstSeenAt)}, last ${utc(f.lastSeenAt)}`),
    ...prose('Description', f.description),
    ...prose('Evidence', f.evidence),
    ...prose('Solution', f.solution),
    ...(f.references.length === 0 ? [] : ['    References:', ...bullets(8, f.references)]),
  ];
}

function fixedLines(f: ReportFinding): string[] {
  const line = (label: string, value: string): string[] => field(4, 14, `${label}:`, value);
  return ['', ...titleLines(f), ...line('Threat', severity(f)), ...line('Location', location(f)), ...webLine(f), ...line('Last seen', utc(f.lastSeenAt))];
}

const text = (lines: string[]): string => `${lines.join('\n')}\n`;

/**
 * The findings under one heading per threat. They arrive in report order (threat first), so a
 * heading is written when the threat changes; nothing is held back to group them.
 */
async function* findingsText(record: ReportRecord): AsyncGenerator<string> {
  yield text(heading(`FINDINGS (${record.total})`));
  let threat: Threat | null = null;
  for await (const finding of record.findings()) {
    if (finding.threat !== threat) {
      threat = finding.threat;
      const title = `${threat.toUpperCase()} (${record.counts[threat]})`;
      yield text(['', `== ${title} ${'='.repeat(TXT_WIDTH - title.length - 4)}`]);
    }
    yield text(findingLines(finding));
  }
  if (threat === null) yield text(['No findings.']);
}

async function* fixedText(record: ReportRecord): AsyncGenerator<string> {
  yield text(heading('FIXED SINCE THE PREVIOUS RUN'));
  let any = false;
  for await (const finding of record.fixed()) {
    any = true;
    yield text(fixedLines(finding));
  }
  if (!any) yield text(['None.']);
}

async function* documentText(record: ReportRecord): AsyncGenerator<string> {
  yield text([...headerLines(record), ...summaryLines(record)]);
  const summary = record.narrative?.summary ?? [];
  if (summary.length > 0) yield text([...heading('EXECUTIVE SUMMARY'), ...summary.flatMap((claim) => wrap(printable(cite(claim)), TXT_WIDTH))]);
  yield text(servicesLines(record.services));
  yield* findingsText(record);
  yield* fixedText(record);
  if (record.narrative) yield text(narrativeLines(record.narrative));
}

/**
 * The run as plain UTF-8 text, streamed finding by finding. A failure while reading the findings
 * destroys the stream with that error, so a cut-short report is never taken for a whole one.
 */
export function renderTxt(record: ReportRecord): Readable {
  return Readable.from(documentText(record), { objectMode: false });
}
