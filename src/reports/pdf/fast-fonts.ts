/**
 * The report's faces in a document: registered with pdfkit, which embeds a subset of each it drew
 * with, and measured and encoded through the tables of `glyphs.ts`, a character in whichever face
 * has it.
 *
 * Why: pdfkit sets a text in one font, through fontkit's layout engine (shaping, kerning), which
 * costs microseconds a character, measured three times a string; and it knows nothing of fallback
 * fonts. Here each face's `widthOfString` and `encode` are replaced by table reads, and pdfkit's
 * `_fragment`, which every line it draws goes through, is wrapped to draw a line whose characters
 * come from several faces as one run per face on one baseline. Codes are given per character: a
 * glyph that a font uses for two characters (' ' and U+00A0, '-' and the soft hyphen) gets a code
 * for each, so the ToUnicode map copies out each as what it is.
 *
 * Risk: this replaces two methods of pdfkit 0.20's EmbeddedFont objects, wraps a method of the
 * document, and adds glyphs to fontkit 2's subset (`includeGlyph`, and `glyphs` for a second code
 * of a glyph). It is only done when each has exactly the shape expected; otherwise pdfkit draws on
 * its own, the main faces still right and the fallbacks' characters as empty boxes. The report
 * test reads the text of a report back and checks it character for character.
 */
import { isCjk, loadFaces, warnNoCjkFont, type Face } from './fonts.js';
import { chainOf, faceOf, glyphOf, glyphsOf, isReplaced, REPLACEMENT, widthOf, type Chain, type LaidOut } from './glyphs.js';

/** A glyph's placement, as pdfkit's EmbeddedFont.encode gives it. */
interface Position {
  xAdvance: number;
  yAdvance: number;
  xOffset: number;
  yOffset: number;
  advanceWidth: number;
}

/** The parts of pdfkit 0.20's EmbeddedFont read or replaced. */
interface EmbeddedFont {
  id: string;
  ascender: number;
  subset: { glyphs: number[]; mapping: Record<number, number | undefined>; includeGlyph(glyph: number): number };
  widths: number[];
  unicode: number[][];
  widthOfString(text: string, size: number, features?: unknown): number;
  encode(text: string, features?: unknown): [string[], Position[]];
  ref(): unknown;
}

/** A face in one document: pdfkit's font, the face's chain, and the codes given so far. */
export interface DocFace {
  pdf: EmbeddedFont;
  chain: Chain;
  /** The document's faces. */
  state: DocFonts;
  /** The code of each character below U+10000 drawn in this face, -1 before; the others in `astralCodes`. */
  codes: Int32Array;
  astralCodes: Map<number, number>;
}

/** What a document's text needed that the machine's fonts lack, for the note at its end. */
export interface Missing {
  /** The first few characters drawn as U+FFFD. */
  examples: Set<number>;
  /** Whether one of them is CJK and the optional CJK font is not installed. */
  cjk: boolean;
}

/** The report's faces in one document. */
export interface DocFonts {
  doc: PDFKit.PDFDocument;
  faces: Map<Face, DocFace>;
  missing: Missing;
}

/** The parts of a pdfkit 0.20 document `doc.font` sets. */
interface FontState {
  _font: unknown;
  _fontSource: unknown;
  _fontFamily: unknown;
}

const fontsByDoc = new WeakMap<object, DocFonts>();
const docFaceOf = new WeakMap<object, DocFace>();
const MISSING_EXAMPLES = 8;

function isEmbeddedFont(font: Partial<EmbeddedFont> | undefined): font is EmbeddedFont {
  const subset = font?.subset;
  return (
    !!font &&
    typeof font.id === 'string' &&
    typeof font.ascender === 'number' &&
    typeof font.widthOfString === 'function' &&
    typeof font.encode === 'function' &&
    typeof font.ref === 'function' &&
    Array.isArray(font.widths) &&
    Array.isArray(font.unicode) &&
    !!subset &&
    Array.isArray(subset.glyphs) &&
    typeof subset.mapping === 'object' &&
    typeof subset.includeGlyph === 'function'
  );
}

/**
 * Registers the report's main faces with `doc`, under the names of `FontName`, and makes them
 * measure and encode through the tables; the fallbacks are registered when first drawn with. Call
 * once, before drawing.
 */
export function installFonts(doc: PDFKit.PDFDocument): void {
  const { main } = loadFaces();
  const state: DocFonts = { doc, faces: new Map(), missing: { examples: new Set(), cjk: false } };
  for (const face of Object.values(main)) if (!openFace(state, face)) return;
  fontsByDoc.set(doc, state);
  drawFragmentsByFace(doc);
}

/**
 * pdfkit's font for `face` in the document, sped up, made the first time it is needed (a fallback
 * may never be: pdfkit reads a few of a font's tables when it makes one, some 50 ms for the CJK
 * font's the first time in a process). The document's current font is left as it was.
 */
function openFace(state: DocFonts, face: Face): DocFace | null {
  const known = state.faces.get(face);
  if (known) return known;
  const d = state.doc as unknown as FontState;
  const { _font, _fontSource, _fontFamily } = d;
  state.doc.registerFont(face.name, face.font as unknown as string);
  state.doc.font(face.name);
  const pdf = d._font as Partial<EmbeddedFont> | undefined;
  Object.assign(d, { _font, _fontSource, _fontFamily });
  if (!isEmbeddedFont(pdf)) return null;
  const { fallbacks } = loadFaces();
  const docFace: DocFace = { pdf, chain: chainOf(face, fallbacks), state, codes: new Int32Array(0x10000).fill(-1), astralCodes: new Map() };
  state.faces.set(face, docFace);
  docFaceOf.set(pdf, docFace);
  speedUp(state, docFace);
  return docFace;
}

/** The document's face for face `index` of the chain of `face`; null when it cannot be had. */
export function faceAt(face: DocFace, index: number): DocFace | null {
  return index === 0 ? face : openFace(face.state, face.chain.faces[index]!);
}

/** The characters of the document that no font had, so far. */
export function missingCharacters(doc: PDFKit.PDFDocument): Missing | null {
  return fontsByDoc.get(doc)?.missing ?? null;
}

function noteMissing(missing: Missing, codePoint: number): void {
  if (missing.examples.size < MISSING_EXAMPLES) missing.examples.add(codePoint);
  if (!missing.cjk && isCjk(codePoint) && !loadFaces().cjk) {
    missing.cjk = true;
    warnNoCjkFont();
  }
}

/** The code of a character in a face of the document, given on first use. */
function codeOf(face: DocFace, codePoint: number, glyph: number, width: number): number {
  let code = codePoint < 0x10000 ? face.codes[codePoint]! : (face.astralCodes.get(codePoint) ?? -1);
  if (code >= 0) return code;
  const { subset, unicode, widths } = face.pdf;
  code = subset.mapping[glyph] ?? -1;
  if (code < 0) {
    code = subset.includeGlyph(glyph);
  } else if (unicode[code]?.length !== 1 || unicode[code]![0] !== codePoint) {
    // The glyph stands for another character already: a code of its own for this one.
    subset.glyphs.push(glyph);
    code = subset.glyphs.length - 1;
  }
  widths[code] ??= width;
  unicode[code] ??= [codePoint];
  if (codePoint < 0x10000) face.codes[codePoint] = code;
  else face.astralCodes.set(codePoint, code);
  return code;
}

function speedUp(state: DocFonts, face: DocFace): void {
  const { pdf, chain } = face;
  pdf.widthOfString = (text: string, size: number): number => widthOf(chain, `${text}`) * (size / 1000);
  // pdfkit's own drawing calls this with text in this face alone (`drawFragmentsByFace` splits it).
  pdf.encode = (text: string): [string[], Position[]] => {
    const glyphs = glyphsOf(chain, `${text}`);
    const encoded = new Array<string>(glyphs.length);
    const positions = new Array<Position>(glyphs.length);
    for (let i = 0; i < glyphs.length; i++) {
      const entry = glyphs.entries[i]!;
      let width = glyphs.widths[i]!;
      let code: number;
      if (faceOf(entry) !== 0) {
        // A character of another face, drawn here only if a caller did not split the line.
        width = pdf.widths[0]!;
        code = codeOf(face, REPLACEMENT, 0, width);
      } else {
        code = codeOf(face, shownCodePoint(state, entry, glyphs.codePoints[i]!), glyphOf(entry), width);
      }
      encoded[i] = code.toString(16).padStart(4, '0');
      positions[i] = { xAdvance: width, yAdvance: 0, xOffset: 0, yOffset: 0, advanceWidth: width };
    }
    return [encoded, positions];
  };
}

/** The character a glyph shows: its own, or U+FFFD (noted) for one no face has. */
function shownCodePoint(state: DocFonts, entry: number, codePoint: number): number {
  if (!isReplaced(entry)) return codePoint;
  if (codePoint !== REPLACEMENT) noteMissing(state.missing, codePoint);
  return REPLACEMENT;
}

/** The report's face of the document's current font, or null when it is not one. */
export function currentFace(doc: PDFKit.PDFDocument): DocFace | null {
  const current = (doc as unknown as { _font?: object })._font;
  return (current && docFaceOf.get(current)) ?? null;
}

/**
 * The code of glyph `i` of `glyphs` in `target`, the face its entry names, given on first use; a
 * character no face has is noted.
 */
export function codeOfGlyph(target: DocFace, glyphs: LaidOut, i: number): number {
  const entry = glyphs.entries[i]!;
  return codeOf(target, shownCodePoint(target.state, entry, glyphs.codePoints[i]!), glyphOf(entry), glyphs.widths[i]!);
}

/** The parts of a pdfkit 0.20 document read or wrapped here. */
interface FragmentInternals {
  _fragment(text: string, x: number, y: number, options: FragmentOptions): void;
  _font: object;
  _fontSize: number;
}

interface FragmentOptions {
  align?: string;
  baseline?: unknown;
  wordSpacing?: number;
  characterSpacing?: number;
  textWidth?: number;
  wordCount?: number;
}

/**
 * Wraps pdfkit's `_fragment` (one line's worth of text at a point, in the current font) so that a
 * line with characters of other faces is drawn as one fragment per face, one after the other on
 * the baseline of the line's own face. Left-aligned text only (the report aligns text right by
 * placing it itself); other text is drawn in the line's face alone.
 */
function drawFragmentsByFace(doc: PDFKit.PDFDocument): void {
  const d = doc as unknown as Partial<FragmentInternals>;
  if (typeof d._fragment !== 'function') return;
  const fragment = d._fragment.bind(doc);
  const internals = d as FragmentInternals;
  internals._fragment = (value, x, y, options) => {
    const text = `${value}`.replace(/\n/g, '');
    const face = docFaceOf.get(internals._font);
    const runs = face && !options.wordSpacing && (options.align ?? 'left') === 'left' ? splitByFace(face, text) : null;
    if (!face || !runs || runs.length === 0 || (runs.length === 1 && runs[0]!.face === face)) return fragment(text, x, y, options);
    const size = internals._fontSize;
    const spacing = options.characterSpacing ?? 0;
    // Each fragment is placed by its own font's ascender; the line's face sets the baseline.
    const top = options.baseline === undefined || options.baseline === 'top';
    let left = x;
    try {
      for (const run of runs) {
        internals._font = run.face.pdf;
        const shift = top ? ((face.pdf.ascender - run.face.pdf.ascender) / 1000) * size : 0;
        fragment(run.text, left, y + shift, { ...options, textWidth: undefined, wordCount: undefined });
        left += run.face.pdf.widthOfString(run.text, size) + spacing * [...run.text].length;
      }
    } finally {
      internals._font = face.pdf;
    }
  };
}

/**
 * `text` cut where the face of its characters changes (an ignorable character stays with the one
 * before it); null when a face cannot be had.
 */
function splitByFace(face: DocFace, text: string): { face: DocFace; text: string }[] | null {
  const runs: { face: DocFace; text: string }[] = [];
  const glyphs = glyphsOf(face.chain, text);
  let runFace: DocFace | null = null;
  let start = 0;
  let offset = 0;
  for (let i = 0; i < glyphs.length; i++) {
    const codePoint = glyphs.codePoints[i]!;
    const at = text.indexOf(String.fromCodePoint(codePoint), offset);
    const target = faceAt(face, faceOf(glyphs.entries[i]!));
    if (!target) return null;
    if (target !== runFace) {
      if (runFace) runs.push({ face: runFace, text: text.slice(start, at) });
      runFace = target;
      start = at;
    }
    offset = at + (codePoint > 0xffff ? 2 : 1);
  }
  if (runFace) runs.push({ face: runFace, text: text.slice(start) });
  return runs;
}
