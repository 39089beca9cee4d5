/**
 * A streaming CSV reader (RFC 4180: quoted fields may hold commas, quotes doubled, and line
 * breaks), yielding one row at a time so an export never sits whole in memory.
 */
import { invalidFile } from './importer.js';

/** Longest field accepted: a larger one is a broken file (an unclosed quote swallowing the rest). */
const MAX_FIELD = 4 * 1024 * 1024;

/** Rows of a CSV byte stream, as arrays of fields; a final line break is optional. */
export async function* readCsv(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<string[]> {
  const decoder = new TextDecoder('utf-8');
  let row: string[] = [];
  let field = '';
  let quoted = false;
  // After a closing quote, until the next separator.
  let afterQuote = false;
  let pendingQuote = false;
  let sawAny = false;
  let lineNumber = 1;
  const rows: string[][] = [];
  const endField = (): void => {
    row.push(field);
    field = '';
    afterQuote = false;
  };
  const endRow = (): void => {
    endField();
    if (!(row.length === 1 && row[0] === '')) rows.push(row);
    row = [];
  };
  const consume = (text: string): void => {
    for (const ch of text) {
      sawAny = true;
      if (pendingQuote) {
        pendingQuote = false;
        if (ch === '"') {
          field += '"';
          continue;
        }
        quoted = false;
        afterQuote = true;
      }
      if (quoted) {
        if (ch === '"') pendingQuote = true;
        else {
          if (ch === '\n') lineNumber++;
          field += ch;
          if (field.length > MAX_FIELD) throw invalidFile(`The CSV has a field longer than ${MAX_FIELD} characters (an unclosed quote?) near line ${lineNumber}.`);
        }
        continue;
      }
      if (ch === ',') endField();
      else if (ch === '\n') {
        lineNumber++;
        endRow();
      } else if (ch === '\r') continue;
      else if (ch === '"' && field === '' && !afterQuote) quoted = true;
      else if (afterQuote) throw invalidFile(`The CSV has text after a closing quote on line ${lineNumber}.`);
      else field += ch;
    }
  };
  for await (const chunk of source) {
    consume(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    yield* rows.splice(0);
  }
  consume(decoder.decode());
  if (pendingQuote) {
    quoted = false;
    pendingQuote = false;
  }
  if (quoted) throw invalidFile('The CSV ends inside a quoted field.');
  if (sawAny && (field !== '' || row.length > 0)) endRow();
  yield* rows.splice(0);
}
