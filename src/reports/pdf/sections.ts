/**
 * The two tabular sections of the PDF report: the hosts and services the run saw, and the findings
 * fixed since the previous run; and the closing note on characters the fonts could not draw.
 */
import type { ReportService } from '../report.js';
import type { PdfStream } from './document.js';
import { missingCharacters } from './fast-fonts.js';
import { CJK_PACKAGE } from './fonts.js';
import { paragraph } from './elements.js';
import { formatEndpoint, plural } from './format.js';
import type { Pen } from './pen.js';
import { tableHeader, tableRow, type Column } from './tables.js';
import { pdfLine } from './text.js';
import { MUTED, WIDTH } from './theme.js';

const SERVICE_COLUMNS: Column[] = [
  { title: 'Host', width: 135 },
  { title: 'Address', width: 90 },
  { title: 'Port', width: 60 },
  { title: 'Service', width: 75 },
  { title: 'Findings', width: 55, align: 'right' },
  { title: 'Worst threat', width: WIDTH - 415 },
];

/** The open ports and services by host, or a line saying there were none. */
export function drawServices(pen: Pen, services: ReportService[]): void {
  if (services.length === 0) {
    paragraph(pen, 'No open port or service was recorded in this run.', { color: MUTED });
    return;
  }
  const hosts = new Set(services.map((s) => s.hostname)).size;
  paragraph(pen, `${plural(services.length, 'open port')} on ${plural(hosts, 'host')}.`, { color: MUTED, size: 9.5 });
  tableHeader(pen, SERVICE_COLUMNS);
  services.forEach((s, i) => {
    const port = s.port === null ? '-' : `${s.port}/${pdfLine(s.protocol ?? '')}`;
    tableRow(pen, SERVICE_COLUMNS, [pdfLine(s.hostname), pdfLine(s.hostIp), port, pdfLine(s.service ?? '-'), String(s.findings), { threat: s.worstThreat }], i);
  });
}

const FIXED_COLUMNS: Column[] = [
  { title: 'Threat', width: 85 },
  { title: 'Finding', width: 190 },
  { title: 'Host', width: 175 },
  { title: 'Id', width: WIDTH - 450, align: 'right' },
];

/** The previous run's findings this run did not see, as a compact table; false when the reader went away. */
export async function drawFixed(pen: Pen, out: PdfStream): Promise<boolean> {
  let index = 0;
  for await (const f of pen.record.fixed()) {
    if (out.destroyed) return false;
    if (index === 0) tableHeader(pen, FIXED_COLUMNS);
    tableRow(pen, FIXED_COLUMNS, [{ threat: f.threat }, pdfLine(f.name), formatEndpoint(f), `#${f.id}`], index++);
    await out.drained();
  }
  if (index === 0) paragraph(pen, 'None. Every finding of the previous run is still present, or there was no previous run.', { color: MUTED });
  return !out.destroyed;
}

/**
 * A closing note when characters of the report had no glyph in its fonts and were drawn as U+FFFD:
 * which ones, and for CJK text the font package the server lacks.
 */
export function drawMissingCharacters(pen: Pen): void {
  const missing = missingCharacters(pen.doc);
  if (!missing || missing.examples.size === 0) return;
  const examples = [...missing.examples].map((codePoint) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`).join(', ');
  const cause = missing.cjk ? ` Chinese, Japanese and Korean text needs a font the server lacks: the Debian package ${CJK_PACKAGE}.` : '';
  pen.doc.y += 12;
  paragraph(pen, `Some characters have no glyph in this report's fonts and are shown as \ufffd, among them ${examples}.${cause}`, { color: MUTED, size: 8.5 });
}
