/**
 * Text the PDF's standard fonts can draw. pdfkit's built-in fonts encode WinAnsi only, so every
 * string that reaches the page passes through `pdfText` or `pdfLine`: anything else (CJK, emoji,
 * control characters) becomes '?' rather than garbage glyphs.
 */
import { CELL_LIMIT } from './theme.js';

// WinAnsi's characters outside Latin-1 (pdfkit's WIN_ANSI_MAP): quotes, dashes, bullet, euro...
const WIN_ANSI_EXTRA = new Set([
  0x152, 0x153, 0x160, 0x161, 0x178, 0x17d, 0x17e, 0x192, 0x2c6, 0x2dc, 0x2013, 0x2014, 0x2018, 0x2019, 0x201a, 0x201c, 0x201d,
  0x201e, 0x2020, 0x2021, 0x2022, 0x2026, 0x2030, 0x2039, 0x203a, 0x20ac, 0x2122,
]);

// Printable ASCII needs no work, and it is nearly all the text of a report: tested first, it spares
// the character walk (and the code-point arrays) on every value of every finding. Text of several
// lines (evidence, prose) is as plain when its line breaks are bare ones.
const PLAIN = /^[\x20-\x7e]*$/;
const PLAIN_LINES = /^[\x20-\x7e\n]*$/;

/** The length of `value` in characters (code points), as the limits here count them. */
export function lengthOf(value: string): number {
  return PLAIN_LINES.test(value) ? value.length : [...value].length;
}

/** Text the standard fonts can draw; line breaks kept, tabs as spaces, all else outside WinAnsi as '?'. */
export function pdfText(value: string, limit = Infinity): string {
  if (PLAIN_LINES.test(value)) return value.length > limit ? value.slice(0, limit) : value;
  let out = '';
  let count = 0;
  for (const ch of value.replace(/\r\n?/g, '\n').replace(/\t/g, '    ')) {
    if (++count > limit) break;
    const code = ch.codePointAt(0)!;
    const drawable = (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) || WIN_ANSI_EXTRA.has(code) || code === 0x0a;
    out += drawable ? ch : '?';
  }
  return out;
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

/** Lines of at most `perLine` characters, broken at a space when one is near the end. */
export function wrapMonospace(text: string, perLine: number): string[] {
  const lines: string[] = [];
  for (const raw of text.split('\n')) {
    let rest = raw.replace(/\s+$/, '');
    while (rest.length > perLine) {
      const space = rest.lastIndexOf(' ', perLine);
      const cut = space > perLine / 2 ? space : perLine;
      lines.push(rest.slice(0, cut));
      rest = rest.slice(space === cut ? cut + 1 : cut);
    }
    lines.push(rest);
  }
  return lines;
}
