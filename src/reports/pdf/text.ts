/**
 * Text made ready for the page. The report's fonts draw every printable character (`fonts.ts`), so
 * every string that reaches the page passes through `pdfText` or `pdfLine` only to be put in
 * canonical form and rid of control characters, which are shown as '?'.
 */
import { CELL_LIMIT } from './theme.js';

// Printable ASCII needs no work, and it is nearly all the text of a report: tested first, it spares
// the character walk (and the code-point arrays) on every value of every finding. Text of several
// lines (evidence, prose) is as plain when its line breaks are bare ones.
const PLAIN = /^[\x20-\x7e]*$/;
const PLAIN_LINES = /^[\x20-\x7e\n]*$/;
// C0 and C1 control characters (line breaks are made bare first, tabs spaces).
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/g;

/** The length of `value` in characters (code points), as the limits here count them. */
export function lengthOf(value: string): number {
  return PLAIN_LINES.test(value) ? value.length : [...value].length;
}

/**
 * Text for the page: composed characters as one (NFC: "o" and a combining macron become "ō", one
 * glyph), line breaks kept (CR LF, CR and the Unicode line and paragraph separators as LF), tabs as
 * four spaces, other control characters as '?'; cut at `limit` characters.
 */
export function pdfText(value: string, limit = Infinity): string {
  if (PLAIN_LINES.test(value)) return value.length > limit ? value.slice(0, limit) : value;
  // A character is at most two code units, and the forms below only join them: a value far past
  // the limit is cut first, so that a huge one is not normalized whole.
  const text = (value.length > 4 * limit ? value.slice(0, 4 * limit) : value)
    .normalize('NFC')
    .replace(/\r\n?|[\u2028\u2029]/g, '\n')
    .replace(/\t/g, '    ')
    .replace(CONTROL, '?');
  if (limit === Infinity || text.length <= limit) return text;
  // Cut by characters, never inside a surrogate pair.
  let end = 0;
  for (let count = 0; count < limit && end < text.length; count++) end += text.codePointAt(end)! > 0xffff ? 2 : 1;
  return text.slice(0, end);
}

/** `pdfText` on one line: line breaks become spaces (names, hosts, table cells); an ellipsis marks a cut. */
export function pdfLine(value: string, limit = CELL_LIMIT): string {
  if (PLAIN.test(value)) return value.length > limit ? `${value.slice(0, limit)}…` : value;
  const text = pdfText(value.replace(/\s*[\r\n]+\s*/g, ' '), limit);
  return [...value].length > limit ? `${text}…` : text;
}

/** `pdfText` capped at `limit` characters, with a note saying how long the original was. */
export function truncated(value: string, limit: number): { text: string; note: string | null } {
  const length = lengthOf(value);
  if (length <= limit) return { text: pdfText(value), note: null };
  return { text: pdfText(value, limit), note: truncationNote(length) };
}

/**
 * An integer with thousands separators, "12,345", as `toLocaleString('en-US')` writes it, without
 * the ICU set-up its first call costs (some 15 ms).
 */
export function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** "… (truncated; 12,345 characters in all)". */
export function truncationNote(length: number): string {
  return `… (truncated; ${grouped(length)} characters in all)`;
}

/**
 * Lines of at most `perLine` cells (the width of a monospaced glyph), broken at a space when one is
 * near the end. A character takes one cell, or what `cells` says: CJK and emoji are wider than a
 * cell, and are measured. A surrogate pair is never cut.
 */
export function wrapMonospace(text: string, perLine: number, cells: (character: string) => number = () => 1): string[] {
  const lines: string[] = [];
  for (const raw of text.split('\n')) {
    let rest = raw.replace(/\s+$/, '');
    const plain = PLAIN.test(rest);
    for (let fit = plain ? perLine : fitting(rest, perLine, cells); fit < rest.length; fit = plain ? perLine : fitting(rest, perLine, cells)) {
      const space = rest.lastIndexOf(' ', fit);
      const cut = space > fit / 2 ? space : fit;
      lines.push(rest.slice(0, cut));
      rest = rest.slice(space === cut ? cut + 1 : cut);
    }
    lines.push(rest);
  }
  return lines;
}

/** The length of the longest start of `text` at most `perLine` cells wide (one character at least). */
function fitting(text: string, perLine: number, cells: (character: string) => number): number {
  let used = 0;
  let length = 0;
  for (const character of text) {
    used += cells(character);
    if (used > perLine && length > 0) return length;
    length += character.length;
  }
  return length;
}
