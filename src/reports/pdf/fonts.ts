/**
 * The report's typefaces, read and parsed once per process; each document embeds a subset of each
 * it draws with (pdfkit and fontkit subset them, so a file carries only the glyphs it shows).
 *
 * Text is set in Arimo and Cousine, whose glyphs have the widths of Helvetica and Courier (the
 * fonts the layout was made for): Latin, Greek, Cyrillic, Hebrew, box drawing. A character they
 * lack is looked up in the fallbacks, in order: Noto Sans Symbols 2 (check marks, stars, arrows,
 * dingbats, Braille), Noto Emoji (emoji as monochrome outlines) and, when the machine has it,
 * WenQuanYi Micro Hei (Chinese, Japanese, Korean). All come from npm packages except the last: a
 * CJK font is megabytes, so it is the Debian package `fonts-wqy-microhei`, and without it CJK text
 * is drawn as U+FFFD (the document says so at its end, and the process warns once).
 * DECISIONS.md says why these fonts.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { create } from 'fontkit';

/** The parts of a fontkit 2 font read here (pdfkit embeds it, subset). */
export interface FontkitFont {
  unitsPerEm: number;
  glyphForCodePoint(codePoint: number): { id: number; advanceWidth: number };
  hasGlyphForCodePoint(codePoint: number): boolean;
  /** pdfkit takes an object with this method for a parsed font. */
  layout: unknown;
}

/** The typefaces the report's text is set in. */
export type FontName = 'Sans' | 'Sans-Bold' | 'Mono';

/** A typeface and what a document needs to know of it. */
export interface Face {
  /** The name the face is registered under in every document. */
  readonly name: string;
  /** The parsed font (read from its file on first use). */
  readonly font: FontkitFont;
  /** 1000 / units per em: glyph units to the PDF's thousandths of an em. */
  readonly scale: number;
}

/** The Debian package whose font draws CJK text, and where it puts it. */
export const CJK_PACKAGE = 'fonts-wqy-microhei';
const CJK_FILE = '/usr/share/fonts/truetype/wqy/wqy-microhei.ttc';
const CJK_FACE = 'WenQuanYiMicroHei'; // the proportional face of the collection (the other is monospaced)

// To find the font files of the packages (pdfkit's own fontkit parses them: one copy loaded).
const require = createRequire(import.meta.url);

/** A font file shipped by an npm package, by its path in the package. */
const PACKAGED: Record<FontName | 'Symbols' | 'Emoji', string> = {
  Sans: '@expo-google-fonts/arimo/400Regular/Arimo_400Regular.ttf',
  'Sans-Bold': '@expo-google-fonts/arimo/700Bold/Arimo_700Bold.ttf',
  Mono: '@expo-google-fonts/cousine/400Regular/Cousine_400Regular.ttf',
  Symbols: '@expo-google-fonts/noto-sans-symbols-2/400Regular/NotoSansSymbols2_400Regular.ttf',
  Emoji: '@expo-google-fonts/noto-emoji/400Regular/NotoEmoji_400Regular.ttf',
};

/** The faces of the process: the main ones by name, then the fallbacks in the order they are tried. */
export interface Faces {
  main: Record<FontName, Face>;
  /** Tried in order for a character a main face lacks (a face is never its own fallback). */
  fallbacks: Face[];
  /** False when the CJK font is not installed. */
  cjk: boolean;
}

let faces: Faces | null = null;

/** A face whose file is read and parsed when first used (many reports need no fallback). */
function lazyFace(name: string, load: () => FontkitFont): Face {
  let font: FontkitFont | null = null;
  return {
    name,
    get font() {
      return (font ??= load());
    },
    get scale() {
      return 1000 / this.font.unitsPerEm;
    },
  };
}

/** The report's faces; each font file is read and parsed once per process, when first used. */
export function loadFaces(): Faces {
  if (faces) return faces;
  // fontkit parses a table when it is first read, so this is a few milliseconds a face.
  const parse = (buffer: Uint8Array, postscriptName?: string) => create(buffer, postscriptName) as FontkitFont;
  const packaged = (name: keyof typeof PACKAGED): Face => lazyFace(name, () => parse(fs.readFileSync(require.resolve(PACKAGED[name]))));
  const main = { Sans: packaged('Sans'), 'Sans-Bold': packaged('Sans-Bold'), Mono: packaged('Mono') };
  const fallbacks = [packaged('Symbols'), packaged('Emoji')];
  const cjk = fs.existsSync(CJK_FILE);
  if (cjk) fallbacks.push(lazyFace('CJK', () => parse(fs.readFileSync(CJK_FILE), CJK_FACE)));
  // Last, for the monospaced face: Arimo has U+FFFD, which Cousine lacks.
  fallbacks.push(main.Sans);
  faces = { main, fallbacks, cjk };
  return faces;
}

let warned = false;

/**
 * Warns once per process that CJK text was drawn as U+FFFD for want of the CJK font. A process
 * warning rather than the service's log: the renderer has no logger, and this is about the machine.
 */
export function warnNoCjkFont(): void {
  if (warned) return;
  warned = true;
  process.emitWarning(`PDF reports draw Chinese, Japanese and Korean text as U+FFFD: install the Debian package ${CJK_PACKAGE} (${CJK_FILE}).`, {
    code: 'RAMPART_NO_CJK_FONT',
  });
}

/** Whether a code point is of the CJK scripts (what the CJK fallback font is for). */
export function isCjk(codePoint: number): boolean {
  return (
    (codePoint >= 0x1100 && codePoint <= 0x11ff) || // Hangul Jamo
    (codePoint >= 0x2e80 && codePoint <= 0x9fff) || // radicals, punctuation, kana, CJK ideographs
    (codePoint >= 0xa960 && codePoint <= 0xa97f) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7ff) || // Hangul syllables
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xff00 && codePoint <= 0xffef) || // full-width forms
    (codePoint >= 0x20000 && codePoint <= 0x3ffff)
  );
}
