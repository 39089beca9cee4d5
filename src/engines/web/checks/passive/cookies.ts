/**
 * Cookie flags, read from every Set-Cookie the scan receives: HttpOnly on cookies that look like
 * session identifiers, Secure on HTTPS sites, and a SameSite restriction. One finding per rule and
 * cookie name on a site (parameter = the cookie's name), at the first response that set it.
 */
import type { CheckContext, WebCheck, WebResponse } from '../../contract.js';
import { firstTime } from '../once.js';
import { isHttps, originOf, withoutQuery } from './response.js';

/** One Set-Cookie line, its attributes lower-cased. */
export interface SetCookie {
  name: string;
  value: string;
  attributes: Map<string, string>;
  line: string;
}

export function parseSetCookies(header: string | undefined): SetCookie[] {
  if (!header) return [];
  const cookies: SetCookie[] = [];
  for (const line of header.split('\n')) {
    const [pair = '', ...rest] = line.split(';');
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const attributes = new Map<string, string>();
    for (const attribute of rest) {
      const at = attribute.indexOf('=');
      const key = (at < 0 ? attribute : attribute.slice(0, at)).trim().toLowerCase();
      if (key) attributes.set(key, at < 0 ? '' : attribute.slice(at + 1).trim());
    }
    cookies.push({ name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim(), attributes, line: line.trim() });
  }
  return cookies;
}

/** Names of session and authentication cookies of common stacks, and the words such names use. */
const SESSION_NAME = /sess|^sid$|[_.-]sid$|auth|token|jwt|login|remember|jsessionid|phpsessid|aspxauth|^connect\.sid$/i;
/** Whether a cookie's name looks like a session or authentication cookie's. */
export function isSessionCookieName(name: string): boolean {
  return SESSION_NAME.test(name) && !READABLE_BY_DESIGN.test(name);
}

/** Anti-forgery cookies are meant to be read by the page's script (the double-submit pattern). */
const READABLE_BY_DESIGN = /csrf|xsrf/i;

/** A cookie being deleted (empty, or expired) leaks nothing. */
function isDeletion(cookie: SetCookie): boolean {
  if (cookie.value === '' || cookie.value === '""' || cookie.attributes.get('max-age') === '0') return true;
  const expires = Date.parse(cookie.attributes.get('expires') ?? '');
  return Number.isFinite(expires) && expires < Date.now();
}

function inspectCookies(response: WebResponse, ctx: CheckContext): void {
  const origin = originOf(response.url);
  if (origin === null) return;
  const report = (ruleId: string, cookie: SetCookie, summary: string): void => {
    if (!firstTime(ctx, `${ruleId} ${origin} ${cookie.name}`)) return;
    ctx.report({ ruleId, url: withoutQuery(response.url), method: response.request.method, parameter: cookie.name, location: 'cookie', proof: [response], summary, highlight: cookie.line });
  };
  for (const cookie of parseSetCookies(response.headers['set-cookie'])) {
    if (isDeletion(cookie)) continue;
    const set = `The response sets "${cookie.line}"`;
    if (isSessionCookieName(cookie.name) && !cookie.attributes.has('httponly')) {
      report('rampart:web-cookie-no-httponly', cookie, `${set}: a session-like cookie without HttpOnly, readable by any script on the site.`);
    }
    if (isHttps(response.url) && !cookie.attributes.has('secure')) {
      report('rampart:web-cookie-no-secure', cookie, `${set} over HTTPS without Secure: the browser also sends it over clear-text HTTP.`);
    }
    const sameSite = cookie.attributes.get('samesite')?.toLowerCase();
    if (sameSite === undefined || sameSite === '') {
      report('rampart:web-cookie-no-samesite', cookie, `${set} without a SameSite attribute.`);
    } else if (sameSite === 'none' && !cookie.attributes.has('secure')) {
      report('rampart:web-cookie-no-samesite', cookie, `${set}: SameSite=None without Secure (browsers reject or downgrade it).`);
    }
  }
}

export const COOKIE_CHECKS: WebCheck[] = [{ id: 'passive-cookies', kind: 'passive', inspect: inspectCookies }];
