/**
 * CSRF protection of every state-changing request of the web application. A token is the
 * HMAC-SHA256, under a key derived from the deployment secret, of what binds it to the browser: the
 * session id once signed in, before that a random pre-session cookie. A form carries it as `_csrf`
 * (a fetch call as the `x-csrf-token` header, a multipart upload in the action's query string).
 * The request's Origin, when the browser sends one, must also be this site.
 */
import { createHmac } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { safeEqual } from '../shared/crypto.js';

/** The token of one binding (a session id hash or a pre-session cookie value). */
export function csrfToken(key: Buffer, binding: string): string {
  return createHmac('sha256', key).update(`csrf:${binding}`).digest('base64url');
}

/** The token the request sent, from the body, the header or (multipart) the query string. */
function sentCsrfToken(request: FastifyRequest): string | undefined {
  const body = request.body as Record<string, unknown> | undefined;
  if (body && typeof body === 'object' && typeof body._csrf === 'string') return body._csrf;
  const header = request.headers['x-csrf-token'];
  if (typeof header === 'string') return header;
  const query = request.query as Record<string, unknown> | undefined;
  if (query && typeof query._csrf === 'string') return query._csrf;
  return undefined;
}

/** Why a state-changing request is refused, or undefined when it may go on. */
export function csrfProblem(request: FastifyRequest, expected: string, siteOrigins: string[]): string | undefined {
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== 'null' && !siteOrigins.includes(origin)) return `cross-site origin ${origin}`;
  const sent = sentCsrfToken(request);
  if (!sent) return 'no CSRF token';
  if (!safeEqual(sent, expected)) return 'wrong CSRF token';
  return undefined;
}
