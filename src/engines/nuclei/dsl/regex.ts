/**
 * Go (RE2) regular expressions run on JavaScript's engine: nuclei templates write Go syntax, so the
 * common differences are translated: leading `(?flags)` groups, `(?P<name>`, `\A`, `\z`, `\Q..\E`,
 * `\x{..}` and POSIX classes `[[:alpha:]]`. Risk: JS regexes backtrack where RE2 is linear, so a
 * hostile body can slow a pathological pattern; callers bound body sizes.
 */
import { DslError } from './values.js';

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z', alpha: 'A-Za-z', ascii: '\\x00-\\x7F', blank: '\\t ', cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9', graph: '!-~', lower: 'a-z', print: ' -~', punct: '!-\\/:-@\\[-`{-~', space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z', word: '0-9A-Za-z_', xdigit: '0-9A-Fa-f',
};

const cache = new Map<string, RegExp | DslError>();
const CACHE_LIMIT = 4096;

function escapeLiteral(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Rewrites Go-only syntax into the JavaScript equivalent; returns the source and flags. */
function translate(pattern: string): { source: string; flags: string } {
  let flags = '';
  let body = pattern;
  // Go allows flag groups anywhere; templates put them first. Only leading ones are translated.
  for (let match = /^\(\?([imsU]+)\)/.exec(body); match; match = /^\(\?([imsU]+)\)/.exec(body)) {
    for (const flag of match[1] as string) if (flag !== 'U' && !flags.includes(flag)) flags += flag;
    body = body.slice(match[0].length);
  }
  body = body.replace(/\\Q([\s\S]*?)(\\E|$)/g, (_, literal: string) => escapeLiteral(literal));
  body = body.replace(/\(\?P</g, '(?<');
  body = body.replace(/\[:(\^?)([a-z]+):\]/g, (whole, negate: string, name: string) => {
    const range = POSIX_CLASSES[name];
    return range === undefined || negate ? whole : range;
  });
  body = body.replace(/\\x\{([0-9A-Fa-f]{1,4})\}/g, (_, hex: string) => `\\u${hex.padStart(4, '0')}`);
  body = body.replace(/(^|[^\\])((?:\\\\)*)\\A/g, '$1$2^').replace(/(^|[^\\])((?:\\\\)*)\\z/g, '$1$2$(?![\\s\\S])');
  return { source: body, flags };
}

/** Compiles a Go regular expression (cached); a DslError when neither syntax accepts it. */
export function compileGoRegex(pattern: string): RegExp | DslError {
  const cached = cache.get(pattern);
  if (cached) return cached;
  let compiled: RegExp | DslError;
  try {
    const { source, flags } = translate(pattern);
    compiled = new RegExp(source, flags);
  } catch (error) {
    compiled = new DslError(`error parsing regexp: ${(error as Error).message}`);
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, compiled);
  return compiled;
}
