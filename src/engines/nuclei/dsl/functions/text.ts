/** String helpers of projectdiscovery/dsl (dsl.go): same names, arities and edge cases. */
import { compileGoRegex, globalGoRegex } from '../regex.js';
import { DslError, toBool, toText, type DslValue } from '../values.js';
import { INVALID_SIGNATURE, type FunctionTable } from './types.js';

const invalid = (): DslError => new DslError(INVALID_SIGNATURE);
const fixed = (arity: number, call: (args: DslValue[]) => DslValue | DslError) => ({ arity, call });
const variadic = (min: number, call: (args: DslValue[]) => DslValue | DslError) => ({
  call: (args: DslValue[]) => (args.length < min ? invalid() : call(args)),
});

/** Go's strings.Trim family: cut characters of the set from one or both ends. */
function trimSet(text: string, set: string, left: boolean, right: boolean): string {
  const chars = new Set(Array.from(set));
  const runes = Array.from(text);
  let start = 0;
  let end = runes.length;
  while (left && start < end && chars.has(runes[start] as string)) start++;
  while (right && end > start && chars.has(runes[end - 1] as string)) end--;
  return runes.slice(start, end).join('');
}

/** Go's regexp.Expand template ($1, ${1}, ${name}) in JavaScript replace syntax. */
function toJsReplacement(template: string): string {
  return template
    .replace(/\$\$/g, '\u0000')
    .replace(/\$\{(\d+)\}/g, '$$$1')
    .replace(/\$\{(\w+)\}/g, '$$<$1>')
    .replace(/\$([A-Za-z_]\w*)/g, '$$<$1>')
    .replace(/\u0000/g, '$$$$');
}

function regexOf(pattern: DslValue | undefined, global = false): RegExp | DslError {
  const compiled = compileGoRegex(toText(pattern));
  if (compiled instanceof DslError || !global) return compiled;
  return globalGoRegex(compiled);
}

/** Text functions: case, search, trimming, splitting and joining. */
export const TEXT_FUNCTIONS: FunctionTable = {
  to_upper: fixed(1, ([s]) => toText(s).toUpperCase()),
  to_lower: fixed(1, ([s]) => toText(s).toLowerCase()),
  to_title: variadic(1, ([s]) => toText(s).toLowerCase().replace(/(^|[^\p{L}\p{N}'])(\p{L})/gu, (_, sep: string, c: string) => sep + c.toUpperCase())),
  len: fixed(1, ([v]) => (Array.isArray(v) ? v.length : v instanceof Uint8Array ? v.length : Buffer.byteLength(toText(v)))),
  contains: fixed(2, ([s, sub]) => toText(s).includes(toText(sub))),
  contains_all: variadic(1, ([s, ...subs]) => subs.every((sub) => toText(s).includes(toText(sub)))),
  contains_any: variadic(1, ([s, ...subs]) => subs.some((sub) => toText(s).includes(toText(sub)))),
  equals_any: variadic(2, ([s, ...others]) => others.some((other) => toText(other) === toText(s))),
  starts_with: variadic(2, ([s, ...prefixes]) => prefixes.some((p) => toText(s).startsWith(toText(p)))),
  ends_with: variadic(2, ([s, ...suffixes]) => suffixes.some((p) => toText(s).endsWith(toText(p)))),
  line_starts_with: variadic(2, ([s, ...prefixes]) => toText(s).split('\n').some((line) => prefixes.some((p) => line.startsWith(toText(p))))),
  line_ends_with: variadic(2, ([s, ...suffixes]) => toText(s).split('\n').some((line) => suffixes.some((p) => line.endsWith(toText(p))))),
  count: variadic(2, ([s, sub]) => {
    const text = toText(s);
    const needle = toText(sub);
    // Go counts runes + 1 for an empty needle.
    return needle === '' ? Array.from(text).length + 1 : text.split(needle).length - 1;
  }),
  concat: { call: (args) => args.map(toText).join('') },
  repeat: fixed(2, ([s, n]) => {
    const count = Number(toText(n));
    return Number.isInteger(count) && count >= 0 ? toText(s).repeat(count) : invalid();
  }),
  replace: fixed(3, ([s, from, to]) => toText(s).split(toText(from)).join(toText(to))),
  replace_regex: fixed(3, ([s, pattern, to]) => {
    const regex = regexOf(pattern, true);
    return regex instanceof DslError ? regex : toText(s).replace(regex, toJsReplacement(toText(to)));
  }),
  regex: fixed(2, ([pattern, s]) => {
    const regex = regexOf(pattern);
    return regex instanceof DslError ? regex : regex.test(toText(s));
  }),
  regex_all: variadic(2, ([pattern, ...inputs]) => {
    const regex = regexOf(pattern);
    return regex instanceof DslError ? regex : inputs.every((input) => regex.test(toText(input)));
  }),
  regex_any: variadic(2, ([pattern, ...inputs]) => {
    const regex = regexOf(pattern);
    return regex instanceof DslError ? regex : inputs.some((input) => regex.test(toText(input)));
  }),
  trim: fixed(2, ([s, set]) => trimSet(toText(s), toText(set), true, true)),
  trim_left: fixed(2, ([s, set]) => trimSet(toText(s), toText(set), true, false)),
  trim_right: fixed(2, ([s, set]) => trimSet(toText(s), toText(set), false, true)),
  trim_space: fixed(1, ([s]) => toText(s).trim()),
  trim_prefix: fixed(2, ([s, p]) => (toText(s).startsWith(toText(p)) ? toText(s).slice(toText(p).length) : toText(s))),
  trim_suffix: fixed(2, ([s, p]) => {
    const text = toText(s);
    const suffix = toText(p);
    return suffix !== '' && text.endsWith(suffix) ? text.slice(0, text.length - suffix.length) : text;
  }),
  reverse: fixed(1, ([s]) => Array.from(toText(s)).reverse().join('')),
  remove_bad_chars: fixed(2, ([s, bad]) => trimAll(toText(s), toText(bad))),
  sort: {
    call: (args) => {
      if (args.length === 0) return invalid();
      if (args.length === 1) return Array.from(toText(args[0])).sort().join('');
      return args.map(toText).sort();
    },
  },
  uniq: {
    call: (args) => {
      if (args.length === 0) return invalid();
      if (args.length === 1) return Array.from(new Set(Array.from(toText(args[0])))).join('');
      return Array.from(new Set(args.map(toText)));
    },
  },
  split: {
    call: (args) => {
      const input = toText(args[0]);
      if (args.length === 2) {
        const separator = toText(args[1]);
        const size = /^[+-]?\d+$/.test(separator) ? Number(separator) : NaN;
        if (Number.isNaN(size)) return input.split(separator);
        const chunks: string[] = [];
        for (let i = 0; size > 0 && i < input.length; i += size) chunks.push(input.slice(i, i + size));
        return chunks;
      }
      if (args.length === 3) {
        const limit = Number(toText(args[2]));
        if (!Number.isInteger(limit)) return invalid();
        if (limit === 0) return [];
        const parts = input.split(toText(args[1]));
        return limit < 0 || parts.length <= limit ? parts : [...parts.slice(0, limit - 1), parts.slice(limit - 1).join(toText(args[1]))];
      }
      return invalid();
    },
  },
  join: {
    call: (args) => {
      if (args.length < 2) return invalid();
      const separator = toText(args[0]);
      if (args.length === 2) return Array.isArray(args[1]) ? args[1].map(toText).join(separator) : new DslError('cannot cast elements into string');
      if (args.slice(1).some(Array.isArray)) return new DslError('cannot use join on more than one slice element');
      return args.slice(1).map(toText).join(separator);
    },
  },
  index: fixed(2, ([value, position]) => {
    const index = Number(toText(position));
    if (!Number.isInteger(index)) return new DslError('invalid index');
    const items = Array.isArray(value) ? value : Array.from(Buffer.from(toText(value), 'utf8').toString('latin1'));
    if (index < 0 || index >= items.length) return new DslError(`index out of range: ${index}`);
    return Array.isArray(value) ? (items[index] as DslValue) : (items[index] as string);
  }),
  substr: variadic(2, ([s, startArg, endArg]) => {
    const text = toText(s);
    if (text.length === 0) return new DslError('empty string');
    const start = Number(toText(startArg));
    if (!Number.isInteger(start) || start < 0) return new DslError('invalid start position');
    if (start > text.length) return new DslError('start position bigger than slice length');
    if (endArg === undefined) return text.slice(start);
    const end = Number(toText(endArg));
    if (!Number.isInteger(end)) return new DslError('invalid end position');
    if (end < 0) return new DslError('negative end position');
    if (end < start) return new DslError('end position before start');
    if (end > text.length) return new DslError('end position bigger than slice length start');
    return text.slice(start, end);
  }),
  padding: fixed(4, ([data, pad, lengthArg, mode]) => {
    const length = Math.trunc(Number(toText(lengthArg)));
    if (!length) return new DslError('invalid padding length');
    const padText = toText(pad);
    if (padText === '') return new DslError('invalid padding byte');
    const text = toText(data);
    if (text.length >= length) return text;
    if (mode !== 'prefix' && mode !== 'suffix') return new DslError("padding mode must be 'prefix' or 'suffix'");
    const filler = padText.repeat(Math.ceil((length - text.length) / padText.length)).slice(0, length - text.length);
    return mode === 'prefix' ? filler + text : text + filler;
  }),
  to_string: fixed(1, ([v]) => toText(v)),
  to_bool: fixed(1, ([v]) => toBool(v)),
  print_debug: variadic(1, () => true),
};

/** Removes every character of the set from the text (upstream TrimAll). */
export function trimAll(text: string, set: string): string {
  let result = text;
  for (const c of set) result = result.split(c).join('');
  return result;
}
