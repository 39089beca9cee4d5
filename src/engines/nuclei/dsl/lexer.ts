/**
 * Tokeniser for govaluate's expression syntax as nuclei uses it (projectdiscovery/govaluate
 * parsing.go): numbers (decimal, `0x` hex), strings in either quote style where a backslash takes
 * the next character literally, `true`/`false`, `in`, variables (a letter, then letters, digits,
 * `_` and `.`), `[escaped-variable]` for names with `-`, parentheses, commas and operator symbols.
 * A quoted string in one of govaluate's date formats becomes a number (Unix seconds), as upstream.
 */

/** One token of an expression. */
export type Token =
  | { kind: 'number'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'identifier'; value: string }
  | { kind: 'symbol'; value: string }
  | { kind: 'open' | 'close' | 'comma' };

/** The operator symbols govaluate knows; anything else is an invalid token. */
const SYMBOLS = new Set([
  '-', '!', '~', '+', '*', '/', '%', '**', '&', '|', '^', '>>', '<<', '&&', '||',
  '==', '!=', '>', '>=', '<', '<=', '=~', '!~', '?', ':', '??',
]);

const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isLetter = (c: string): boolean => /\p{L}/u.test(c);
const isSpace = (c: string): boolean => /\s/u.test(c);
const isVariableChar = (c: string): boolean => isLetter(c) || isDigit(c) || c === '_' || c === '.';
const isSymbolChar = (c: string): boolean =>
  !(isDigit(c) || isLetter(c) || '()[]\'"'.includes(c) || isSpace(c));

/** govaluate's date formats for string literals (checked exactly, in local time as upstream: we use UTC). */
const DATE_PATTERNS: RegExp[] = [
  /^(\d{4})-(\d{2})-(\d{2})$/,
  /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})$/,
  /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/,
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(Z|[+-]\d{2}:\d{2})$/,
];

/** The Unix time of a string literal govaluate would read as a date, or undefined. */
function parseDateLiteral(text: string): number | undefined {
  for (const pattern of DATE_PATTERNS) {
    const match = pattern.exec(text);
    if (!match) continue;
    const [, y, mo, d, h = '0', mi = '0', s = '0', zone] = match;
    let millis = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
    const check = new Date(millis);
    if (check.getUTCDate() !== Number(d) || check.getUTCMonth() !== Number(mo) - 1) return undefined;
    if (zone && zone !== 'Z') {
      const sign = zone.startsWith('-') ? -1 : 1;
      millis -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
    }
    return Math.floor(millis / 1000);
  }
  return undefined;
}

/** Reads a quoted or bracketed run; a backslash escapes the next character. Undefined when unclosed. */
function readDelimited(source: string, start: number, end: string): { text: string; next: number } | undefined {
  let text = '';
  for (let i = start; i < source.length; i++) {
    const c = source[i] as string;
    if (c === '\\') {
      if (i + 1 >= source.length) return undefined;
      text += source[++i];
    } else if (c === end) {
      return { text, next: i + 1 };
    } else {
      text += c;
    }
  }
  return undefined;
}

/** Splits an expression into tokens; throws a SyntaxError naming the bad token. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    if (isSpace(c)) { i++; continue; }
    if (isDigit(c) || c === '.') {
      if (c === '0' && source[i + 1] === 'x') {
        let j = i + 2;
        while (j < source.length && /[0-9a-fA-F]/.test(source[j] as string)) j++;
        if (j === i + 2) throw new SyntaxError(`Unable to parse hex value '${source.slice(i, j)}'`);
        tokens.push({ kind: 'number', value: parseInt(source.slice(i + 2, j), 16) });
        i = j;
        continue;
      }
      let j = i;
      while (j < source.length && (isDigit(source[j] as string) || source[j] === '.')) j++;
      const text = source.slice(i, j);
      if (!/^(\d+\.?\d*|\.\d+)$/.test(text)) throw new SyntaxError(`Unable to parse numeric value '${text}'`);
      tokens.push({ kind: 'number', value: Number(text) });
      i = j;
      continue;
    }
    if (c === ',') { tokens.push({ kind: 'comma' }); i++; continue; }
    if (c === '(') { tokens.push({ kind: 'open' }); i++; continue; }
    if (c === ')') { tokens.push({ kind: 'close' }); i++; continue; }
    if (c === '[') {
      const read = readDelimited(source, i + 1, ']');
      if (!read) throw new SyntaxError('Unclosed parameter bracket');
      tokens.push({ kind: 'identifier', value: read.text });
      i = read.next;
      continue;
    }
    if (c === '"' || c === "'") {
      const read = readDelimited(source, i + 1, c);
      if (!read) throw new SyntaxError('Unclosed string literal');
      const date = parseDateLiteral(read.text);
      tokens.push(date === undefined ? { kind: 'string', value: read.text } : { kind: 'number', value: date });
      i = read.next;
      continue;
    }
    if (isLetter(c)) {
      let j = i;
      while (j < source.length && isVariableChar(source[j] as string)) j++;
      const word = source.slice(i, j);
      if (word.endsWith('.')) throw new SyntaxError(`Hanging accessor on token '${word}'`);
      if (word === 'true' || word === 'false') tokens.push({ kind: 'boolean', value: word === 'true' });
      else if (word === 'in' || word === 'IN') tokens.push({ kind: 'symbol', value: 'in' });
      else tokens.push({ kind: 'identifier', value: word });
      i = j;
      continue;
    }
    let j = i;
    while (j < source.length && isSymbolChar(source[j] as string)) j++;
    const symbol = source.slice(i, j);
    if (!SYMBOLS.has(symbol)) throw new SyntaxError(`Invalid token: '${symbol}'`);
    tokens.push({ kind: 'symbol', value: symbol });
    i = j;
  }
  return tokens;
}
