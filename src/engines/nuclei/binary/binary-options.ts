/**
 * The options a Nuclei scan may set when the nuclei binary runs it (`engine_options`), and the
 * command line they become. Selection narrows the templates (tags, severities, ids); the rate and
 * the concurrency are capped by the deployment (RAMPART_SCAN_RATE, RAMPART_SCAN_CONCURRENCY).
 */
import { Type, type Static } from 'typebox';
import type { EngineJob } from '../../engine.js';

/** Tags left out unless a scan names them in `tags`: they harm or hammer the target. */
export const DEFAULT_EXCLUDED_TAGS: readonly string[] = ['dos', 'fuzz', 'intrusive', 'bruteforce'];
/** nuclei's own defaults, used when the deployment sets no cap. */
const NUCLEI_RATE = 150;
const NUCLEI_CONCURRENCY = 25;
const MAX_LIST = 200;

const names = (description: string) =>
  Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200, pattern: '^[^,\\s]+$' }), { minItems: 1, maxItems: MAX_LIST, description }));

/** The caps the options may not exceed (the deployment's scan limits). */
export interface BinaryOptionCaps {
  ratePerSecond: number;
  maxConcurrency: number;
}

/** The options schema, bounded by the deployment's caps. */
export function binaryOptionsSchema(caps: BinaryOptionCaps) {
  return Type.Object(
    {
      tags: names('Run only templates with one of these tags (nuclei -tags)'),
      exclude_tags: names(`Leave out templates with these tags (nuclei -etags), besides ${DEFAULT_EXCLUDED_TAGS.join(', ')} unless named in tags`),
      severities: Type.Optional(
        Type.Array(Type.Union(['info', 'low', 'medium', 'high', 'critical', 'unknown'].map((s) => Type.Literal(s))), { minItems: 1, maxItems: 6, description: 'Run only templates of these severities (nuclei -s)' }),
      ),
      template_ids: names('Run only these template ids; * wildcards allowed (nuclei -id)'),
      exclude_template_ids: names('Leave out these template ids (nuclei -eid)'),
      rate_per_second: Type.Optional(Type.Integer({ minimum: 1, maximum: caps.ratePerSecond > 0 ? caps.ratePerSecond : 100_000, description: 'Requests per second (nuclei -rl), at most RAMPART_SCAN_RATE when set' })),
      concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: Math.max(1, caps.maxConcurrency), description: 'Templates run in parallel (nuclei -c), at most RAMPART_SCAN_CONCURRENCY' })),
    },
    { additionalProperties: false },
  );
}

export type BinaryOptions = Static<ReturnType<typeof binaryOptionsSchema>>;

/** Where the run's files and ports are. */
export interface RunPlaces {
  targetsFile: string;
  /** The templates directory, or undefined for nuclei's own installed templates. */
  templatesDir: string | undefined;
  metricsPort: number;
  /** The egress proxy every HTTP request goes through. */
  proxyUrl: string;
}

/** The nuclei command line of a job (without the program). */
export function buildNucleiArgs(job: EngineJob, places: RunPlaces): string[] {
  const options = (job.options ?? {}) as BinaryOptions;
  const caps = job.limits;
  const rate = caps.ratePerSecond > 0 ? Math.min(options.rate_per_second ?? caps.ratePerSecond, caps.ratePerSecond) : (options.rate_per_second ?? NUCLEI_RATE);
  const concurrency = Math.min(options.concurrency ?? NUCLEI_CONCURRENCY, Math.max(1, caps.maxConcurrency));
  const timeoutSeconds = Math.max(1, Math.ceil(caps.readTimeoutMs / 1000));
  const tags = options.tags ?? [];
  const excluded = [...DEFAULT_EXCLUDED_TAGS.filter((tag) => !tags.includes(tag)), ...(options.exclude_tags ?? [])];
  const args = ['-jsonl', '-silent', '-nc', '-duc', '-ni', '-stats', '-sj', '-si', '5', '-mp', String(places.metricsPort)];
  args.push('-l', places.targetsFile, '-proxy', places.proxyUrl);
  if (places.templatesDir) args.push('-t', places.templatesDir);
  if (tags.length > 0) args.push('-tags', tags.join(','));
  if (excluded.length > 0) args.push('-etags', [...new Set(excluded)].join(','));
  if (options.severities) args.push('-s', options.severities.join(','));
  if (options.template_ids) args.push('-id', options.template_ids.join(','));
  if (options.exclude_template_ids) args.push('-eid', options.exclude_template_ids.join(','));
  args.push('-rl', String(rate), '-c', String(concurrency), '-timeout', String(timeoutSeconds));
  return args;
}
