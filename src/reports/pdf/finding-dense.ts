/**
 * A finding in the dense form a large run is drawn in. The header is the full layout's (badge,
 * name, id); the details are a few lines of text instead of a grid; the blocks have their labels
 * run in beside them. Each line is one text call, and text calls are what a 10,000-finding report
 * spends its time on.
 *
 * Two variants: `DENSE_FULL` keeps every detail (description, all of the evidence the full layout
 * shows, references), for the findings that matter; `DENSE_SHORT` is the compact block for minor
 * ones: host, service, the first lines of the evidence and the solution.
 */
import { webLocation, type ReportFinding } from '../report.js';
import { paragraph } from './elements.js';
import { evidence, evidencePerLine, findingHeader, type EvidenceStyle } from './finding-blocks.js';
import { separator } from './finding-full.js';
import { formatEndpoint, formatUtc, listOf } from './format.js';
import { ensureSpace, flowText, setStyle, textAt, type Pen } from './pen.js';
import { pdfLine, truncated } from './text.js';
import { ACCENT, DANGER, EVIDENCE_LIMIT, INK, LIFECYCLE_LABEL, LINK, LIST_LIMIT, MARGIN, MUTED, PROSE_LIMIT, WIDTH } from './theme.js';

/** Room for the run-in labels ("Description", "Evidence"...) left of the blocks. */
const GUTTER = 62;
const BLOCK_X = MARGIN + GUTTER;
const BLOCK_WIDTH = WIDTH - GUTTER;

/** What a dense finding shows. */
export interface DenseLayout {
  /** Every detail, or host, service, CVSS, CVEs, lifecycle and triage only. */
  allDetails: boolean;
  description: boolean;
  references: boolean;
  evidence: EvidenceStyle;
}

const EVIDENCE_BASE = { indent: GUTTER, size: 7.5, line: 9, pad: 4 };

/** Every detail, the evidence up to the full layout's caps. */
export const DENSE_FULL: DenseLayout = {
  allDetails: true,
  description: true,
  references: true,
  evidence: { ...EVIDENCE_BASE, maxLines: 120, limit: EVIDENCE_LIMIT },
};

/** The compact block: no description nor references, three lines of evidence at most. */
export const DENSE_SHORT: DenseLayout = {
  allDetails: false,
  description: false,
  references: false,
  evidence: { ...EVIDENCE_BASE, maxLines: 3, limit: 3 * evidencePerLine({ ...EVIDENCE_BASE, maxLines: 3, limit: 0 }) },
};

/** Draws one finding at the cursor in dense form, and the separator under it. */
export function drawDenseFinding(pen: Pen, f: ReportFinding, layout: DenseLayout): void {
  const { doc } = pen;
  findingHeader(pen, f, { nameSize: 10, idSize: 9, minHeight: 13, keepWith: 48, badgeDy: 0, nameDy: 0.5, gap: 3 });

  for (const [line, color] of detailLines(f, layout.allDetails)) {
    setStyle(pen, 'Sans', 8.5, color);
    flowText(pen, line, MARGIN, WIDTH, { lineGap: 1 });
  }
  doc.y += 3;
  if (layout.description) prose(pen, 'Description', f.description);
  if (f.evidence.trim()) {
    ensureSpace(pen, layout.evidence.line + 2 * layout.evidence.pad);
    runInLabel(pen, 'Evidence', doc.y + layout.evidence.pad - 0.5);
    evidence(pen, f.evidence, layout.evidence, null);
    doc.y += 1;
  }
  prose(pen, 'Solution', f.solution);
  if (layout.references) references(pen, f.references);
  separator(pen, 2, 10);
}

const SEPARATOR = '  ·  ';

/** The details as lines of text, each with its color; parts a finding lacks are left out. */
function detailLines(f: ReportFinding, all: boolean): [string, string][] {
  const cvss = f.cvssBase === null ? null : `CVSS ${f.cvssBase.toFixed(1)}`;
  const cves = f.cve.length > 0 ? listOf(f.cve) : null;
  const web = webLocation(f);
  const where = [formatEndpoint(f), pdfLine(f.service ?? 'no service'), web === null ? null : pdfLine(web)];
  const status = [LIFECYCLE_LABEL[f.lifecycle], f.status];
  if (!all) return [[join([...where, cvss, cves, ...status]), MUTED]];
  const lines: [string, string][] = [[join([...where, ...status]), INK]];
  const scored = cvss && f.cvssVector ? `${cvss} (${pdfLine(f.cvssVector)})` : cvss;
  const weakness = join([scored, cves, f.cwe ? pdfLine(f.cwe) : null]);
  if (weakness) lines.push([weakness, MUTED]);
  const seen = `first seen ${formatUtc(f.firstSeenAt)}, last seen ${formatUtc(f.lastSeenAt)}`;
  lines.push([join([`Rule ${pdfLine(f.ruleId)}`, `QoD ${f.qod}`, `engines ${listOf(f.engines)}`, seen]), MUTED]);
  const epss = f.epss === null ? null : `EPSS ${(f.epss * 100).toFixed(1)}% chance of exploitation in 30 days`;
  if (f.kev || epss) lines.push([join([f.kev ? 'Known exploited (CISA KEV)' : null, epss]), f.kev ? DANGER : INK]);
  return lines;
}

function join(parts: (string | null)[]): string {
  return parts.filter((part) => part !== null).join(SEPARATOR);
}

function runInLabel(pen: Pen, label: string, y: number): void {
  setStyle(pen, 'Sans-Bold', 8, ACCENT);
  textAt(pen, label, MARGIN, y);
}

/** A block of prose with its label run in; pdfkit flows a long one onto further pages. Nothing when blank. */
function prose(pen: Pen, label: string, value: string): void {
  const { doc } = pen;
  if (!value.trim()) return;
  const { text, note } = truncated(value.trim(), PROSE_LIMIT);
  setStyle(pen, 'Sans', 9, INK);
  ensureSpace(pen, doc.currentLineHeight(true) + 2);
  runInLabel(pen, label, doc.y + 1);
  setStyle(pen, 'Sans', 9, INK);
  flowText(pen, text, BLOCK_X, BLOCK_WIDTH, { lineGap: 1 });
  if (note) paragraph(pen, note, { size: 8, color: MUTED, gap: 0, x: BLOCK_X });
  doc.y += 3;
}

/** The references beside their label, web addresses as links; nothing when there are none. */
function references(pen: Pen, refs: string[]): void {
  const { doc } = pen;
  if (refs.length === 0) return;
  setStyle(pen, 'Sans', 8.5, INK);
  ensureSpace(pen, doc.currentLineHeight(true));
  runInLabel(pen, 'References', doc.y + 0.5);
  for (const ref of refs.slice(0, LIST_LIMIT)) {
    const url = pdfLine(ref, 500);
    // Only web addresses become links: a reference is engine-supplied text.
    const link = /^https?:\/\/\S+$/i.test(url) ? url : undefined;
    setStyle(pen, 'Sans', 8.5, link ? LINK : INK);
    flowText(pen, url, BLOCK_X, BLOCK_WIDTH, { link });
  }
  if (refs.length > LIST_LIMIT) paragraph(pen, `and ${refs.length - LIST_LIMIT} more`, { size: 8.5, color: MUTED, gap: 0, x: BLOCK_X });
  doc.y += 3;
}
