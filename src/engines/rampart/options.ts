/**
 * The options a scan may set for the Rampart engine (`engine_options` of the API), and how a job
 * applies them. Options narrow a scan within the deployment's settings, never beyond them: the
 * rate, the concurrency and the connect timeout are capped by RAMPART_SCAN_RATE,
 * RAMPART_SCAN_CONCURRENCY and RAMPART_CONNECT_TIMEOUT_MS, so a user cannot make a scan louder
 * than the operator allowed. The port set replaces the deployment's default set.
 */
import { Type, type Static } from 'typebox';
import type { EngineJob, EngineLimits } from '../engine.js';

/** Above this, a rate is "no limit" in practice; bounds the schema when the deployment sets none. */
const MAX_RATE = 1_000_000;
/** A port list longer than this is better said as `all`. */
const MAX_PORTS_LISTED = 1024;
const MIN_CONNECT_TIMEOUT_MS = 50;

/** The caps of the options: the deployment's own limits. */
export type OptionCaps = Pick<EngineLimits, 'ratePerSecond' | 'maxConcurrency' | 'connectTimeoutMs'>;

/** The options schema, its maximums taken from the deployment's caps. */
export function rampartOptionsSchema(caps: OptionCaps) {
  return Type.Object(
    {
      ports: Type.Optional(
        Type.Union([Type.Literal('default'), Type.Literal('all'), Type.Array(Type.Integer({ minimum: 1, maximum: 65535 }), { minItems: 1, maxItems: MAX_PORTS_LISTED })], {
          description: `"default" (the built-in list), "all" (1-65535) or a list of up to ${MAX_PORTS_LISTED} ports`,
        }),
      ),
      rate_per_second: Type.Optional(
        Type.Integer({ minimum: 1, maximum: caps.ratePerSecond > 0 ? caps.ratePerSecond : MAX_RATE, description: 'Connection attempts per second, at most the deployment\'s RAMPART_SCAN_RATE' }),
      ),
      max_concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: caps.maxConcurrency, description: 'Probes in flight at once, at most RAMPART_SCAN_CONCURRENCY' })),
      empty_password_logins: Type.Optional(
        Type.Boolean({
          description:
            'Try the empty-password login on MySQL/MariaDB (root, then the anonymous account; the only credential the engine ever sends). Default true; false leaves it out. Cannot turn it on where the deployment set RAMPART_EMPTY_PASSWORD_LOGINS=false',
        }),
      ),
      connect_timeout_ms: Type.Optional(
        Type.Integer({ minimum: Math.min(MIN_CONNECT_TIMEOUT_MS, caps.connectTimeoutMs), maximum: caps.connectTimeoutMs, description: 'TCP connect timeout, at most RAMPART_CONNECT_TIMEOUT_MS' }),
      ),
    },
    { additionalProperties: false },
  );
}

export type RampartOptions = Static<ReturnType<typeof rampartOptionsSchema>>;

/** The schema of a deployment whose caps are unknown (an engine built without them, in tests). */
export const UNCAPPED: OptionCaps = { ratePerSecond: 0, maxConcurrency: 4096, connectTimeoutMs: 60_000 };

/**
 * The ports and limits a job runs with: its options over the deployment's settings, each clamped
 * to the deployment's caps again (they may have shrunk since the scan was created).
 */
export function applyOptions(job: EngineJob): { ports: EngineJob['ports']; limits: EngineLimits; emptyPasswordLogins: boolean } {
  const options = (job.options ?? {}) as RampartOptions;
  const caps = job.limits;
  const clamp = (value: number | undefined, cap: number) => (value === undefined ? cap : Math.min(value, cap));
  return {
    ports: options.ports ?? job.ports,
    emptyPasswordLogins: options.empty_password_logins !== false,
    limits: {
      ...caps,
      connectTimeoutMs: clamp(options.connect_timeout_ms, caps.connectTimeoutMs),
      maxConcurrency: clamp(options.max_concurrency, caps.maxConcurrency),
      ratePerSecond: options.rate_per_second === undefined ? caps.ratePerSecond : caps.ratePerSecond > 0 ? Math.min(options.rate_per_second, caps.ratePerSecond) : options.rate_per_second,
    },
  };
}
