/**
 * The options a ZAP scan may set for the built-in web scanner (`engine_options` of the API) and
 * how a job applies them. The crawl and budget options bound the scan; the politeness options
 * narrow the deployment's limits, never widen them: the rate and the concurrency are capped by
 * RAMPART_SCAN_RATE and RAMPART_SCAN_CONCURRENCY, on the schema and again when a job runs (the
 * caps may have shrunk since the scan was created).
 */
import { Type, type Static } from 'typebox';
import type { EngineJob } from '../engine.js';

export const DEFAULTS = {
  maxPages: 500,
  maxDepth: 10,
  maxRequests: 20_000,
  maxDurationMinutes: 30,
  ratePerSecond: 50,
  concurrency: 8,
  requestTimeoutSeconds: 10,
} as const;

/** Above this a rate is "no limit" in practice; bounds the schema when the deployment sets none. */
const MAX_RATE = 1_000_000;

/** The caps of the options: the deployment's own limits (`EngineLimits` fits). */
export interface WebOptionCaps {
  ratePerSecond: number;
  maxConcurrency: number;
}

/** A list of the engine's check ids (`checks` / `exclude_checks`): an id it does not have is refused at scan creation. */
const checkList = (ids: readonly string[], description: string) =>
  Type.Optional(Type.Array(Type.String({ enum: [...ids] }), { maxItems: 100, uniqueItems: true, description: `${description} (ids: ${ids.join(', ')})` }));

/** The options schema, its maximums taken from the deployment's caps, the check ids from the engine's checks. */
export function webOptionsSchema(caps: WebOptionCaps, checkIds: readonly string[]) {
  return Type.Object(
    {
      max_pages: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: `Pages the crawler fetches at most (default ${DEFAULTS.maxPages})` })),
      max_depth: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: `Links followed from the start URL at most (default ${DEFAULTS.maxDepth})` })),
      max_requests: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: `Requests the whole scan sends at most (default ${DEFAULTS.maxRequests})` })),
      max_duration_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 24 * 60, description: `Wall time of the scan at most, in minutes (default ${DEFAULTS.maxDurationMinutes})` })),
      rate_per_second: Type.Optional(
        Type.Integer({ minimum: 1, maximum: caps.ratePerSecond > 0 ? caps.ratePerSecond : MAX_RATE, description: `Requests per second to the site (default ${DEFAULTS.ratePerSecond}), at most RAMPART_SCAN_RATE` }),
      ),
      concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: caps.maxConcurrency, description: `Requests in flight at once (default ${DEFAULTS.concurrency}), at most RAMPART_SCAN_CONCURRENCY` })),
      request_timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 300, description: `Deadline of one request, in seconds (default ${DEFAULTS.requestTimeoutSeconds})` })),
      checks: checkList(checkIds, 'Run only these checks'),
      exclude_checks: checkList(checkIds, 'Leave out these checks'),
      allow_destructive: Type.Optional(
        Type.Boolean({ description: 'Follow links and submit forms that look destructive or end the session (logout, delete, reset, setup...). Default false' }),
      ),
    },
    { additionalProperties: false },
  );
}

export type WebOptions = Static<ReturnType<typeof webOptionsSchema>>;

/** A run's shape once the scan's options met the deployment's caps. */
export interface AppliedWebOptions {
  maxPages: number;
  maxDepth: number;
  maxRequests: number;
  /** Wall time of the whole scan, in milliseconds. */
  maxDurationMs: number;
  /** Requests per second; never 0 (the scanner is always polite, even when the deployment sets no rate). */
  ratePerSecond: number;
  concurrency: number;
  requestTimeoutMs: number;
  /** Keeps a check (by id) in this run. */
  runsCheck(id: string): boolean;
  allowDestructive: boolean;
}

/** The job's options over the defaults, each clamped to the deployment's caps again. */
export function applyWebOptions(job: Pick<EngineJob, 'options' | 'limits'>): AppliedWebOptions {
  const options = (job.options ?? {}) as WebOptions;
  const { ratePerSecond: rateCap, maxConcurrency } = job.limits;
  const rate = options.rate_per_second ?? DEFAULTS.ratePerSecond;
  const include = options.checks ? new Set(options.checks) : null;
  const exclude = new Set(options.exclude_checks ?? []);
  return {
    maxPages: options.max_pages ?? DEFAULTS.maxPages,
    maxDepth: options.max_depth ?? DEFAULTS.maxDepth,
    maxRequests: options.max_requests ?? DEFAULTS.maxRequests,
    maxDurationMs: (options.max_duration_minutes ?? DEFAULTS.maxDurationMinutes) * 60_000,
    ratePerSecond: rateCap > 0 ? Math.min(rate, rateCap) : rate,
    concurrency: Math.max(1, Math.min(options.concurrency ?? DEFAULTS.concurrency, maxConcurrency)),
    requestTimeoutMs: (options.request_timeout_seconds ?? DEFAULTS.requestTimeoutSeconds) * 1000,
    runsCheck: (id) => (include === null || include.has(id)) && !exclude.has(id),
    allowDestructive: options.allow_destructive === true,
  };
}
