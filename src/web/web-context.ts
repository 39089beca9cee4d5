/**
 * What a web page knows about its request: the signed-in account (if any), its session, and the
 * CSRF token every form of the page must carry. Filled by the hooks of web.plugin.ts.
 */
import type { User } from '../db/schema.js';

export interface WebViewer {
  user: User;
  /** SHA-256 of the session cookie's token (the session's id in the store). */
  sessionIdHash: string;
}

export interface WebState {
  /** Null when nobody is signed in. */
  viewer: WebViewer | null;
  /** The CSRF token of this browser: put it in every state-changing form as `_csrf`. */
  csrfToken: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    web: WebState;
  }
}

/** Names of the cookies the web application sets. `__Host-` ones are used over HTTPS. */
export interface CookieNames {
  session: string;
  /** A random value binding CSRF tokens for visitors not signed in yet. */
  preSession: string;
  flash: string;
}

export function cookieNames(secure: boolean): CookieNames {
  const prefix = secure ? '__Host-' : '';
  return { session: `${prefix}rampart_session`, preSession: `${prefix}rampart_pre`, flash: `${prefix}rampart_flash` };
}

/**
 * The attributes every cookie of the web application is set and cleared with. A browser ignores
 * the deletion of a `Secure` (and so of any `__Host-`) cookie unless the deletion says `Secure`
 * too, so clearing must repeat them.
 */
export function cookieAttributes(secure: boolean): { path: '/'; httpOnly: true; sameSite: 'lax'; secure: boolean } {
  return { path: '/', httpOnly: true, sameSite: 'lax', secure };
}
