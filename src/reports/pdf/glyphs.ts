/**
 * Which face draws each character of a text, as which glyph and how wide: the face the text is
 * set in when it has the character, else the first fallback that has it, else U+FFFD (from the
 * first face of the chain that has that, else the set face's empty glyph, .notdef). Characters
 * that draw nothing by definition (Default_Ignorable_Code_Point: joiners, variation selectors,
 * bidirectional controls, the soft hyphen) are left out, with no width.
 *
 * Why tables: a report measures and writes every character several times (pdfkit's wrapper
 * measures word by word), and fontkit's lookups cost microseconds each. A chain's answers are laid
 * out once per process as arrays indexed by UTF-16 code unit, filled as characters are first met,
 * so a character costs a few array reads. No kerning nor shaping: widths are the glyphs' advances,
 * which the same tables give to measuring and to writing, so lines break where they are drawn.
 */
import type { Face } from './fonts.js';

// An entry packs the glyph id (16 bits), the index of its face in the chain and two flags.
const GLYPH = 0xffff;
const FACE_SHIFT = 16;
const FACE = 0xf << FACE_SHIFT;
/** The character had no glyph in any face: its entry draws U+FFFD. */
const REPLACED = 1 << 20;
/** The character draws nothing. */
const IGNORED = 1 << 21;
const KNOWN = 1 << 22;

/** U+FFFD, drawn for a character no face has. */
export const REPLACEMENT = 0xfffd;
const IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u;

/** A face with its fallbacks, and the entries of the characters met so far. */
export interface Chain {
  /** The face the text is set in, then the fallbacks in order. */
  faces: Face[];
  /** Entry of each code point below 0x10000 (0: not looked up yet). */
  entries: Int32Array;
  /** Width of each, in thousandths of an em. */
  widths: Float64Array;
  astralEntries: Map<number, number>;
  astralWidths: Map<number, number>;
}

const chains = new WeakMap<Face, Chain>();

/** The chain of `face` followed by `fallbacks`, made once per process for each face. */
export function chainOf(face: Face, fallbacks: readonly Face[]): Chain {
  let chain = chains.get(face);
  if (!chain) {
    const faces = [face, ...fallbacks.filter((fallback) => fallback !== face)];
    chain = { faces, entries: new Int32Array(0x10000), widths: new Float64Array(0x10000), astralEntries: new Map(), astralWidths: new Map() };
    chains.set(face, chain);
  }
  return chain;
}

/** The face index of an entry. */
export function faceOf(entry: number): number {
  return (entry & FACE) >>> FACE_SHIFT;
}

/** The glyph id of an entry. */
export function glyphOf(entry: number): number {
  return entry & GLYPH;
}

/** Whether an entry stands in, as U+FFFD, for a character no face has. */
export function isReplaced(entry: number): boolean {
  return (entry & REPLACED) !== 0;
}

/** The entry of a code point, looked up the first time. */
function entryOf(chain: Chain, codePoint: number): number {
  const known = codePoint < 0x10000 ? chain.entries[codePoint]! : (chain.astralEntries.get(codePoint) ?? 0);
  if (known !== 0) return known;
  const [entry, width] = resolve(chain, codePoint);
  if (codePoint < 0x10000) {
    chain.entries[codePoint] = entry;
    chain.widths[codePoint] = width;
  } else {
    chain.astralEntries.set(codePoint, entry);
    chain.astralWidths.set(codePoint, width);
  }
  return entry;
}

/** The width of a code point whose entry was looked up. */
function widthAt(chain: Chain, codePoint: number): number {
  return codePoint < 0x10000 ? chain.widths[codePoint]! : chain.astralWidths.get(codePoint)!;
}

function resolve(chain: Chain, codePoint: number): [entry: number, width: number] {
  if (IGNORABLE.test(String.fromCodePoint(codePoint))) return [KNOWN | IGNORED, 0];
  for (let i = 0; i < chain.faces.length; i++) {
    const { font, scale } = chain.faces[i]!;
    if (!font.hasGlyphForCodePoint(codePoint)) continue;
    const glyph = font.glyphForCodePoint(codePoint);
    return [KNOWN | (i << FACE_SHIFT) | glyph.id, glyph.advanceWidth * scale];
  }
  if (codePoint === REPLACEMENT) {
    const { font, scale } = chain.faces[0]!;
    return [KNOWN | REPLACED, font.glyphForCodePoint(0).advanceWidth * scale];
  }
  return [entryOf(chain, REPLACEMENT) | REPLACED, widthAt(chain, REPLACEMENT)];
}

/** The width of `text` in the chain's faces, in thousandths of an em. */
export function widthOf(chain: Chain, text: string): number {
  const { entries, widths } = chain;
  let total = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // Surrogates are never entries: a pair is one code point, a lone one is replaced.
    if (entries[unit] !== 0 && (unit < 0xd800 || unit > 0xdfff)) {
      total += widths[unit]!;
      continue;
    }
    const codePoint = text.codePointAt(i)!;
    if (codePoint > 0xffff) i++;
    entryOf(chain, codePoint);
    total += widthAt(chain, codePoint);
  }
  return total;
}

/** The glyphs of a text: entries, the character of each and widths. */
export interface LaidOut {
  /** How many glyphs: the arrays are longer (and reused by the next call). */
  length: number;
  entries: Int32Array;
  codePoints: Int32Array;
  widths: Float64Array;
}

const laidOut: LaidOut = { length: 0, entries: new Int32Array(1024), codePoints: new Int32Array(1024), widths: new Float64Array(1024) };

/** The glyphs of `text` in the chain, ignorable characters left out. */
export function glyphsOf(chain: Chain, text: string): LaidOut {
  if (laidOut.entries.length < text.length) {
    const size = 2 * text.length;
    Object.assign(laidOut, { entries: new Int32Array(size), codePoints: new Int32Array(size), widths: new Float64Array(size) });
  }
  const { entries, codePoints, widths } = laidOut;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const codePoint = text.codePointAt(i)!;
    if (codePoint > 0xffff) i++;
    const entry = entryOf(chain, codePoint);
    if ((entry & IGNORED) !== 0) continue;
    entries[n] = entry;
    codePoints[n] = codePoint;
    widths[n] = widthAt(chain, codePoint);
    n++;
  }
  laidOut.length = n;
  return laidOut;
}
