/**
 * What every route can reach: configuration, the store and the shared services, decorated on the
 * Fastify instance as `app.ctx`; and the authenticated principal on each request. It sits at the
 * composition root (beside app.ts, which fills it) because it names every module's dependencies;
 * modules read it through Fastify's type augmentation, never by importing it.
 */
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { Mailer } from './mail/mailer.js';
import type { TokenService } from './auth/tokens.service.js';
import type { Principal } from './auth/auth.service.js';
import type { RunQueue } from './scans/run-queue.js';
import type { ScanDeps } from './scans/scans.service.js';
import type { Guard } from './scans/scans.validation.js';
import type { EngineRegistry } from './engines/registry.js';

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
