/**
 * Wrapped text as lines, broken exactly where pdfkit's line wrapper breaks them, laid out once per
 * document for each string, font, size and width.
 *
 * Why: a finding's prose repeats across findings (one rule reported on many hosts has one
 * description and one solution), and pdfkit lays a paragraph out anew each time it measures it
 * and again when it draws it: on a 10,000-finding report that was a tenth of the time. With the
 * lines known, each is drawn by `fast-text.ts` like any single line.
 *
 * Risk: the lines come from pdfkit's own wrapper, run as `heightOfString` runs it, through the
 * document's internal `_text` (pdfkit 0.20); without it, or while a `continued` text is under way,
 * there are no lines and the caller draws with pdfkit. The cache lives as long as the document
 * and is bounded (`CACHE_CHARS`), so a report's text is neither kept after it nor piled up in it.
 */

/** The parts of a pdfkit 0.20 document read here. */
interface TextInternals {
  _text(text: string, x: number, y: number, options: object, lineCallback: (line: string) => void): unknown;
  _wrapper: unknown;
  _textOptions: unknown;
  _fontSize: number;
}

/** Characters of text held in a document's cache before it is emptied: a few megabytes at most. */
const CACHE_CHARS = 1_000_000;

/** Lines by text, for each font, size and width (the keys of the maps, in that order). */
interface Cache {
  lines: Map<string, Map<number, Map<number, Map<string, string[]>>>>;
  chars: number;
}

const cacheByDoc = new WeakMap<object, Cache>();

function layOut(doc: PDFKit.PDFDocument, text: string, width: number): string[] | null {
  const d = doc as unknown as Partial<TextInternals>;
  if (typeof d._text !== 'function' || d._wrapper || d._textOptions) return null;
  const { x, y } = doc;
  const lines: string[] = [];
  try {
    // As heightOfString does: no height limit, so the wrapper never starts a page.
    d._text(text, x, y, { width, height: Infinity }, (line) => void lines.push(line));
  } finally {
    doc.x = x;
    doc.y = y;
  }
  return lines;
}

/**
 * The lines `text` wraps to at `width` in the document's current font (named `font`) and size, as
 * pdfkit's wrapper gives them (a line may keep a trailing space or line break, which draw nothing);
 * null when they cannot be had here.
 */
export function wrappedLines(doc: PDFKit.PDFDocument, font: string, text: string, width: number): string[] | null {
  const size = (doc as unknown as Partial<TextInternals>)._fontSize;
  if (typeof size !== 'number') return null;
  let cache = cacheByDoc.get(doc);
  if (!cache) cacheByDoc.set(doc, (cache = { lines: new Map(), chars: 0 }));
  if (cache.chars > CACHE_CHARS) {
    cache.lines.clear();
    cache.chars = 0;
  }
  const byText = subMap(subMap(subMap(cache.lines, font), size), width);
  let lines = byText.get(text);
  if (lines === undefined) {
    const laidOut = layOut(doc, text, width);
    if (laidOut === null) return null;
    byText.set(text, (lines = laidOut));
    cache.chars += text.length;
  }
  return lines;
}

function subMap<K, V extends Map<unknown, unknown>>(map: Map<K, V>, key: K): V {
  let sub = map.get(key);
  if (sub === undefined) map.set(key, (sub = new Map() as V));
  return sub;
}

// pdfkit compares positions with the page end as 32-bit floats rounded down (its PDFNumber).
const single = new Float32Array(1);
const singleBits = new Uint32Array(single.buffer);

/** The largest 32-bit float not above `n`, as pdfkit's PDFNumber gives it. */
export function floatBelow(n: number): number {
  const rounded = Math.fround(n);
  if (rounded <= n) return rounded;
  single[0] = n;
  singleBits[0] = singleBits[0]! + (n <= 0 ? 1 : -1);
  return single[0]!;
}
