/**
 * The options a Nuclei scan may set when the nuclei binary runs it (`engine_options`), and the
 * command line they become. Selection narrows the templates (tags, severities, ids) within the
 * deployment's policy (binary-policy.ts); the rate and the concurrency are capped by the deployment
 * (RAMPART_SCAN_RATE, RAMPART_SCAN_CONCURRENCY), the exchange timeout is RAMPART_NUCLEI_TIMEOUT_MS.
 */
import { Type, type Static } from 'typebox';
import type { EngineJob } from '../../engine.js';
import { DEFAULT_EXCLUDED_TAGS, NEVER_RUN_TAGS } from '../selection.js';
import { NEVER_RUN_PROTOCOLS } from '../templates/safety.js';

/** nuclei's own defaults, used when the deployment sets no cap. */
const NUCLEI_RATE = 150;
const NUCLEI_CONCURRENCY = 25;
/** nuclei's `-pc` default: requests of one template's payloads in flight. */
const NUCLEI_PAYLOAD_CONCURRENCY = 25;
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
      tags: names(`Run only templates with one of these tags. Naming a tag excluded by default (${DEFAULT_EXCLUDED_TAGS.join(', ')}) opts in to it; ${NEVER_RUN_TAGS.join(', ')} never runs`),
      exclude_tags: names('Leave out templates with these tags (added to the default exclusions)'),
      severities: Type.Optional(
        Type.Array(Type.Union(['info', 'low', 'medium', 'high', 'critical', 'unknown'].map((s) => Type.Literal(s))), { minItems: 1, maxItems: 6, description: 'Run only templates of these severities (nuclei -s)' }),
      ),
      template_ids: names('Run only these template ids; * wildcards allowed (nuclei -id)'),
      exclude_template_ids: names('Leave out these template ids (nuclei -eid)'),
      rate_per_second: Type.Optional(Type.Integer({ minimum: 1, maximum: caps.ratePerSecond > 0 ? caps.ratePerSecond : 100_000, description: 'Requests per second (nuclei -rl), at most RAMPART_SCAN_RATE when set' })),
      concurrency: Type.Optional(
        Type.Integer({ minimum: 1, maximum: Math.max(1, caps.maxConcurrency), description: 'Templates run in parallel (nuclei -c); templates times payload requests in flight stay within RAMPART_SCAN_CONCURRENCY' }),
      ),
    },
    { additionalProperties: false },
  );
}

export type BinaryOptions = Static<ReturnType<typeof binaryOptionsSchema>>;

/** Where the run's files and ports are. */
export interface RunPlaces {
  targetsFile: string;
  /**
   * The templates: a file listing the paths the policy permits (binary-policy.ts), or undefined for
   * nuclei's own installed templates (then only nuclei's filters apply).
   */
  templateList: string | undefined;
  metricsPort: number;
  /** The egress proxy every HTTP request goes through. */
  proxyUrl: string;
  /** Bound on one exchange (RAMPART_NUCLEI_TIMEOUT_MS). */
  timeoutMs: number;
}

/** The scan's tags nuclei may be given: never-run tags left out (`-tags dos` would lift `-etags dos`). */
export function runnableTags(options: BinaryOptions): string[] {
  return (options.tags ?? []).filter((tag) => !NEVER_RUN_TAGS.includes(tag.toLowerCase()));
}

/**
 * The nuclei command line of a job (without the program). With a template list the selection is
 * already in it, so only the never-run backstops are added; without one the scan's selection goes
 * to nuclei's filters, with the default tag exclusions for tags the scan did not name.
 */
export function buildNucleiArgs(job: EngineJob, places: RunPlaces): string[] {
  const options = (job.options ?? {}) as BinaryOptions;
  const caps = job.limits;
  const rate = caps.ratePerSecond > 0 ? Math.min(options.rate_per_second ?? caps.ratePerSecond, caps.ratePerSecond) : (options.rate_per_second ?? NUCLEI_RATE);
  const cap = Math.max(1, caps.maxConcurrency);
  const concurrency = Math.min(options.concurrency ?? NUCLEI_CONCURRENCY, cap);
  // In flight: templates (-c) x hosts per template (-bs) x payload requests per template (-pc).
  const payloadConcurrency = Math.max(1, Math.min(NUCLEI_PAYLOAD_CONCURRENCY, Math.floor(cap / concurrency)));
  const timeoutSeconds = Math.max(1, Math.ceil(places.timeoutMs / 1000));
  const args = ['-jsonl', '-silent', '-nc', '-duc', '-ni', '-stats', '-sj', '-si', '5', '-mp', String(places.metricsPort)];
  args.push('-l', places.targetsFile, '-proxy', places.proxyUrl);
  // Backstops whatever the templates: never-run tags and protocols (-ept sees a template's first protocol only).
  const excludedTags = [...NEVER_RUN_TAGS];
  if (places.templateList) {
    args.push('-t', places.templateList);
  } else {
    const tags = runnableTags(options);
    const named = new Set(tags.map((tag) => tag.toLowerCase()));
    excludedTags.push(...DEFAULT_EXCLUDED_TAGS.filter((tag) => !named.has(tag)), ...(options.exclude_tags ?? []));
    if (tags.length > 0) args.push('-tags', tags.join(','));
    if (options.severities) args.push('-s', options.severities.join(','));
    if (options.template_ids) args.push('-id', options.template_ids.join(','));
    if (options.exclude_template_ids) args.push('-eid', options.exclude_template_ids.join(','));
  }
  args.push('-etags', [...new Set(excludedTags)].join(','), '-ept', NEVER_RUN_PROTOCOLS.join(','));
  args.push('-rl', String(rate), '-c', String(concurrency), '-bs', '1', '-pc', String(payloadConcurrency), '-timeout', String(timeoutSeconds));
  return args;
}
