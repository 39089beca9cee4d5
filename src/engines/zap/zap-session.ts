/**
 * Authenticated ZAP scans: the scan's login script is replayed by the deployment's login runner
 * (the built-in web engine's, given to this driver by the registry: engines do not import each
 * other), and the session it produced is injected into ZAP with replacer rules: a `Cookie`
 * request header carrying the login's cookies for the target's host, and each header the login
 * derived (`Authorization: Bearer ...`). Each rule applies only to the target's scope (its `url`
 * regex), so the session never reaches another site ZAP talks to, and is removed at the end.
 */
import type { Egress } from '../../shared/egress.js';
import type { ZapApi } from './zap-api.js';
import { cookieHeaderFor, scopeRegexes, type LoginCookie } from './zap-scope.js';

/** The session a login produced (the web engine's `LoginSession` fits). */
export interface ZapLoginSession {
  cookies: LoginCookie[];
  /** Headers to send with every request, names lower-case (`authorization`). */
  headers: Record<string, string>;
}

/** Replays a login script against the start URL (the web engine's `LoginRunner` fits). */
export type ZapLogin = (request: { script: string; startUrl: string; signal: AbortSignal; egress: Egress }) => Promise<ZapLoginSession>;

/**
 * Adds the session's replacer rules, each description pushed to `added` (for removal) before it
 * is sent, so a failure half-way leaves nothing behind once the caller cleans up.
 */
export async function injectSession(api: ZapApi, input: { target: string; ruleName: string; session: ZapLoginSession; signal: AbortSignal }, added: string[]): Promise<void> {
  const headers: Array<[string, string]> = [];
  const cookie = cookieHeaderFor(input.target, input.session.cookies);
  if (cookie) headers.push(['Cookie', cookie]);
  for (const [name, value] of Object.entries(input.session.headers)) if (name.toLowerCase() !== 'cookie') headers.push([name, value]);
  const url = scopeRegexes(input.target)[0];
  for (const [name, value] of headers) {
    const description = `${input.ruleName}-${name.toLowerCase()}`;
    added.push(description);
    // REQ_HEADER sets the header, adding it when the request has none.
    await api.call('replacer/action/addRule', { description, enabled: true, matchType: 'REQ_HEADER', matchRegex: false, matchString: name, replacement: value, url }, input.signal);
  }
}
