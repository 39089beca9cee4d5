/**
 * What the account-entry pages (sign-in, sign-up, verification, password reset) share: reading a
 * form, the `next` address, the browser's session cookie, and the page of a mail server failure.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { localPath } from '../../shared/local-path.js';
import { AppError } from '../../shared/errors.js';
import { clientAddress } from '../../http/rate-limit.js';
import type { StartedSession } from '../../accounts/sessions.service.js';
import type { BrowserClient } from '../../accounts/sign-in.service.js';
import type { AccountClaimCleanup } from '../../accounts/users.service.js';
import { deactivateUserWebhooks } from '../../webhooks/webhooks.service.js';
import { cookieNames } from '../web-context.js';
import { sendErrorPage, sessionCookieOptions, sessionPolicy } from '../web.plugin.js';

/**
 * What a claim of an unverified account (password reset, OIDC) undoes in the modules above
 * accounts: the webhooks whoever held the account before made are turned off.
 */
export const claimCleanup: AccountClaimCleanup = { deactivateWebhooks: deactivateUserWebhooks };

/** A text field of a posted form ('' when absent; the first value when repeated). */
export function formText(request: FastifyRequest, name: string): string {
  const body = request.body as Record<string, unknown> | undefined;
  const value = body && typeof body === 'object' ? body[name] : undefined;
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/** A query parameter ('' when absent). */
export function queryText(request: FastifyRequest, name: string): string {
  const value = (request.query as Record<string, unknown> | undefined)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/** Where to go after signing in: `next` when it is a local path, else `/` (never another site). */
export function safeNext(value: string | undefined): string {
  return localPath(value);
}

/** The browser as the account services see it: address, user agent, and the session it held. */
export function browserClient(request: FastifyRequest): BrowserClient {
  return { address: clientAddress(request), userAgent: request.headers['user-agent'], previousSessionIdHash: request.web.viewer?.sessionIdHash };
}

/** The session policy of the deployment (idle and absolute lifetimes). */
export function policyOf(request: FastifyRequest) {
  return sessionPolicy(request.server);
}

/** Gives the browser its new session's cookie (replacing any earlier one). */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, session: StartedSession): void {
  const app = request.server;
  const maxAge = Math.max(1, Math.floor((session.expiresAt.getTime() - Date.now()) / 1000));
  reply.setCookie(cookieNames(app.ctx.config.baseUrl.startsWith('https:')).session, session.token, sessionCookieOptions(app, maxAge));
}

/**
 * Runs a page's work; a mail server that cannot be reached becomes a 503 page that says so (the
 * error handler would hide a 5xx message), anything else goes on to the error handler.
 */
export async function orMailFailurePage(request: FastifyRequest, reply: FastifyReply, work: () => Promise<FastifyReply>): Promise<FastifyReply> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError && error.code === 'service_unavailable') {
      request.log.error({ err: error, context: error.context }, 'mail not sent');
      return sendErrorPage(request, reply, 503, 'The mail server could not be reached, so no mail was sent. Try again in a few minutes; if it keeps failing, tell the person who runs this Rampart.');
    }
    throw error;
  }
}
