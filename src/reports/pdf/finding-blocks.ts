/**
 * The labelled parts of a finding in the PDF report: prose blocks (description, solution), the
 * evidence panel and the references. Used by the full and the dense finding layouts.
 */
import type { ReportFinding } from '../report.js';
import { badge, badgeWidth, paragraph } from './elements.js';
import { ensureSpace, fillRect, flowText, heightOf, setStyle, textAt, textIn, widthOf, type Pen } from './pen.js';
import { lengthOf, pdfLine, truncated, truncationNote, wrapMonospace } from './text.js';
import { ACCENT, CODE_INK, EVIDENCE_LIMIT, INK, LINK, LIST_LIMIT, MARGIN, MUTED, PANEL, PROSE_LIMIT, RIGHT, RULE, WIDTH } from './theme.js';

/** A block's label, kept on the page with `next` points of what follows it. */
function blockLabel(pen: Pen, label: string, next: number): void {
  ensureSpace(pen, 14 + next);
  pen.doc.y += 4;
  setStyle(pen, 'Sans-Bold', 9, ACCENT);
  flowText(pen, label, MARGIN, WIDTH);
  pen.doc.y += 2;
}

/** A labelled paragraph of prose; pdfkit flows it onto further pages when long. Nothing when blank. */
export function block(pen: Pen, label: string, value: string): void {
  if (!value.trim()) return;
  const { text, note } = truncated(value.trim(), PROSE_LIMIT);
  blockLabel(pen, label, 24);
  paragraph(pen, text, { size: 9.5, gap: 2 });
  if (note) paragraph(pen, note, { size: 8, color: MUTED, gap: 2 });
}

/** How an evidence panel is drawn: indent from the margin, monospaced size, line pitch, padding, and how much it shows. */
export interface EvidenceStyle {
  indent: number;
  size: number;
  line: number;
  pad: number;
  maxLines: number;
  limit: number;
}

/** The full layout's evidence: up to 3,000 characters and 120 lines. */
const FULL_EVIDENCE: EvidenceStyle = { indent: 0, size: 8, line: 10, pad: 6, maxLines: 120, limit: EVIDENCE_LIMIT };

/** Monospaced glyphs that fit on one line of the evidence panel. */
export function evidencePerLine(style: EvidenceStyle): number {
  // The monospaced face's glyphs are all 0.6 em wide (Cousine's, as Courier's).
  return Math.floor((WIDTH - style.indent - 2 * style.pad - 4) / (style.size * 0.6));
}

/**
 * Evidence in the monospaced face on a grey panel, under a label when `label` is given. The text is
 * wrapped here by character count (wide characters, CJK and emoji, by their width), which lets the
 * panel be split exactly at page ends and spares pdfkit's line breaker. Nothing when blank.
 */
export function evidence(pen: Pen, value: string, style: EvidenceStyle = FULL_EVIDENCE, label: string | null = 'Evidence'): void {
  const { doc } = pen;
  if (!value.trim()) return;
  const trimmed = value.replace(/^\s*\n|\s+$/g, '');
  const { text, note } = truncated(trimmed, style.limit);
  setStyle(pen, 'Mono', style.size, CODE_INK);
  // Cells of a character: its width over the monospaced glyph's, to the hundredth (a Latin one is 1).
  const cell = style.size * 0.6;
  let lines = wrapMonospace(text, evidencePerLine(style), (character) => Math.round((100 * widthOf(pen, character)) / cell) / 100);
  // Many very short lines would still fill pages; the line cap bounds the height.
  const overLines = lines.length > style.maxLines;
  if (overLines) lines = lines.slice(0, style.maxLines);
  const shownNote = note ?? (overLines ? truncationNote(lengthOf(trimmed)) : null);
  if (label) blockLabel(pen, label, style.line * 2 + 2 * style.pad);
  let next = 0;
  while (next < lines.length) {
    ensureSpace(pen, style.line + 2 * style.pad);
    const y = doc.y;
    const room = Math.max(1, Math.floor((doc.page.maxY() - y - 2 * style.pad) / style.line));
    const chunk = lines.slice(next, next + room);
    const height = chunk.length * style.line + 2 * style.pad;
    const x = MARGIN + style.indent;
    fillRect(pen, x, y, WIDTH - style.indent, height, PANEL);
    fillRect(pen, x, y, 2, height, RULE);
    setStyle(pen, 'Mono', style.size, CODE_INK);
    chunk.forEach((line, i) => textAt(pen, line, x + style.pad + 4, y + style.pad + 1 + i * style.line));
    doc.x = MARGIN;
    doc.y = y + height + 2;
    next += chunk.length;
  }
  if (shownNote) paragraph(pen, shownNote, { size: 8, color: MUTED, gap: 2, x: MARGIN + style.indent });
}

/** The references, web addresses as links; nothing when there are none. */
export function references(pen: Pen, refs: string[]): void {
  if (refs.length === 0) return;
  blockLabel(pen, 'References', 12);
  for (const ref of refs.slice(0, LIST_LIMIT)) {
    const url = pdfLine(ref, 500);
    // Only web addresses become links: a reference is engine-supplied text.
    const link = /^https?:\/\/\S+$/i.test(url) ? url : undefined;
    setStyle(pen, 'Sans', 8.5, link ? LINK : INK);
    flowText(pen, url, MARGIN, WIDTH, { link });
  }
  if (refs.length > LIST_LIMIT) paragraph(pen, `and ${refs.length - LIST_LIMIT} more`, { size: 8.5, color: MUTED, gap: 0 });
  pen.doc.y += 2;
}

/** Sizes and offsets of a finding's header row in one layout. */
export interface HeaderStyle {
  nameSize: number;
  idSize: number;
  minHeight: number;
  /** Space kept below the header on the same page (its first details). */
  keepWith: number;
  badgeDy: number;
  nameDy: number;
  gap: number;
}

/** The header of a finding: threat badge, name (wrapped), `#id` on the right; leaves the cursor below it. */
export function findingHeader(pen: Pen, f: ReportFinding, style: HeaderStyle): void {
  const { doc } = pen;
  const id = `#${f.id}`;
  const name = pdfLine(f.name, 500);
  setStyle(pen, 'Sans-Bold', style.idSize);
  const idWidth = widthOf(pen, id);
  const nameX = MARGIN + badgeWidth(pen, f.threat) + 8;
  const nameWidth = RIGHT - nameX - idWidth - 12;
  setStyle(pen, 'Sans-Bold', style.nameSize);
  const headerHeight = Math.max(heightOf(pen, name, nameWidth), style.minHeight);
  // Keep the header with what follows it.
  ensureSpace(pen, headerHeight + style.keepWith);

  const y = doc.y;
  badge(pen, f.threat, MARGIN, y + style.badgeDy);
  setStyle(pen, 'Sans-Bold', style.nameSize, INK);
  textIn(pen, name, nameX, y + style.nameDy, nameWidth);
  setStyle(pen, 'Sans-Bold', style.idSize, MUTED);
  textAt(pen, id, RIGHT - idWidth, y + 1);
  doc.x = MARGIN;
  doc.y = y + headerHeight + style.gap;
}
