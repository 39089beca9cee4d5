/**
 * The drawing state shared by every section of the PDF report, and the primitives they draw with.
 *
 * Cost model (pdfkit 0.20, measured on a 10,000-finding report): each `doc.text` call is a few
 * microseconds of fixed work plus a walk over its characters, a wrapped one (`width` given) also
 * runs the Unicode line breaker, `heightOfString` lays the text out without drawing it, every
 * `fillColor` call writes a color operator, and every shape is a handful of operators each made
 * into bytes on its own. So: text is measured once and written line by line by `fast-text.ts`
 * (wrapped text in the lines `wrap.ts` lays out once per string), shapes are written by
 * `fast-shapes.ts`, heights are only laid out when a value wraps, and a color is written only when
 * text is drawn in a color other than the last. pdfkit draws whatever those cannot.
 *
 * Rule: the pen tracks the page's fill color and font, so text is never drawn between
 * `doc.save()` and `doc.restore()` (which would put them back behind its back); shapes are.
 */
import type { ReportRecord } from '../report.js';
import { writeFilledRect, writeFilledRoundedRect, writeLine } from './fast-shapes.js';
import { writeTextLine } from './fast-text.js';
import type { FontName } from './fonts.js';
import { INK, MARGIN, RIGHT, RULE } from './theme.js';
import { floatBelow, wrappedLines } from './wrap.js';

/** A text style: font, size in points, fill color. */
export interface Style {
  font: FontName;
  size: number;
  color: string;
}

/** The document being drawn, with what the page decorations need to put the text style back. */
export interface Pen {
  doc: PDFKit.PDFDocument;
  record: ReportRecord;
  pageNumber: number;
  /** The style the drawing code asked for last (changed in place); the footer puts it back after a page break. */
  style: Style;
  /** The font and size set on the document. */
  font: FontName | null;
  size: number | null;
  /** The fill color in force on the page, or null on a fresh page (whose content starts from defaults). */
  color: string | null;
}

/** A pen on a new document, no page started yet. */
export function createPen(doc: PDFKit.PDFDocument, record: ReportRecord): Pen {
  return { doc, record, pageNumber: 0, style: { font: 'Sans', size: 10, color: INK }, font: null, size: null, color: null };
}

/**
 * Sets the text style. Font and size take effect at once, since text is measured in them; the
 * color only when text is drawn (`ink`), so a style set just to measure writes nothing.
 */
export function setStyle(pen: Pen, font: FontName, size: number, color: string = INK): void {
  const { doc } = pen;
  if (pen.font !== font) {
    doc.font(font);
    pen.font = font;
  }
  if (pen.size !== size) {
    doc.fontSize(size);
    pen.size = size;
  }
  // Changed in place: a style is set twenty times a finding. Who keeps one copies it.
  const { style } = pen;
  style.font = font;
  style.size = size;
  style.color = color;
}

/** The document, ready to draw text in the current style: its color applied if it was not. */
export function ink(pen: Pen): PDFKit.PDFDocument {
  const { color } = pen.style;
  if (pen.color !== color) {
    pen.doc.fillColor(color);
    pen.color = color;
  }
  return pen.doc;
}

/** The width of `text` in the current style. */
export function widthOf(pen: Pen, text: string): number {
  return pen.doc.widthOfString(text);
}

/**
 * Whether `text` surely fits on one line of `width` in the current style. The margin covers the
 * kerning pdfkit's wrapper loses by measuring word by word; within it, the caller wraps.
 */
export function fitsOneLine(pen: Pen, text: string, width: number): boolean {
  return !text.includes('\n') && pen.doc.widthOfString(text) <= width - 2;
}

/** The height `text` takes wrapped to `width` in the current style, laid out only when it wraps. */
export function heightOf(pen: Pen, text: string, width: number, lineGap = 0): number {
  const { doc } = pen;
  if (fitsOneLine(pen, text, width)) return doc.currentLineHeight(true) + lineGap;
  const lines = pen.font === null ? null : wrappedLines(doc, pen.font, text, width);
  if (lines === null) return doc.heightOfString(text, { width, lineGap });
  // Added up line by line from the cursor, as heightOfString does, to the same last bit.
  const step = doc.currentLineHeight(true) + lineGap;
  let y = doc.y;
  for (let i = 0; i < lines.length; i++) y += step;
  return y - doc.y;
}

/** The text cut with an ellipsis to fit `width` in the current style. */
export function fit(pen: Pen, text: string, width: number): string {
  const { doc } = pen;
  if (doc.widthOfString(text) <= width) return text;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (doc.widthOfString(`${text.slice(0, mid)}…`) <= width) low = mid;
    else high = mid - 1;
  }
  return `${text.slice(0, low)}…`;
}

/** One line of text at a point, never wrapped nor moved to a new page; the cursor does not move down. */
export function textAt(pen: Pen, text: string, x: number, y: number): void {
  const { color } = pen.style;
  if (writeTextLine(pen.doc, text, x, y, pen.color === color ? null : color)) pen.color = color;
  else ink(pen).text(text, x, y, { lineBreak: false });
}

/** Text at a point, wrapped to `width` only when it does not fit one line; the caller made room for it. */
export function textIn(pen: Pen, text: string, x: number, y: number, width: number): void {
  if (fitsOneLine(pen, text, width)) textAt(pen, text, x, y);
  else if (!drawLines(pen, text, x, y, width, 0)) ink(pen).text(text, x, y, { width });
}

/**
 * Text wrapped to `width` from (`x`, `y`), drawn line by line as pdfkit draws it, when it all fits
 * above the page end (else pdfkit is left to carry it onto the next page: false, nothing drawn).
 * Leaves the cursor under it, as pdfkit does.
 */
function drawLines(pen: Pen, text: string, x: number, y: number, width: number, lineGap: number): boolean {
  const { doc } = pen;
  const lines = pen.font === null ? null : wrappedLines(doc, pen.font, text, width);
  if (lines === null || lines.length === 0) return false;
  const lineHeight = doc.currentLineHeight(true);
  const step = lineHeight + lineGap;
  let last = y;
  for (let i = 1; i < lines.length; i++) last += step;
  // pdfkit's wrapper starts a new page before any line whose bottom would pass the page end.
  if (last + lineHeight > floatBelow(doc.page.maxY())) return false;
  let top = y;
  for (const line of lines) {
    // pdfkit drops the line break a line may end with, and draws nothing for an empty line.
    const shown = line.includes('\n') ? line.replace(/\n/g, '') : line;
    if (shown.length > 0) textAt(pen, shown, x, top);
    top += step;
  }
  doc.x = x;
  doc.y = top;
  return true;
}

/**
 * Text at the cursor, wrapped to `width` from `x`; pdfkit flows it onto further pages when long.
 * Leaves the cursor under it, as pdfkit's own wrapping does.
 */
export function flowText(pen: Pen, text: string, x: number, width: number, options: { lineGap?: number; link?: string } = {}): void {
  const { doc } = pen;
  const lineGap = options.lineGap ?? 0;
  if (!fitsOneLine(pen, text, width)) {
    // A link is an annotation per line, which pdfkit places.
    if (options.link || !drawLines(pen, text, x, doc.y, width, lineGap)) {
      ink(pen).text(text, x, doc.y, { width, lineGap, ...(options.link ? { link: options.link } : {}) });
    }
    return;
  }
  // One line: what pdfkit's wrapper would do, without running it.
  const lineHeight = doc.currentLineHeight(true);
  ensureSpace(pen, lineHeight);
  const y = doc.y;
  textAt(pen, text, x, y);
  if (options.link) linkTo(pen, x, y, widthOf(pen, text), options.link);
  doc.x = x;
  doc.y = y + lineHeight + lineGap;
}

/**
 * A link to a web address over one line of text, as `doc.link` makes it but with the action inside
 * the annotation rather than an object of its own (a report has thousands of links).
 */
function linkTo(pen: Pen, x: number, y: number, width: number, url: string): void {
  // A String object is what pdfkit writes as a PDF string (a plain one becomes a name).
  const link = { Subtype: 'Link', A: { S: 'URI', URI: new String(url) } };
  pen.doc.annotate(x, y, width, pen.doc.currentLineHeight(), link);
}

/** A new page unless `height` still fits below the cursor. */
export function ensureSpace(pen: Pen, height: number): void {
  if (pen.doc.y + height > pen.doc.page.maxY()) pen.doc.addPage();
}

/** Whether the cursor is at the top of a page (nothing drawn on it yet but the footer). */
export function atPageTop(pen: Pen): boolean {
  return pen.doc.y <= pen.doc.page.margins.top + 1;
}

/** A horizontal hairline across the text width at `y`. */
export function hairline(pen: Pen, y: number, width = 0.5, color = RULE): void {
  if (writeLine(pen.doc, MARGIN, RIGHT, y, width, color)) return;
  pen.doc.save().moveTo(MARGIN, y).lineTo(RIGHT, y).lineWidth(width).strokeColor(color).stroke().restore();
}

/** A filled rectangle, the fill color kept from leaking into the text style. */
export function fillRect(pen: Pen, x: number, y: number, width: number, height: number, color: string): void {
  if (writeFilledRect(pen.doc, x, y, width, height, color)) return;
  pen.doc.save().rect(x, y, width, height).fill(color).restore();
}

/** A filled rectangle with rounded corners, the fill color kept from leaking into the text style. */
export function fillRoundedRect(pen: Pen, x: number, y: number, width: number, height: number, radius: number, color: string): void {
  if (writeFilledRoundedRect(pen.doc, x, y, width, height, radius, color)) return;
  pen.doc.save().roundedRect(x, y, width, height, radius).fill(color).restore();
}
