/**
 * What every route can reach: configuration, the store and the shared services, decorated on the
 * Fastify instance as `app.ctx`; and the authenticated principal on each request.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Mailer } from '../mail/mailer.js';
import type { TokenService } from '../auth/tokens.service.js';
import type { RunQueue } from '../runs/run-queue.js';
import type { ScanDeps } from '../scans/scans.service.js';
import type { EngineRegistry } from '../engines/registry.js';
import type { Guard } from '../scans/scans.validation.js';
import { authenticateBearer, type Principal } from '../auth/auth.service.js';
import { AppError, unauthenticated } from '../shared/errors.js';

export interface AppContext {
  config: Config;
  db: Db;
  tokens: TokenService;
  mailer: Mailer;
  /** Decides which addresses managed scans may reach (RAMPART_ALLOW_TARGETS). */
  guard: Guard;
  /** Wakes this process's workers when a run is queued; cancels runs of deleted scans. */
  queue: RunQueue;
  clock: () => Date;
  /** Which engine serves each scan type on this deployment (shared with in-process workers). */
  engines: EngineRegistry;
  /** What the scan service needs, assembled once. */
  scans: ScanDeps;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** The Laravel-style error bodies, for response schemas and the OpenAPI document. */
export const ErrorSchema = Type.Object({ message: Type.String() }, { $id: 'Error', description: 'An error' });
export const ValidationErrorSchema = Type.Object(
  { message: Type.String(), errors: Type.Record(Type.String(), Type.Array(Type.String())) },
  { $id: 'ValidationError', description: 'Validation failed: messages by field' },
);

/** Standard error responses of an authenticated route, for the OpenAPI document. */
export const authErrors = {
  401: Type.Ref('Error'),
  429: Type.Ref('Error'),
} as const;

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
