/**
 * The options a scan may set for the nuclei engine (`engine_options` of the API) and how a job
 * applies them. Selection options narrow the default set of templates (they never reach templates
 * outside it); the politeness options narrow the deployment's limits, never widen them: the rate
 * and the concurrency are capped by RAMPART_SCAN_RATE and RAMPART_SCAN_CONCURRENCY.
 */
import { Type, type Static } from 'typebox';
import type { EngineJob } from '../engine.js';

/** Requests per second to one host when neither the scan nor the deployment says less (nuclei's own default rate, `-rl 150`). */
export const DEFAULT_RATE_PER_HOST = 150;
/** Requests in flight to one host at once (nuclei's `-c` is 25 templates). */
export const DEFAULT_HOST_CONCURRENCY = 25;
/** Template runs (one template on one service) in flight at once. */
export const DEFAULT_RUN_CONCURRENCY = 25;
/** Consecutive network errors after which a host is skipped (nuclei `-mhe 30`). */
export const DEFAULT_MAX_HOST_ERRORS = 30;

const MAX_LIST = 200;
/** Stars in one template-id glob: enough for any real pattern (`cves-*-*`), and a bound on matching work. */
export const MAX_GLOB_STARS = 8;
const MAX_RATE = 1_000_000;

/** The caps of the options: the deployment's own limits (`EngineLimits` fits). */
export interface NucleiOptionCaps {
  ratePerSecond: number;
  maxConcurrency: number;
}

const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical', 'unknown'] as const;

function nameList(description: string) {
  return Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: MAX_LIST, description }));
}

/** A list of template ids or globs; each glob has at most MAX_GLOB_STARS stars. */
function globList(description: string) {
  // `[^*]` and `\*` never overlap, so this pattern checks in linear time.
  const pattern = `^[^*]*(?:\\*[^*]*){0,${MAX_GLOB_STARS}}$`;
  return Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200, pattern }), { maxItems: MAX_LIST, description }));
}

/** The options schema, its maximums taken from the deployment's caps. */
export function nucleiOptionsSchema(caps: NucleiOptionCaps) {
  return Type.Object(
    {
      tags: nameList('Run only templates with at least one of these tags. Naming a tag excluded by default (intrusive, fuzz, bruteforce, default-login) opts in to it; dos never runs'),
      exclude_tags: nameList('Leave out templates with any of these tags (added to the default exclusions)'),
      severities: Type.Optional(Type.Array(Type.Union(SEVERITIES.map((s) => Type.Literal(s))), { minItems: 1, description: 'Run only templates of these severities' })),
      template_ids: globList(`Run only these templates: ids, or globs with * (cves-2021-*; at most ${MAX_GLOB_STARS} stars). A template excluded by default by its tags runs when named here`),
      exclude_template_ids: globList(`Leave out these templates: ids or globs with * (at most ${MAX_GLOB_STARS} stars)`),
      rate_per_host: Type.Optional(
        Type.Integer({ minimum: 1, maximum: caps.ratePerSecond > 0 ? caps.ratePerSecond : MAX_RATE, description: `Requests per second to one host (default ${DEFAULT_RATE_PER_HOST}), at most RAMPART_SCAN_RATE` }),
      ),
      concurrency: Type.Optional(
        Type.Integer({ minimum: 1, maximum: caps.maxConcurrency, description: `Template runs in flight at once (default ${DEFAULT_RUN_CONCURRENCY}), at most RAMPART_SCAN_CONCURRENCY` }),
      ),
    },
    { additionalProperties: false },
  );
}

export type NucleiOptions = Static<ReturnType<typeof nucleiOptionsSchema>>;

/** How a run is shaped once the scan's options met the deployment's caps. */
export interface AppliedNucleiOptions {
  selection: Pick<NucleiOptions, 'tags' | 'exclude_tags' | 'severities' | 'template_ids' | 'exclude_template_ids'>;
  /** Requests per second to one host. */
  ratePerHost: number;
  /** Requests per second overall; 0 for none beyond the per-host rate. */
  rateOverall: number;
  /** Requests in flight to one host. */
  hostConcurrency: number;
  /** Template runs in flight at once. */
  runConcurrency: number;
}

/**
 * The job's options over the defaults, each clamped to the deployment's caps again (they may have
 * shrunk since the scan was created).
 */
export function applyNucleiOptions(job: Pick<EngineJob, 'options' | 'limits'>): AppliedNucleiOptions {
  const options = (job.options ?? {}) as NucleiOptions;
  const { ratePerSecond, maxConcurrency } = job.limits;
  const capRate = (value: number) => (ratePerSecond > 0 ? Math.min(value, ratePerSecond) : value);
  const capConcurrency = (value: number) => Math.max(1, Math.min(value, maxConcurrency));
  return {
    selection: {
      tags: options.tags,
      exclude_tags: options.exclude_tags,
      severities: options.severities,
      template_ids: options.template_ids,
      exclude_template_ids: options.exclude_template_ids,
    },
    ratePerHost: capRate(options.rate_per_host ?? DEFAULT_RATE_PER_HOST),
    rateOverall: ratePerSecond,
    hostConcurrency: capConcurrency(DEFAULT_HOST_CONCURRENCY),
    runConcurrency: capConcurrency(options.concurrency ?? DEFAULT_RUN_CONCURRENCY),
  };
}
