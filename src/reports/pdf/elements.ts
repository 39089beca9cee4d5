/**
 * The building blocks every section of the PDF report is made of: section titles, headings,
 * paragraphs, threat badges, label / value rows and number tiles.
 */
import type { Threat } from '../report.js';
import { atPageTop, ensureSpace, fillRect, fillRoundedRect, fit, flowText, hairline, heightOf, setStyle, textAt, textIn, widthOf, type Pen } from './pen.js';
import { ACCENT, BADGE_TEXT, INK, MARGIN, MUTED, RIGHT, THREAT_COLOR, TINT, WIDTH } from './theme.js';

/** A top-level section: on a fresh page, titled, with a bookmark. */
export function startSection(pen: Pen, title: string): PDFKit.PDFOutline {
  if (!atPageTop(pen)) pen.doc.addPage();
  const { doc } = pen;
  setStyle(pen, 'Sans-Bold', 18, ACCENT);
  flowText(pen, title, MARGIN, WIDTH);
  const y = doc.y + 3;
  hairline(pen, y, 1, ACCENT);
  doc.y = y + 14;
  return doc.outline.addItem(title);
}

/** A heading inside a section, kept with what follows it. */
export function heading2(pen: Pen, title: string, color: string = INK): void {
  const { doc } = pen;
  ensureSpace(pen, 60);
  doc.y += 6;
  setStyle(pen, 'Sans-Bold', 13, color);
  flowText(pen, title, MARGIN, WIDTH);
  const y = doc.y + 2;
  hairline(pen, y);
  doc.y = y + 8;
}

/** Wrapped prose at the cursor, from `x` to the right margin, with `gap` points under it. */
export function paragraph(pen: Pen, text: string, options: { size?: number; color?: string; x?: number; gap?: number } = {}): void {
  const x = options.x ?? MARGIN;
  setStyle(pen, 'Sans', options.size ?? 10, options.color ?? INK);
  flowText(pen, text, x, RIGHT - x, { lineGap: 1.5 });
  pen.doc.y += options.gap ?? 6;
}

const BADGE_HEIGHT = 12;
// The fonts never change within a process, so a badge's width is measured once per process.
const badgeWidths = new Map<Threat, number>();

/** The width of a threat badge. */
export function badgeWidth(pen: Pen, threat: Threat): number {
  let width = badgeWidths.get(threat);
  if (width === undefined) {
    const resume = { ...pen.style };
    setStyle(pen, 'Sans-Bold', 7, INK);
    badgeWidths.set(threat, (width = widthOf(pen, threat.toUpperCase()) + 10));
    setStyle(pen, resume.font, resume.size, resume.color);
  }
  return width;
}

/** A threat label as a colored pill; returns its width. Leaves the badge's text style set. */
export function badge(pen: Pen, threat: Threat, x: number, y: number): number {
  const width = badgeWidth(pen, threat);
  fillRoundedRect(pen, x, y, width, BADGE_HEIGHT, 2.5, THREAT_COLOR[threat]);
  setStyle(pen, 'Sans-Bold', 7, BADGE_TEXT[threat]);
  textAt(pen, threat.toUpperCase(), x + 5, y + 3);
  return width;
}

/** Label / value rows with a hairline between them; values wrap. */
export function keyValues(pen: Pen, rows: [string, string, string?][], labelWidth: number): void {
  const { doc } = pen;
  const valueWidth = WIDTH - labelWidth;
  for (const [label, value, color] of rows) {
    setStyle(pen, 'Sans', 10);
    const height = Math.max(heightOf(pen, value, valueWidth), 12) + 10;
    ensureSpace(pen, height);
    const y = doc.y;
    setStyle(pen, 'Sans-Bold', 9, MUTED);
    textIn(pen, label, MARGIN, y + 5.5, labelWidth - 10);
    setStyle(pen, 'Sans', 10, color ?? INK);
    textIn(pen, value, MARGIN + labelWidth, y + 5, valueWidth);
    hairline(pen, y + height, 0.4);
    doc.x = MARGIN;
    doc.y = y + height;
  }
}

/** A row of number tiles with a colored top edge. */
export function tiles(pen: Pen, items: { value: number | string; label: string; color: string }[]): void {
  const { doc } = pen;
  const gap = 8;
  const width = (WIDTH - gap * (items.length - 1)) / items.length;
  const y = doc.y;
  items.forEach((item, i) => {
    const x = MARGIN + i * (width + gap);
    fillRect(pen, x, y, width, 52, TINT);
    fillRect(pen, x, y, width, 3, item.color);
    setStyle(pen, 'Sans-Bold', 20, INK);
    textAt(pen, String(item.value), x + 8, y + 11);
    setStyle(pen, 'Sans', 8, MUTED);
    textAt(pen, fit(pen, item.label, width - 16), x + 8, y + 36);
  });
  doc.x = MARGIN;
  doc.y = y + 52 + 14;
}
