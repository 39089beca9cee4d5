/**
 * One-shot messages carried across a redirect ("Scan created.", "Password changed."): a short,
 * signed, HttpOnly cookie read and cleared by the next page.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { cookieAttributes, cookieNames } from './web-context.js';

export interface Flash {
  kind: 'success' | 'info' | 'error';
  text: string;
}

function names(request: FastifyRequest) {
  return cookieNames(request.server.ctx.config.baseUrl.startsWith('https:'));
}

/** Redirects (303, so a POST becomes a GET) with a message for the next page. */
export function redirectWithFlash(request: FastifyRequest, reply: FastifyReply, location: string, flash: Flash): FastifyReply {
  const secure = request.server.ctx.config.baseUrl.startsWith('https:');
  reply.setCookie(names(request).flash, Buffer.from(JSON.stringify(flash)).toString('base64url'), { ...cookieAttributes(secure), signed: true, maxAge: 60 });
  return reply.redirect(location, 303);
}

/** The message left for this page, if any; clears it. */
export function takeFlash(request: FastifyRequest, reply: FastifyReply): Flash | null {
  const name = names(request).flash;
  const raw = request.cookies[name];
  if (!raw) return null;
  reply.clearCookie(name, cookieAttributes(request.server.ctx.config.baseUrl.startsWith('https:')));
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || !unsigned.value) return null;
  try {
    const parsed = JSON.parse(Buffer.from(unsigned.value, 'base64url').toString('utf8')) as Flash;
    if (!['success', 'info', 'error'].includes(parsed.kind) || typeof parsed.text !== 'string') return null;
    return { kind: parsed.kind, text: parsed.text.slice(0, 500) };
  } catch {
    return null;
  }
}
