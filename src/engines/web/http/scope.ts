/** The scope of a web scan (the rule: src/shared/url-scope.ts), as the client checks every URL against it. */
import { urlScopeOf } from '../../../shared/url-scope.js';

export interface Scope {
  /** `http://host:port` of the start URL. */
  readonly origin: string;
  /** The path prefix URLs must start with. */
  readonly prefix: string;
  contains(url: string): boolean;
}

export function createScope(start: string): Scope {
  const { origin, prefix, exact } = urlScopeOf(start);
  return {
    origin,
    prefix,
    contains(url) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return false;
      }
      if (parsed.origin !== origin) return false;
      return parsed.pathname.startsWith(prefix) || parsed.pathname === exact;
    },
  };
}
