/**
 * CSV cells and rows as RFC 4180 has them, made safe to open in a spreadsheet.
 *
 * - Lines end with CRLF; a field holding a comma, a double quote, CR or LF is quoted, and its
 *   quotes are doubled.
 * - Formula injection (OWASP "CSV Injection"): a cell starting with `=`, `+`, `-`, `@`, TAB or CR
 *   would be run as a formula by Excel, LibreOffice or Sheets. Findings carry text an attacker
 *   controls (banners, page titles, evidence), so such a cell gets a leading single quote, which
 *   spreadsheets show as text. The quote is part of the value: a program reading the file sees it.
 */

/** What a cell can hold: null and undefined become empty cells. */
export type CsvValue = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell: neutralised, then quoted when RFC 4180 requires it. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record, CRLF included. */
export function csvRow(values: readonly CsvValue[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
