/**
 * Go RE2 regular expressions (what nuclei compiles with `regexp.Compile`) as JS RegExps.
 *
 * Translated: leading inline flags `(?i)`, `(?s)`, `(?m)` (and combined, e.g. `(?is)`) become
 * RegExp flags; `(?i)`/`(?-i)`/`(?i:...)` inside the pattern are emulated by spelling letters
 * in both cases (`[aA]`) where they apply; `(?P<name>` becomes `(?<name>`; `\A` and `\z` become lookarounds at the very
 * start and end; `\Q...\E` is escaped; POSIX classes such as `[[:alpha:]]` inside a bracket
 * expression become ranges; `\pL`/`\p{Greek}` turn on the `u` flag.
 * Rejected (OperatorCompileError): `s`, `m` or `U` flags after the start (Node 20 has no RegExp
 * modifiers), the `U` (ungreedy) flag anywhere, and anything JS itself refuses.
 * RE2 has no backreferences nor lookarounds, so a template that uses them is invalid upstream
 * too; JS would accept them, which is harmless.
 * RE2 matches in linear time, JS RegExp backtracks (`(.*[a-zA-Z0-9].+==)</string></value>` ran
 * for minutes on a hostile 20 KB line): the RegExp returned is matched by RE2 itself (re2js, see
 * linear-regex.ts); the translation gives its `source`/`flags` and decides what is refused.
 */
import { linearRegExp } from './linear-regex.js';
import { OperatorCompileError } from './types.js';

const POSIX_CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

const FLAG_GROUP = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])/;

function swapCase(c: string): string {
  const lower = c.toLowerCase();
  return lower === c ? c.toUpperCase() : lower;
}

const isLetter = (c: string | undefined): c is string => c !== undefined && /^[a-zA-Z]$/.test(c);

/** Compiles a Go RE2 pattern into an equivalent JS RegExp (with the `g` flag), or throws. */
export function compileGoRegex(pattern: string): RegExp {
  let flags = '';
  let rest = pattern;
  let ci = false;
  // Leading flag groups, one or several: `(?i)`, `(?is)`, `(?i)(?s)`.
  for (let lead = /^\(\?([a-zA-Z]*)\)/.exec(rest); lead; lead = /^\(\?([a-zA-Z]*)\)/.exec(rest)) {
    for (const f of lead[1] ?? '') {
      if (f === 'i') ci = true;
      else if (f === 's' || f === 'm') {
        if (!flags.includes(f)) flags += f;
      } else {
        throw new OperatorCompileError(`regex flag (?${f}) is not supported: ${pattern}`);
      }
    }
    rest = rest.slice(lead[0].length);
  }
  // Case-insensitivity switched inside the pattern (`a(?i)b`, `(?i:x)`, `(?-i)`) has no JS
  // equivalent on Node 20: it is emulated by writing each letter as `[aA]` where it applies.
  const scoped = /\(\?[a-zA-Z]*-?[a-zA-Z]*[:)]/.test(rest.replace(/\(\?:/g, ''));
  if (ci && !scoped) {
    flags += 'i';
    ci = false;
  }
  const stack: boolean[] = [];
  let out = '';
  let inClass = false;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i] as string;
    if (c === '\\') {
      const n = rest[i + 1];
      if (n === undefined) throw new OperatorCompileError(`trailing backslash in regex: ${pattern}`);
      if (n === 'Q') {
        const end = rest.indexOf('\\E', i + 2);
        const literal = end < 0 ? rest.slice(i + 2) : rest.slice(i + 2, end);
        out += ci ? [...literal].map((ch) => (isLetter(ch) ? `[${ch}${swapCase(ch)}]` : escapeLiteral(ch))).join('') : escapeLiteral(literal);
        i = end < 0 ? rest.length : end + 1;
        continue;
      }
      if (!inClass && n === 'A') {
        out += '(?<![\\s\\S])';
      } else if (!inClass && n === 'z') {
        out += '(?![\\s\\S])';
      } else {
        if (n === 'p' || n === 'P') flags += flags.includes('u') ? '' : 'u';
        out += c + n;
        // Keep the operand of \x41, \x{263a}, \pL, \p{Greek} as written (no case spelling).
        const operand = n === 'x' || n === 'p' || n === 'P' ? /^(\{[^}]*\}|[0-9a-fA-F]{2}|[A-Za-z])/.exec(rest.slice(i + 2)) : null;
        if (operand) {
          const text = operand[0];
          out += n === 'x' && text.startsWith('{') ? `{${text.slice(1, -1)}}` : text;
          i += text.length;
        }
      }
      i++;
      continue;
    }
    if (inClass) {
      if (c === '[' && rest[i + 1] === ':') {
        const close = rest.indexOf(':]', i + 2);
        const name = close < 0 ? '' : rest.slice(i + 2, close);
        const negated = name.startsWith('^');
        const range = POSIX_CLASSES[negated ? name.slice(1) : name];
        if (range === undefined || negated) {
          throw new OperatorCompileError(`POSIX class [:${name}:] is not supported: ${pattern}`);
        }
        out += range;
        i = close + 1;
        continue;
      }
      if (c === '[') {
        out += '\\[';
        continue;
      }
      if (c === ']') inClass = false;
      if (ci && isLetter(c)) {
        const to = rest[i + 2];
        if (rest[i + 1] === '-' && isLetter(to)) {
          out += `${c}-${to}${swapCase(c)}-${swapCase(to)}`;
          i += 2;
        } else {
          out += c + swapCase(c);
        }
        continue;
      }
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      // A `]` right after `[` or `[^` is a literal in RE2 and an empty class in JS.
      if (rest[i + 1] === '^') {
        out += '^';
        i++;
      }
      if (rest[i + 1] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (c === '(') {
      const group = rest[i + 1] === '?' ? FLAG_GROUP.exec(rest.slice(i)) : null;
      if (group && (group[1] !== '' || group[2] !== undefined || group[3] === ')')) {
        const on = group[1] ?? '';
        const off = group[2] ?? '';
        if (/[^i]/.test(on + off)) throw new OperatorCompileError(`inline regex flags other than i inside the pattern are not supported: ${pattern}`);
        const next: boolean = on.includes('i') ? true : off.includes('i') ? false : ci;
        if (group[3] === ':') {
          stack.push(ci);
          out += '(?:';
        }
        ci = next;
        i += group[0].length - 1;
        continue;
      }
      stack.push(ci);
      const named = /^\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest.slice(i));
      if (named) {
        out += `(?<${named[1] ?? ''}>`;
        i += named[0].length - 1;
        continue;
      }
      out += c;
      continue;
    }
    if (c === ')') {
      ci = stack.pop() ?? ci;
      out += c;
      continue;
    }
    out += ci && isLetter(c) ? `[${c}${swapCase(c)}]` : c;
  }
  if (flags.includes('u')) {
    // Under `u` JS refuses identity escapes RE2 allows (`\-`, `\"`...): keep only what it accepts.
    out = out.replace(/\\([^\w\s\\^$.*+?()[\]{}|/pPdDsSwWbBnrtfv0xuck])/g, (_m, ch: string) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`);
  }
  try {
    new RegExp(out, flags);
  } catch (error) {
    throw new OperatorCompileError(`regex not supported in JS (${(error as Error).message}): ${pattern}`);
  }
  try {
    return linearRegExp(out, `${flags}g`, pattern);
  } catch (error) {
    throw new OperatorCompileError(`regex not supported by RE2 (${(error as Error).message}): ${pattern}`);
  }
}

/** Every match of `re` in `text` (like Go's FindAllStringSubmatch): full match and groups. */
export function findAllSubmatches(re: RegExp, text: string, limit = Infinity): string[][] {
  const out: string[][] = [];
  re.lastIndex = 0;
  for (const m of text.matchAll(re)) {
    out.push(Array.from(m, (g) => g ?? ''));
    if (out.length >= limit) break;
  }
  return out;
}
