/**
 * Faster text measuring and encoding for pdfkit's standard fonts, with the same results.
 *
 * Why: pdfkit walks every string it draws three times (it measures it twice and encodes it once),
 * and for the standard fonts each character costs a glyph-name lookup, a width lookup and a
 * kerning lookup that builds the string `left + '\0' + right` to index an object of a thousand
 * keys. On a 10,000-finding report that was about a third of all the time (24 s down to 16 s with
 * this alone). Here a font's metrics are laid out once per process as arrays indexed by WinAnsi
 * code, so a character costs a few array reads.
 *
 * Risk: this replaces two methods of a pdfkit internal object (the document's `_font`, a
 * StandardFont of pdfkit 0.20). The tables are computed from that font's own data and methods,
 * strings with a character outside them fall back to the original methods, and the replacement is
 * only installed when the font has exactly the shape expected; on any other shape the font is left
 * alone, which is slower but still right. The report test checks that widths and encodings match
 * an untouched font.
 */

/** The parts of pdfkit's AFMFont (pdfkit 0.20) read here. */
interface AfmFont {
  name: string;
  kernPairs: Record<string, number>;
  encodeText(text: string): string[];
  characterToGlyph(code: number): string;
  widthOfGlyph(glyph: string): number;
}

/** A glyph's placement, as pdfkit's StandardFont.encode gives it. */
interface Position {
  xAdvance: number;
  yAdvance: number;
  xOffset: number;
  yOffset: number;
  advanceWidth: number;
}

/** The parts of pdfkit's StandardFont (pdfkit 0.20) replaced or read. */
interface StandardFont {
  font: AfmFont;
  widthOfString(text: string, size: number, features?: unknown): number;
  encode(text: string, features?: unknown): [string[], Position[]];
}

/** A standard font's metrics by WinAnsi code (0-255): width, hex code, and kerning by pair. */
interface Metrics {
  /** WinAnsi code of each UTF-16 code unit below 0x2200; -1 for none or a control code (the original methods handle it). */
  codeOf: Int16Array;
  width: Float64Array;
  hex: string[];
  /** Kerning of the pair (left, right) at `left * 256 + right`. */
  kern: Float64Array;
}

const CODE_UNITS = 0x2200; // past the last WinAnsi character (U+2122, trade mark)
// The standard fonts' data never changes, so their metrics are laid out once per process.
const metricsByFont = new Map<string, Metrics>();
const accelerated = new WeakMap<object, Metrics>();

function standardFontOf(doc: PDFKit.PDFDocument): StandardFont | null {
  const font = (doc as unknown as { _font?: Partial<StandardFont> })._font;
  const afm = font?.font as Partial<AfmFont> | undefined;
  if (!font || !afm || typeof afm.name !== 'string' || typeof afm.kernPairs !== 'object' || afm.kernPairs === null) return null;
  if (typeof font.widthOfString !== 'function' || typeof font.encode !== 'function') return null;
  const methods = ['encodeText', 'characterToGlyph', 'widthOfGlyph'] as const;
  return methods.every((name) => typeof afm[name] === 'function') ? (font as StandardFont) : null;
}

function layOut(afm: AfmFont): Metrics {
  const codeOf = new Int16Array(CODE_UNITS).fill(-1);
  // Every code unit at once: encodeText maps each character on its own.
  const units = Array.from({ length: CODE_UNITS }, (_, unit) => String.fromCharCode(unit)).join('');
  afm.encodeText(units).forEach((hex, unit) => {
    const code = parseInt(hex, 16);
    // Control characters are left to pdfkit too: they need escapes when written, and are rare.
    if (code >= 0x20 && code < 256) codeOf[unit] = code;
  });
  const width = new Float64Array(256);
  const hex: string[] = [];
  const codesOfGlyph = new Map<string, number[]>();
  for (let code = 0; code < 256; code++) {
    const glyph = afm.characterToGlyph(code);
    width[code] = afm.widthOfGlyph(glyph);
    hex[code] = code.toString(16);
    codesOfGlyph.set(glyph, (codesOfGlyph.get(glyph) ?? []).concat(code));
  }
  const kern = new Float64Array(256 * 256);
  for (const [pair, amount] of Object.entries(afm.kernPairs)) {
    const [left, right] = pair.split('\0') as [string, string];
    for (const l of codesOfGlyph.get(left) ?? []) for (const r of codesOfGlyph.get(right) ?? []) kern[l * 256 + r] = amount;
  }
  return { codeOf, width, hex, kern };
}

// The codes of the string being measured or encoded; reused, since every call is synchronous.
let codes = new Int16Array(1024);
// The string `codes` holds the codes of, and the font: most strings are measured, then written
// (`fast-text.ts`), and are walked once.
let codesText: string | null = null;
let codesMetrics: Metrics | null = null;

/** Puts the WinAnsi codes of `text` in `codes`; false when a character has none (left to pdfkit's own methods). */
function toCodes(metrics: Metrics, text: string): boolean {
  if (text === codesText && metrics === codesMetrics) return true;
  codesText = null;
  const { codeOf } = metrics;
  if (codes.length < text.length) codes = new Int16Array(2 * text.length);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const code = unit < CODE_UNITS ? codeOf[unit]! : -1;
    if (code < 0) return false;
    codes[i] = code;
  }
  codesText = text;
  codesMetrics = metrics;
  return true;
}

/**
 * Speeds up the document's current font when it is one of pdfkit's standard fonts; call it after
 * each `doc.font(...)`. Idempotent and cheap once a font is done.
 */
export function accelerateCurrentFont(doc: PDFKit.PDFDocument): void {
  const current = (doc as unknown as { _font?: object })._font;
  if (current && accelerated.has(current)) return;
  const font = standardFontOf(doc);
  if (!font) return;
  let metrics = metricsByFont.get(font.font.name);
  if (!metrics) metricsByFont.set(font.font.name, (metrics = layOut(font.font)));
  accelerated.set(font, metrics);
  const { width, hex, kern } = metrics;
  const slowWidth = font.widthOfString.bind(font);
  const slowEncode = font.encode.bind(font);

  font.widthOfString = (value: string, size: number, features?: unknown): number => {
    const text = `${value}`;
    if (!toCodes(metrics, text)) return slowWidth(text, size, features);
    // Widths and kerning are whole units of 1/1000 em, so the sum is exact in any order.
    let total = 0;
    const last = text.length - 1;
    for (let i = 0; i < last; i++) total += width[codes[i]!]! + kern[codes[i]! * 256 + codes[i + 1]!]!;
    if (last >= 0) total += width[codes[last]!]!;
    return total * (size / 1000);
  };
  font.encode = (value: string, features?: unknown): [string[], Position[]] => {
    const text = `${value}`;
    if (!toCodes(metrics, text)) return slowEncode(text, features);
    const encoded = new Array<string>(text.length);
    const positions = new Array<Position>(text.length);
    for (let i = 0; i < text.length; i++) {
      const code = codes[i]!;
      const advanceWidth = width[code]!;
      const kerning = i + 1 < text.length ? kern[code * 256 + codes[i + 1]!]! : 0;
      encoded[i] = hex[code]!;
      positions[i] = { xAdvance: advanceWidth + kerning, yAdvance: 0, xOffset: 0, yOffset: 0, advanceWidth };
    }
    return [encoded, positions];
  };
}

/** The WinAnsi codes of a string and the kerning of its font, for writing it into the page. */
export interface GlyphRun {
  /** The codes, in the first `length` entries (the array is reused by the next call). */
  codes: Int16Array;
  length: number;
  /** Kerning of the pair (left, right) at `left * 256 + right`, in 1/1000 em. */
  kern: Float64Array;
}

/**
 * `text` as WinAnsi codes of the document's current font, or null when the font is not one sped up
 * here or a character is outside its tables.
 */
export function glyphRun(doc: PDFKit.PDFDocument, text: string): GlyphRun | null {
  const font = (doc as unknown as { _font?: object })._font;
  const metrics = font && accelerated.get(font);
  if (!metrics || !toCodes(metrics, text)) return null;
  return { codes, length: text.length, kern: metrics.kern };
}
