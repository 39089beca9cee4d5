/**
 * Per-account rate limits by plan (DESIGN.md): requests per minute per account, or per client
 * address at the trial rate when the request is not authenticated (public routes, and requests
 * whose bearer token fails). Counters live in Redis when RAMPART_REDIS_URL is set, so every API
 * node shares them; otherwise in this process's memory.
 */
import { randomBytes } from 'node:crypto';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from '../shared/errors.js';

/**
 * Marks a request this process makes to itself (an MCP tool running its API operation through
 * `app.inject`): the MCP request that caused it was counted already. The secret never leaves
 * the process, so no client can claim it.
 */
export const INTERNAL_HEADER = 'x-rampart-internal-call';
export const INTERNAL_SECRET = randomBytes(24).toString('base64url');

/**
 * The client address as limits count it: an IPv4 address, or the /64 network of an IPv6 one (a
 * single host is usually handed a whole /64, so counting addresses inside it would count nothing).
 */
export function clientAddress(request: FastifyRequest): string {
  return normalizeIP(request.ip);
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Counts a request whose authentication failed against its client address (the bucket of
     * unauthenticated requests); throws the 429 once the address is over the trial rate. The
     * bearer check runs before the limiter's own hook, so without this a flood of bad tokens
     * would only ever see 401s.
     */
    countFailedAuthentication(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  }
}

/**
 * Pages of a signed-in person count in a bucket of their own, at the plan's rate but never below
 * this many a minute: an open scan page refreshes its live progress every few seconds, and a person
 * browsing must not run into the limit meant for scripts. Anonymous pages count by address at the
 * trial rate (sign-in attempts have their own lock-out besides).
 */
const MIN_PAGE_LIMIT = 300;

/**
 * The web application's signed-in person (its session hook runs before the limiter), if any; none
 * on the pages a route marks `rateLimitByAddress` (sign-up, password reset...: counted by address).
 */
function pageViewer(request: FastifyRequest): { id: number; role: keyof Config['rateLimits'] } | undefined {
  if ((request.routeOptions.config as { rateLimitByAddress?: boolean } | undefined)?.rateLimitByAddress) return undefined;
  return (request.web as FastifyRequest['web'] | undefined)?.viewer?.user;
}

/** The account a request is counted against: the API's bearer principal, or the page's viewer. */
function accountOf(request: FastifyRequest): { id: number; role: keyof Config['rateLimits'] } | undefined {
  return request.principal?.user ?? pageViewer(request);
}

export async function registerRateLimit(app: FastifyInstance, config: Config): Promise<void> {
  // ioredis is loaded only when a deployment uses it.
  const redis = config.redisUrl
    ? new (await import('ioredis')).Redis(config.redisUrl, { connectTimeout: 2000, maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false })
    : undefined;
  if (redis) {
    redis.on('error', (err) => app.log.warn({ err: err.message }, 'rate-limit store unavailable; requests are not limited meanwhile'));
    app.addHook('onClose', async () => {
      redis.disconnect();
    });
  }
  await app.register(rateLimit, {
    global: true,
    // After authentication (onRequest) so the limit is the account's plan, before validation.
    hook: 'preValidation',
    timeWindow: 60_000,
    max: (request) => {
      const limit = config.rateLimits[accountOf(request)?.role ?? 'trial'];
      return pageViewer(request) ? Math.max(limit, MIN_PAGE_LIMIT) : limit;
    },
    // The web application's stylesheet, script and icon are static files: not counted.
    allowList: (request) => request.headers[INTERNAL_HEADER] === INTERNAL_SECRET || request.url.startsWith('/assets/'),
    keyGenerator: (request) => {
      const viewer = pageViewer(request);
      if (viewer) return `page:${viewer.id}`;
      return request.principal ? `user:${request.principal.user.id}` : `ip:${clientAddress(request)}`;
    },
    ...(redis ? { redis, nameSpace: `${config.redisPrefix}rate:`, skipOnError: true } : {}),
    errorResponseBuilder: () => new AppError('rate_limited', 'Too Many Attempts.'),
  });
  // The plugin's own handler: same store, key (no principal: the address) and headers.
  const countByAddress = app.rateLimit();
  app.decorate('countFailedAuthentication', async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    await countByAddress.call(this, request, reply);
  });
}
