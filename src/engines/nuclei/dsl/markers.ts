/**
 * `{{...}}` marker expansion in request parts, as nuclei's expressions.Evaluate does it:
 * 1. plain markers `{{name}}` and `§name§` whose name is a variable are replaced by its text
 *    (in a nested marker only the innermost name: `{{md5({{num}})}}` -> `{{md5(999)}}`);
 * 2. every remaining `{{...}}` is an expression only if it compiles and names a function or a
 *    variable (so `{{7*7}}` stays literal); the closing `}}` is searched outward until the text
 *    between compiles, so a marker still nested (unknown inner name) is kept whole;
 * 3. each expression is evaluated with its inner markers replaced, and the marker is replaced by
 *    the result; one that fails to evaluate stays as written.
 */
import { FUNCTION_NAMES, UNSUPPORTED_FUNCTIONS, lookupFunction } from './functions/index.js';
import { parseExpression } from './parser.js';
import { isDslError, toBytes, toText, type DslVariables } from './values.js';

/** Upstream's dsl.FunctionNames, unsupported ones included: they decide what counts as an expression. */
const UPSTREAM_NAMES: readonly string[] = [
  ...FUNCTION_NAMES,
  ...Object.keys(UNSUPPORTED_FUNCTIONS).flatMap((name) => [name, name.replaceAll('_', '')]),
];

/** nuclei's iteration cap on marker search. */
const MAX_ITERATIONS = 250;

/**
 * How marker text is held. `TEXT` works on JS strings (results as their text); `BINARY` works on
 * byte strings (one char per byte) so that byte results (`hex_decode`, `gzip`, `aes_cbc`...) reach
 * a request body unchanged, as Go's byte strings do; expressions are decoded back to UTF-8 to parse.
 */
interface Codec {
  readonly general: string;
  encode(text: string): string;
  value(value: unknown): string;
  decode(text: string): string;
}

const TEXT: Codec = { general: '§', encode: (text) => text, value: toText, decode: (text) => text };
const BINARY: Codec = {
  general: Buffer.from('§', 'utf8').toString('latin1'),
  encode: (text) => Buffer.from(text, 'utf8').toString('latin1'),
  value: (value) => Buffer.from(toBytes(value)).toString('latin1'),
  decode: (text) => Buffer.from(text, 'latin1').toString('utf8'),
};

/** Replaces `open + name + close` for every variable name present (fasttemplate semantics). */
function replacePlain(text: string, variables: DslVariables, open: string, close: string, codec: Codec): string {
  let out = '';
  let rest = text;
  for (;;) {
    const start = rest.indexOf(open);
    if (start < 0) return out + rest;
    const end = rest.indexOf(close, start + open.length);
    if (end < 0) return out + rest;
    let name = rest.slice(start + open.length, end);
    out += rest.slice(0, start);
    // A nested marker ("{{md5({{num}})}}" reads the tag "md5({{num"): nuclei keeps the outer
    // prefix and resolves only the innermost name, giving "{{md5(999)}}" for the next step.
    const inner = name.lastIndexOf(open);
    if (inner >= 0) {
      out += open + name.slice(0, inner);
      name = name.slice(inner + open.length);
    }
    const key = codec.decode(name);
    out += Object.hasOwn(variables, key) ? codec.value(variables[key]) : open + name + close;
    rest = rest.slice(end + close.length);
  }
}

function replaceAll(text: string, variables: DslVariables, codec: Codec): string {
  return replacePlain(replacePlain(text, variables, '{{', '}}', codec), variables, codec.general, codec.general, codec);
}

/** Step 1 of nuclei's evaluate: plain `{{name}}` then `§name§` replacement. */
export function replaceVariables(text: string, variables: DslVariables): string {
  return replaceAll(text, variables, TEXT);
}

/** nuclei's isExpression: compiles, and mentions a variable or function name (plain parse), or needs functions to compile. */
function isExpression(candidate: string, variables: DslVariables): boolean {
  try {
    parseExpression(candidate, undefined);
    return Object.keys(variables).some((name) => candidate.includes(name)) || UPSTREAM_NAMES.some((name) => candidate.includes(name));
  } catch {
    try {
      parseExpression(candidate, lookupFunction);
      return true;
    } catch {
      return false;
    }
  }
}

function find(text: string, variables: DslVariables, codec: Codec): string[] {
  const found: string[] = [];
  let data = text;
  for (let iteration = 0; iteration <= MAX_ITERATIONS; iteration++) {
    const open = data.indexOf('{{');
    if (open < 0) break;
    const inner = open + 2;
    let skip = inner;
    let closedAt = -1;
    for (;;) {
      const close = data.indexOf('}}', skip);
      if (close < 0) break;
      const candidate = data.slice(inner, close);
      if (isExpression(codec.decode(candidate), variables)) {
        found.push(candidate);
        closedAt = close + 2;
        break;
      }
      skip = close + 2;
    }
    data = closedAt >= 0 ? data.slice(closedAt) : data.slice(inner);
  }
  return found;
}

/** nuclei's FindExpressions: the expressions inside `{{ }}` markers, in order. */
export function findExpressions(text: string, variables: DslVariables): string[] {
  return find(text, variables, TEXT);
}

function expand(text: string, variables: DslVariables, codec: Codec): string {
  let data = replaceAll(codec.encode(text), variables, codec);
  for (const expression of find(data, variables, codec)) {
    const resolved = replaceAll(expression, variables, codec);
    let node;
    try {
      node = parseExpression(codec.decode(resolved), lookupFunction);
    } catch {
      continue;
    }
    const result = node(variables);
    if (isDslError(result)) continue;
    // replacer.ReplaceOne: the first `{{expr}}`, then the first `§expr§`, by the resolved text.
    const value = codec.value(result);
    data = data.replace(`{{${resolved}}}`, () => value).replace(`${codec.general}${resolved}${codec.general}`, () => value);
  }
  return data;
}

/** Expands the markers of a request part into text (byte results decoded as UTF-8); never throws. */
export function expandMarkers(text: string, variables: DslVariables): string {
  return expand(text, variables, TEXT);
}

/**
 * Expands the markers of a request part into the exact bytes to send: text as UTF-8, byte results
 * (`{{hex_decode("aced0005")}}`, `{{gzip(x)}}`) unchanged. Use it for bodies and raw requests.
 */
export function expandMarkersToBytes(text: string, variables: DslVariables): Uint8Array {
  return new Uint8Array(Buffer.from(expand(text, variables, BINARY), 'latin1'));
}
