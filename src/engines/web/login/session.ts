/**
 * What a login script's browser ended with, turned into the session the scan sends
 * (contract.ts `LoginSession`): the cookies that belong to the target, the page's storage, and an
 * `authorization: Bearer` header when the storage holds a token (the rule: `bearerToken`).
 */
import { cookieDomainMatches } from '../../../shared/cookie-domain.js';
import type { BrowserCookie, LoginSession } from '../contract.js';

/** What the runner (assets/login-runner.py) writes: every cookie of the browser, the current page's storage. */
export interface BrowserState {
  cookies: BrowserCookie[];
  local: Record<string, string>;
  session: Record<string, string>;
  /** The page the script ended on. */
  url: string;
}

/** Storage keys that name a credential sent as a bearer token, most specific first. */
const TOKEN_KEYS = ['access_token', 'accesstoken', 'auth_token', 'authtoken', 'token', 'jwt', 'id_token', 'idtoken', 'bearer', 'auth'];
/** Storage keys holding tokens that must not be sent as the session (refresh tokens, anti-CSRF tokens). */
const NOT_A_SESSION = /refresh|csrf|xsrf/i;
const JWT = /^eyJ[\w-]+\.[\w-]+\.[\w-]*$/;
/** An opaque token: one word of at least 20 token characters. */
const OPAQUE = /^[\w.~+/=-]{20,4096}$/;

/**
 * The session a login produced: the cookies whose domain matches the target's host (an identity
 * provider's or an analytics cookie stays behind), the storage as read, and the bearer header.
 */
export function toLoginSession(state: BrowserState, startUrl: string): LoginSession {
  const host = new URL(startUrl).hostname.toLowerCase();
  const cookies = state.cookies.filter((cookie) => cookie.domain === undefined || cookieDomainMatches(host, cookie.domain));
  const storage = { local: state.local, session: state.session };
  const token = bearerToken(storage);
  return { cookies, storage, headers: token ? { authorization: `Bearer ${token}` } : {} };
}

/**
 * The bearer token a single-page application keeps in its storage, or null. The rule: a storage
 * item whose key (lower-cased; its last `.`, `:` or `/` separated part) is one of TOKEN_KEYS or
 * ends with `_token`/`-token`, and is not a refresh or anti-CSRF token, whose value is a JWT or an
 * opaque token (20+ token characters, no spaces); the value may be a JSON string, or a JSON object
 * holding such a key one level down (`{"access_token": "..."}`, as OIDC libraries keep it).
 * localStorage before sessionStorage; among candidates, a JWT first, then the key's rank.
 */
export function bearerToken(storage: LoginSession['storage']): string | null {
  const candidates: Array<{ token: string; rank: number }> = [];
  for (const items of [storage.local, storage.session]) {
    for (const [key, raw] of Object.entries(items)) {
      const parsed = parseJson(raw);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
        for (const [innerKey, inner] of Object.entries(parsed as Record<string, unknown>)) {
          if (typeof inner === 'string') consider(innerKey, inner, candidates);
        }
      } else {
        consider(key, typeof parsed === 'string' ? parsed : raw, candidates);
      }
    }
  }
  candidates.sort((a, b) => a.rank - b.rank);
  return candidates[0]?.token ?? null;
}

function consider(key: string, value: string, candidates: Array<{ token: string; rank: number }>): void {
  const name = key.toLowerCase().split(/[.:/]/).pop() ?? '';
  if (NOT_A_SESSION.test(name)) return;
  const index = TOKEN_KEYS.indexOf(name);
  const keyRank = index >= 0 ? index : /[_-]token$/.test(name) ? TOKEN_KEYS.length : -1;
  if (keyRank < 0) return;
  const token = value.trim().replace(/^Bearer\s+/i, '');
  if (JWT.test(token)) candidates.push({ token, rank: keyRank });
  else if (OPAQUE.test(token)) candidates.push({ token, rank: 100 + keyRank });
}

function parseJson(text: string): unknown {
  if (!/^\s*["{]/.test(text)) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
