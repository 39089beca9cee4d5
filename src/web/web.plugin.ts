/**
 * The web application: server-rendered pages at `/`, served by the same process and origin as the
 * API (docs/WEB-APP.md). This plugin owns everything the pages share, encapsulated so that none of
 * it reaches /api or /mcp: form and cookie parsing, the session of the browser, CSRF checks on
 * every state-changing request, the security headers (a strict CSP: no inline script or style),
 * the static assets, and error pages instead of JSON errors.
 */
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import { AppError, statusOf } from '../shared/errors.js';
import { PACKAGE_ROOT } from '../shared/version.js';
import { derivedKey } from '../auth/signing-secret.js';
import { randomToken } from '../shared/crypto.js';
import { resumeSession, type SessionPolicy } from '../accounts/sessions.service.js';
import { cookieAttributes, cookieNames } from './web-context.js';
import { csrfProblem, csrfToken } from './csrf.js';
import { sendPage } from './render.js';
import { ErrorPage } from './pages/error.page.js';

/** The Content-Security-Policy of every page: nothing but this origin, no inline code, no framing. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join('; ');

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Pages for people who are not signed in (or signing in again): their requests count against the
 * client address at the trial rate even when a session comes with them, so that several accounts
 * cannot multiply what one address may send (mails, OIDC logins, sign-in attempts).
 */
const ANONYMOUS_PAGES = new Set(['/sign-in', '/sign-up', '/verify-email', '/verify-email/resend', '/forgot-password', '/reset-password', '/auth/oidc', '/auth/oidc/callback']);

/** The headers of every page and asset: the CSP, no sniffing, no framing, no referrer off-site, HSTS over HTTPS. */
export function securityHeaders(baseUrl: string): Record<string, string> {
  return {
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'cross-origin-opener-policy': 'same-origin',
    ...(baseUrl.startsWith('https:') ? { 'strict-transport-security': 'max-age=31536000' } : {}),
  };
}

export function sessionPolicy(app: FastifyInstance): SessionPolicy {
  const web = app.ctx.config.web;
  return { idleMinutes: web.sessionIdleMinutes, maxHours: web.sessionMaxHours };
}

/** Options of the session cookie (and the pre-session one): HttpOnly, SameSite=Lax, Secure over HTTPS. */
export function sessionCookieOptions(app: FastifyInstance, maxAgeSeconds: number) {
  return { ...cookieAttributes(app.ctx.config.baseUrl.startsWith('https:')), maxAge: maxAgeSeconds };
}

/**
 * Registers the shared machinery, then `pages` (the routes of every page) inside the same scope.
 * The web scope answers HTML: an AppError thrown by a page becomes an error page with its status.
 */
export async function webApplication(app: FastifyInstance, options: { pages: (scope: FastifyInstance) => Promise<void> }): Promise<void> {
  const { config, db } = app.ctx;
  const secure = config.baseUrl.startsWith('https:');
  const names = cookieNames(secure);
  const csrfKey = await derivedKey(db, config.jwtSecret, 'csrf');
  const cookieKey = await derivedKey(db, config.jwtSecret, 'cookies');
  const siteOrigin = new URL(config.baseUrl).origin;

  // Pages are not part of the API: none appears in the OpenAPI document or the /docs reference.
  app.addHook('onRoute', (route) => {
    route.schema = { ...(route.schema ?? {}), hide: true };
    if (ANONYMOUS_PAGES.has(route.url)) route.config = { ...(route.config as object), rateLimitByAddress: true } as typeof route.config;
  });

  await app.register(fastifyCookie, { secret: cookieKey.toString('base64url') });
  await app.register(fastifyFormbody, { bodyLimit: 262_144 });
  await app.register(fastifyStatic, {
    root: [path.join(PACKAGE_ROOT, 'assets', 'web'), path.join(PACKAGE_ROOT, 'dist', 'client')],
    prefix: '/assets/',
    decorateReply: false,
    index: false,
    // Revalidated on every use (ETag): modules import each other by plain URL, so nothing may be stale after an upgrade.
    cacheControl: true,
    maxAge: 0,
  });

  app.decorateRequest('web', null as never);
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/assets/')) return;
    let viewer = null;
    const token = request.cookies[names.session];
    if (token) {
      const resumed = await resumeSession(db, token, sessionPolicy(app));
      if (resumed) viewer = { user: resumed.user, sessionIdHash: resumed.session.id_hash };
      else reply.clearCookie(names.session, cookieAttributes(secure));
    }
    let binding = viewer?.sessionIdHash;
    if (!binding) {
      binding = request.cookies[names.preSession];
      if (!binding || !/^[A-Za-z0-9_-]{43}$/.test(binding)) {
        binding = randomToken(32);
        reply.setCookie(names.preSession, binding, sessionCookieOptions(app, 86_400));
      }
    }
    request.web = { viewer, csrfToken: csrfToken(csrfKey, binding) };
  });

  app.addHook('preHandler', async (request) => {
    if (!STATE_CHANGING.has(request.method)) return;
    const problem = csrfProblem(request, request.web.csrfToken, [siteOrigin, `${request.protocol}://${request.host}`]);
    if (problem) {
      throw new AppError('forbidden', 'This form has expired or was sent from another site. Go back, reload the page and try again.', { context: { csrf: problem } });
    }
  });

  const headers = securityHeaders(config.baseUrl);
  app.addHook('onSend', async (request, reply) => {
    reply.headers(headers);
  });

  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    const known = error instanceof AppError ? error : undefined;
    const status = known ? statusOf(known.code) : (error.statusCode ?? 500);
    if (status >= 500) request.log.error({ err: error }, 'page failed');
    else if (known?.context) request.log.info({ code: known.code, context: known.context }, known.message);
    return sendErrorPage(request, reply, status, status >= 500 ? undefined : error.message);
  });

  await options.pages(app);
}

/** An HTML error page (404, 403, 429, 500...) in the application's frame. */
export function sendErrorPage(request: FastifyRequest, reply: FastifyReply, status: number, message?: string): FastifyReply {
  const web = request.web as FastifyRequest['web'] | null;
  return sendPage(reply, ErrorPage({ status, message, user: web?.viewer?.user ?? null, csrfToken: web?.csrfToken ?? '' }), status);
}

/** preHandler of pages for signed-in accounts: anyone else is sent to sign in, and back here after. */
export async function requireViewer(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.web.viewer) return;
  const next = request.method === 'GET' ? request.url : '/';
  await reply.redirect(`/sign-in?next=${encodeURIComponent(next)}`, 303);
}

/** The signed-in account of a page behind requireViewer. */
export function viewerOf(request: FastifyRequest) {
  const viewer = request.web.viewer;
  if (!viewer) throw new AppError('unauthenticated', 'Sign in to continue.');
  return viewer;
}

/** Whether a path is the web application's (not the API's, the MCP endpoint's or a discovery document's). */
export function isPagePath(url: string): boolean {
  return !/^\/(api|mcp|\.well-known|docs)(\/|$|\?)/.test(url) && !url.startsWith('/auth.md') && !url.startsWith('/agent/');
}
