/**
 * What ZAP is told about one target: the context's regular expressions (the target's scheme,
 * host, port and path prefix: the built-in web scanner's scope, src/shared/url-scope.ts), the
 * check of the target against the deployment's address guard before ZAP ever sees it, and the
 * session cookies of a login that belong to the target's host.
 */
import { cookieDomainMatches } from '../../shared/cookie-domain.js';
import { EgressError } from '../../shared/egress.js';
import { urlScopeOf } from '../../shared/url-scope.js';
import { EngineError, type EngineJob } from '../engine.js';

/** Escapes a literal for a Java regular expression (what ZAP compiles the context's patterns with). */
function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/** The regexes of the target's scope (the rule of src/shared/url-scope.ts): everything under its path prefix, and the path itself. */
export function scopeRegexes(target: string): string[] {
  const { origin, prefix, exact } = urlScopeOf(target);
  const regexes = [`^${escapeRegex(origin + prefix)}.*`];
  if (exact !== null) regexes.push(`^${escapeRegex(origin + exact)}(\\?.*)?$`);
  return regexes;
}

/** `origin + path prefix` of the target: the URLs of its scope start with it (the alerts' `baseurl`). */
export function scopePrefix(target: string): string {
  const { origin, prefix } = urlScopeOf(target);
  return origin + prefix;
}

/**
 * Throws unless the guard allows every address the target's host resolves to now. ZAP connects
 * by itself and knows nothing of the guard, so a target it may not reach is never handed over.
 * Returns false (no verdict) when the job aborted meanwhile.
 */
export async function assertTargetAllowed(job: EngineJob, target: string): Promise<boolean> {
  const host = new URL(target).hostname.replace(/^\[(.*)\]$/, '$1');
  try {
    // Every address: `resolve` keeps the allowed ones of a name, but ZAP would reach all of them.
    await job.egress.resolveEvery(host);
    return !job.signal.aborted;
  } catch (error) {
    if (job.signal.aborted) return false;
    if (!(error instanceof EgressError)) throw error;
    const kind = error.code === 'unresolvable' ? 'network-temporary' : 'network-permanent';
    throw new EngineError(kind, `${error.message} ${target} was not handed to ZAP (ZAP connects by itself, so the target must be allowed before it starts).`, { cause: error });
  }
}

/** A cookie as a login reports it (Selenium's `get_cookies()`). */
export interface LoginCookie {
  name: string;
  value: string;
  domain?: string;
  path?: string;
}

/** `a=1; b=2`: the login's cookies a browser would send to the target's host. */
export function cookieHeaderFor(target: string, cookies: readonly LoginCookie[]): string {
  const host = new URL(target).hostname.toLowerCase();
  return cookies
    .filter((cookie) => cookie.domain === undefined || cookieDomainMatches(host, cookie.domain))
    .map((cookie) => `${cookie.name}=${cookie.value}`)
    .join('; ');
}
