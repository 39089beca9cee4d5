/** The bearer check of the protected `/api` scope and the MCP endpoint. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, unauthenticated } from '../shared/errors.js';
import { authenticateBearer } from './auth.service.js';

const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+) *$/i;

/** The JWT of a well-formed `Authorization: Bearer` header, else undefined. */
export function bearerToken(request: FastifyRequest): string | undefined {
  return BEARER.exec(request.headers.authorization ?? '')?.[1];
}

/**
 * onRequest hook of the protected scope: the Authorization header is the only bearer method. A
 * request that fails here counts against its client address's rate limit before its 401 (or is
 * the 429 once the address is over), so guessing tokens is limited like any anonymous traffic.
 */
export async function requireBearer(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  try {
    const token = bearerToken(request);
    if (!token) throw unauthenticated('Unauthenticated.', { reason: request.headers.authorization ? 'malformed header' : 'no header' });
    request.principal = await authenticateBearer(this.ctx.db, this.ctx.tokens, token);
  } catch (error) {
    // Only refused credentials count: a store outage is not the client's attempt.
    if (error instanceof AppError && error.code === 'unauthenticated') await this.countFailedAuthentication(request, reply);
    throw error;
  }
}
