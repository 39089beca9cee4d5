/**
 * One line of text written into the page as pdfkit would write it, at a fraction of the cost.
 *
 * Why: for each call of `doc.text`, pdfkit sets up options, measures the string twice, encodes it
 * into an object per glyph, and writes eight content operators one by one, each turned into bytes
 * on its own (and two more for each color change). A 10,000-finding report makes well over a
 * hundred thousand such calls; with the fonts sped up, profiling still put that machinery at 40%
 * of the time. Here a line is one string of operators, built from the codes `fast-fonts.ts` gives
 * (one string per face the line takes, on one baseline) and gathered with the rest of the page by
 * `fast-content.ts`, and leaner: no save / transform / restore around it (they cancel out), the
 * font set only when it changes, the codes as a literal string rather than hex (the page's content
 * is half glyphs, and it is all compressed).
 *
 * Risk: this writes into pdfkit 0.20's page content and reads a few of its internals (the current
 * font and size, the transformation matrix, the page's font resources). It is only taken when the
 * current font is one of the report's faces set up by `fast-fonts.ts`, the page's coordinates are
 * pdfkit's plain ones and the document has exactly the shape expected; otherwise the caller draws
 * with `doc.text`, which gives the same glyphs at the same places.
 */
import { appendContent, colorOperator, num } from './fast-content.js';
import { codeOfGlyph, currentFace, faceAt, type DocFace } from './fast-fonts.js';
import { faceOf, glyphsOf } from './glyphs.js';

/** The parts of a pdfkit 0.20 document read or written here. */
interface DocumentInternals {
  _font: { id: string; ascender: number; ref(): unknown };
  _fontSize: number;
  _ctm: number[];
  page: { height: number; fonts: Record<string, unknown> };
}

/** The document's internals, when it has the expected shape and pdfkit's top-down page coordinates. */
function internalsOf(doc: PDFKit.PDFDocument): DocumentInternals | null {
  const d = doc as unknown as Partial<DocumentInternals>;
  const { _font: font, page, _ctm: ctm } = d;
  if (!font || typeof font.id !== 'string' || typeof font.ascender !== 'number' || typeof font.ref !== 'function') return null;
  if (typeof d._fontSize !== 'number' || !page || typeof page.height !== 'number' || !page.fonts) return null;
  // Drawn only in pdfkit's page coordinates (y down from the top), not inside a transform.
  const plain = Array.isArray(ctm) && ctm.length === 6 && ctm[0] === 1 && ctm[1] === 0 && ctm[2] === 0 && ctm[3] === -1 && ctm[4] === 0 && ctm[5] === page.height;
  return plain ? (d as DocumentInternals) : null;
}

// The font operator last written on each page: the font stays set until the page ends (pdfkit's own
// text sets its font between save and restore, which puts this one back).
const fontOnPage = new WeakMap<object, string>();

// The operators setting a font and size, by font id and size: made once for each.
const fontOperators = new Map<string, Map<number, string>>();

function fontOperatorOf(id: string, size: number): string {
  let bySize = fontOperators.get(id);
  if (!bySize) fontOperators.set(id, (bySize = new Map()));
  let operator = bySize.get(size);
  if (operator === undefined) bySize.set(size, (operator = `/${id} ${num(size)} Tf\n`));
  return operator;
}

/** A stretch of a line in one face: the face, and its codes as the inside of a PDF literal string. */
interface GlyphRun {
  face: DocFace;
  bytes: string;
}

// The bytes of the runs being made; reused, since every call is synchronous.
let scratch = Buffer.alloc(4096);
const [OPEN, CLOSE, BACKSLASH, LF, CR] = [0x28, 0x29, 0x5c, 0x0a, 0x0d];
/** The byte after a backslash for the bytes a literal string must escape, 0 for the others. */
const ESCAPE = new Uint8Array(256);
ESCAPE[OPEN] = OPEN;
ESCAPE[CLOSE] = CLOSE;
ESCAPE[BACKSLASH] = BACKSLASH;
ESCAPE[LF] = 0x6e; // n
ESCAPE[CR] = 0x72; // r

function putByte(at: number, byte: number): number {
  const escape = ESCAPE[byte]!;
  if (escape === 0) {
    scratch[at] = byte;
    return at + 1;
  }
  scratch[at] = BACKSLASH;
  scratch[at + 1] = escape;
  return at + 2;
}

/**
 * `text` in the document's current face as runs of codes, one per face it takes; null when the
 * current font is not one of the report's faces.
 */
function glyphRuns(doc: PDFKit.PDFDocument, text: string): GlyphRun[] | null {
  const face = currentFace(doc);
  if (!face) return null;
  const glyphs = glyphsOf(face.chain, text);
  if (scratch.length < 4 * glyphs.length) scratch = Buffer.alloc(8 * glyphs.length);
  const runs: GlyphRun[] = [];
  let runFace = face;
  let start = 0;
  let at = 0;
  for (let i = 0; i < glyphs.length; i++) {
    const target = faceAt(face, faceOf(glyphs.entries[i]!));
    if (!target) return null;
    if (target !== runFace) {
      if (at > start) runs.push({ face: runFace, bytes: scratch.toString('latin1', start, at) });
      runFace = target;
      start = at;
    }
    const code = codeOfGlyph(target, glyphs, i);
    at = putByte(putByte(at, code >>> 8), code & 0xff);
  }
  if (at > start) runs.push({ face: runFace, bytes: scratch.toString('latin1', start, at) });
  return runs;
}

/** Characters of text whose glyphs a font keeps before they are dropped: a few megabytes at most. */
const GLYPHS_CHARS = 1_000_000;
// The glyphs of the lines written in each font (so, each document): labels, evidence and the lines
// of prose repeat from finding to finding. A line all in its own face, nearly every line, is kept
// as the bytes of its one run.
const glyphsByFont = new WeakMap<object, { glyphs: Map<string, string | GlyphRun[]>; chars: number }>();

/** The glyphs of `text` in the document's current font `font`, or null when they cannot be written here. */
function runsOf(doc: PDFKit.PDFDocument, font: object, text: string): string | GlyphRun[] | null {
  let known = glyphsByFont.get(font);
  if (!known) glyphsByFont.set(font, (known = { glyphs: new Map(), chars: 0 }));
  let runs = known.glyphs.get(text);
  if (runs === undefined) {
    const made = glyphRuns(doc, text);
    if (!made) return null;
    if (known.chars + text.length > GLYPHS_CHARS) {
      known.glyphs.clear();
      known.chars = 0;
    }
    runs = made.length === 0 ? '' : made.length === 1 && made[0]!.face.pdf === font ? made[0]!.bytes : made;
    known.glyphs.set(text, runs);
    known.chars += text.length;
  }
  return runs;
}

/**
 * Writes `text` on one line with its top-left corner at (`x`, `y`), in the document's current font
 * and size, as `doc.text(text, x, y, { lineBreak: false })` draws it; `color`, when given, is set as
 * the page's fill color first (and stays set, as `doc.fillColor` leaves it). Returns false, having
 * written nothing, when that cannot be done here: the caller then uses pdfkit.
 */
export function writeTextLine(doc: PDFKit.PDFDocument, text: string, x: number, y: number, color: string | null): boolean {
  if (text.length === 0) return color === null;
  const internals = internalsOf(doc);
  const fill = color === null ? '' : colorOperator(color, 'rg');
  // pdfkit drops line breaks; text that passed `pdfText` has none on one line.
  const runs = internals && fill !== null && !text.includes('\n') ? runsOf(doc, internals._font, text) : null;
  if (!internals || fill === null || runs === null) return false;

  const { _font: font, _fontSize: size, page } = internals;
  let fontOperator = fontOnPage.get(page);
  // One string per face: each moves the text position on by its glyphs' widths, so the next
  // follows it on the line.
  let shown = '';
  const count = typeof runs === 'string' ? 1 : runs.length;
  for (let i = 0; i < count; i++) {
    const [runFont, bytes] = typeof runs === 'string' ? [font, runs] : [runs[i]!.face.pdf, runs[i]!.bytes];
    const operator = fontOperatorOf(runFont.id, size);
    if (operator !== fontOperator) shown += fontOperator = operator;
    shown += `(${bytes}) Tj\n`;
    page.fonts[runFont.id] ??= runFont.ref();
  }
  // In the page's top-down coordinates the text matrix flips back, to draw glyphs upright.
  const baseline = y + (font.ascender / 1000) * size;
  if (!appendContent(doc, `${fill}BT\n1 0 0 -1 ${num(x)} ${num(baseline)} Tm\n${shown}ET\n`)) return false;
  if (fontOperator !== undefined) fontOnPage.set(page, fontOperator);
  return true;
}
