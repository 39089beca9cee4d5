/**
 * Go (RE2) regular expressions for the DSL (`=~`, `regex`, `regex_all`, `replace_regex`...): the
 * same translation and the same linear-time matching as matchers and extractors (match/re2.ts,
 * match/linear-regex.ts), so a hostile body cannot stall an expression either.
 */
import { compileGoRegex as compileForMatchers } from '../match/re2.js';
import { withFlags } from '../match/linear-regex.js';
import { DslError } from './values.js';

const cache = new Map<string, RegExp | DslError>();
const CACHE_LIMIT = 4096;

/**
 * Compiles a Go regular expression (cached, without the `g` flag so `test` keeps no state); a
 * DslError when it is not one.
 */
export function compileGoRegex(pattern: string): RegExp | DslError {
  const cached = cache.get(pattern);
  if (cached) return cached;
  let compiled: RegExp | DslError;
  try {
    const global = compileForMatchers(pattern);
    compiled = withFlags(global, global.flags.replace('g', ''));
  } catch (error) {
    compiled = new DslError(`error parsing regexp: ${(error as Error).message}`);
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(pattern, compiled);
  return compiled;
}

/** The same regex with the `g` flag (for replace-all), keeping its engine. */
export function globalGoRegex(re: RegExp): RegExp {
  return withFlags(re, `${re.flags}g`);
}
