/**
 * One line of text written into the page as pdfkit would write it, at a fraction of the cost.
 *
 * Why: for each call of `doc.text`, pdfkit sets up options, measures the string twice, encodes it
 * into an object per glyph, and writes eight content operators one by one, each turned into bytes
 * on its own (and two more for each color change). A 10,000-finding report makes well over a hundred
 * thousand such calls; with the fonts sped up, profiling still put that machinery at 40% of the time. Here a line is written as
 * one buffer of the operators pdfkit writes, built from the glyph tables of `fast-fonts.ts`, and
 * leaner: no save / transform / restore around it (they cancel out), the font set only when it
 * changes, the glyphs as a literal string rather than hex (the page's content is half glyphs, and
 * pdfkit compresses it all).
 *
 * Risk: this writes into pdfkit 0.20's page content and reads a few of its internals (the current
 * font and size, the transformation matrix, the page's font resources). It is only taken when the
 * current font was sped up by `fast-fonts.ts`, the page's coordinates are pdfkit's plain ones and
 * the document has exactly the shape expected; otherwise the caller draws with `doc.text`. The
 * sample report renders to the same pixels either way.
 */
import { glyphRun } from './fast-fonts.js';

/** The parts of a pdfkit 0.20 document read or written here. */
interface DocumentInternals {
  _font: { id: string; ascender: number; ref(): unknown };
  _fontSize: number;
  _ctm: number[];
  page: { height: number; fonts: Record<string, unknown>; write(chunk: Uint8Array): unknown };
}

/** The document's internals, when it has the expected shape and pdfkit's top-down page coordinates. */
function internalsOf(doc: PDFKit.PDFDocument): DocumentInternals | null {
  const d = doc as unknown as Partial<DocumentInternals>;
  const { _font: font, page, _ctm: ctm } = d;
  if (!font || typeof font.id !== 'string' || typeof font.ascender !== 'number' || typeof font.ref !== 'function') return null;
  if (typeof d._fontSize !== 'number' || !page || typeof page.height !== 'number' || typeof page.write !== 'function' || !page.fonts) return null;
  // Drawn only in pdfkit's page coordinates (y down from the top), not inside a transform.
  const plain = Array.isArray(ctm) && ctm.length === 6 && ctm[0] === 1 && ctm[1] === 0 && ctm[2] === 0 && ctm[3] === -1 && ctm[4] === 0 && ctm[5] === page.height;
  return plain ? (d as DocumentInternals) : null;
}

/** pdfkit's number format in content streams: at most six decimals. */
function num(n: number): string {
  return String(Math.round(n * 1e6) / 1e6);
}

const rgbByColor = new Map<string, string>();

/** '#1f2933' as the operator setting it as the fill color, or null for anything but #rrggbb. */
function fillOperator(color: string): string | null {
  let operator = rgbByColor.get(color);
  if (operator === undefined) {
    if (!/^#[0-9a-f]{6}$/i.test(color)) return null;
    const value = parseInt(color.slice(1), 16);
    operator = `${[value >> 16, (value >> 8) & 0xff, value & 0xff].map((part) => num(part / 255)).join(' ')} rg\n`;
    rgbByColor.set(color, operator);
  }
  return operator;
}

const [OPEN, CLOSE, BACKSLASH] = [0x28, 0x29, 0x5c];
// The content of the line being written; reused, and copied out once written.
let bytes = Buffer.allocUnsafe(16 * 1024);
// The font operator last written on each page: the font stays set until the page ends (pdfkit's own
// text sets its font between save and restore, which puts this one back).
const fontOnPage = new WeakMap<object, string>();

/**
 * Writes `text` on one line with its top-left corner at (`x`, `y`), in the document's current font
 * and size, as `doc.text(text, x, y, { lineBreak: false })` draws it; `color`, when given, is set as
 * the page's fill color first (and stays set, as `doc.fillColor` leaves it). Returns false, having
 * written nothing, when that cannot be done here: the caller then uses pdfkit.
 */
export function writeTextLine(doc: PDFKit.PDFDocument, text: string, x: number, y: number, color: string | null): boolean {
  if (text.length === 0) return color === null;
  const internals = internalsOf(doc);
  const fill = color === null ? '' : fillOperator(color);
  const run = internals && fill !== null && !text.includes('\n') ? glyphRun(doc, text) : null;
  if (!internals || fill === null || !run) return false;
  const { codes, length, kern } = run;
  // Control codes would need escapes in a string; text that passed `pdfText` has none.
  for (let i = 0; i < length; i++) if (codes[i]! < 0x20) return false;

  const { _font: font, _fontSize: size, page } = internals;
  page.fonts[font.id] ??= font.ref();
  let fontOperator = `/${font.id} ${num(size)} Tf\n`;
  if (fontOnPage.get(page) === fontOperator) fontOperator = '';
  else fontOnPage.set(page, fontOperator);
  // In the page's top-down coordinates the text matrix flips back, to draw glyphs upright.
  const baseline = y + (font.ascender / 1000) * size;
  const head = `${fill}BT\n${fontOperator}1 0 0 -1 ${num(x)} ${num(baseline)} Tm\n[(`;
  if (bytes.length < head.length + 16 * length + 32) bytes = Buffer.allocUnsafe(2 * (head.length + 16 * length + 32));
  let at = bytes.write(head, 0, 'latin1');
  for (let i = 0; i < length; i++) {
    // The codes as a literal string, half the bytes of pdfkit's hex ones.
    const code = codes[i]!;
    if (code === OPEN || code === CLOSE || code === BACKSLASH) bytes[at++] = BACKSLASH;
    bytes[at++] = code;
    // Like pdfkit, a new string wherever a kerning pair moves the next glyph.
    const kerning = i + 1 < length ? kern[code * 256 + codes[i + 1]!]! : 0;
    if (kerning !== 0) at += bytes.write(`) ${-kerning} (`, at, 'latin1');
  }
  at += bytes.write(')] TJ\nET\n', at, 'latin1');
  page.write(Buffer.from(bytes.subarray(0, at)));
  return true;
}
