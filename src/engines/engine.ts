/**
 * The one interface every scan engine implements, built-in or a driver for an external tool.
 * Engines are plain modules: they know nothing of HTTP or SQL. Given a job they yield events —
 * progress, host states, normalised findings — and stop promptly when the job's signal aborts.
 * The run orchestrator (src/runs) stores what they yield.
 *
 * Glossary: a *job* is one run's work; a *host* is one address (or name) the engine probed; a
 * *finding* is one weakness on one host (and port), normalised to the fields of the Vulnerability
 * resource; the *rule id* names the check that found it (our check id, an NVT OID, a template id).
 *
 * The contract (v2), what an engine owes the orchestrator:
 * - **Identity.** `name` and `version` say what the engine is; the first event of a run should be
 *   `{ type: 'engine', ... }` saying what really ran this time (the tool's own version, how it was
 *   reached, the template set). It is stored on the run and printed in every report, so a fallback
 *   or a stale tool is never silent. Without it the run records `name` and `version`.
 * - **Options.** `optionsSchema` is a TypeBox schema of the options a scan may set for this engine
 *   (`engine_options` of the API). The API validates a scan's options against it at creation, so
 *   the job's `options` already conform; an engine still clamps them to its deployment's caps (the
 *   caps may have shrunk since the scan was created).
 * - **Events.** `progress` (0-100), `host` states, `finding`s, `log` lines (`warn` ones become
 *   the run's notes), and `incomplete` when the engine knows it may have missed something.
 *   Stop promptly, without throwing, once `job.signal` aborts.
 * - **Failure.** Throw an `EngineError` whose kind says whose fault it is (see `EngineErrorKind`);
 *   anything else is read as `internal` (a bug).
 * - **Boundaries.** An engine imports only this file, `src/shared/` and npm packages: no HTTP
 *   framework, no SQL, no sibling engine. What it needs of the store comes in the job.
 */
import type { TSchema } from 'typebox';
import type { AddressGuard } from '../shared/address-guard.js';
import type { Egress } from '../shared/egress.js';

/** One target of a job, as the scan's `scan_target` named it (already validated and normalised). */
export type JobTarget =
  | { kind: 'ip'; value: string }
  | { kind: 'cidr'; value: string }
  | { kind: 'hostname'; value: string }
  | { kind: 'url'; value: string }
  /** One TCP service, `host:port` (IPv6 as `[addr]:port`); Nuclei scans only. */
  | { kind: 'service'; value: string };

export interface EngineLimits {
  /** TCP connect / read timeout per probe, in milliseconds. */
  connectTimeoutMs: number;
  /** How long to wait for a service's first bytes, in milliseconds. */
  readTimeoutMs: number;
  /** Upper bound on probes in flight at once. */
  maxConcurrency: number;
  /** Global probe rate in packets (connection attempts) per second; 0 for no limit. */
  ratePerSecond: number;
}

/** A known vulnerability from the synced database (NVD, with CISA KEV and FIRST EPSS). */
export interface KnownVulnerability {
  cve: string;
  description: string;
  cvssBase: number | null;
  cvssVector: string | null;
  cwe: string | null;
  references: string[];
  /** Listed in the CISA Known Exploited Vulnerabilities catalog. */
  kev: boolean;
  /** FIRST EPSS probability of exploitation in the next 30 days, 0-1. */
  epss: number | null;
  /**
   * NVD's "running on/with" criteria (CPE names) the match depends on and the scan could not
   * check (empty: the configuration matched outright).
   */
  conditions: string[];
}

/** What a scan knows beyond the product's CPE name, to evaluate NVD's configurations with. */
export interface LookupContext {
  /** Operating systems the service's self-description named, as CPE 2.3 names (a Debian package revision names Debian 12). */
  platforms?: string[];
  /** The product was found as a network server: CVEs of its client programs only are left out. */
  server?: boolean;
}

/**
 * Looks up known vulnerabilities of a product version. The orchestrator implements it over the
 * store (engines know no SQL); absent when no database was ever synced.
 */
export interface VulnerabilityLookup {
  /** When the database was last synced. */
  syncedAt: Date;
  /** Vulnerabilities whose NVD CPE configurations match this CPE 2.3 name (with a version). */
  forCpe(cpe: string, context?: LookupContext): Promise<KnownVulnerability[]>;
}

export interface EngineJob {
  targets: JobTarget[];
  /** Known-vulnerability matching; when absent the engine logs that no database is synced. */
  vulnerabilities?: VulnerabilityLookup;
  /** Ports to probe: the engine's default set, every port, or an explicit list (the deployment's setting). */
  ports: 'default' | 'all' | number[];
  /** The deployment's limits: the defaults of a job and the caps its options may not exceed. */
  limits: EngineLimits;
  /** The scan's options, already valid against the engine's `optionsSchema` (absent or {} when none were set). */
  options?: Record<string, unknown>;
  /** ZAP scans with `zap_authenticated`: the login script (Python, Selenium), replayed before the crawl and when the session is lost. */
  loginScript?: string;
  /**
   * Decides whether an address may be contacted (DESIGN.md "Safety of scanning"). Engines must
   * ask it for every address they connect to, after DNS resolution.
   */
  guard: AddressGuard;
  /**
   * The guarded network surface (src/shared/egress.ts): every connection an engine makes, to a
   * target or anywhere it leads (redirects, links, names, data ports), goes through it.
   */
  egress: Egress;
  signal: AbortSignal;
}

export type { Finding, Threat } from '../shared/finding.js';
export { QOD, threatFromCvss, threatFromSeverity } from '../shared/finding.js';
import type { Finding } from '../shared/finding.js';

/**
 * What really ran: `name` and `version` of the tool, and a free `detail` (how it was reached, the
 * template set), e.g. `{ name: 'zap', version: '2.17.0', detail: 'via daemon' }`.
 */
export interface EngineIdentity {
  name: string;
  version: string;
  detail?: string;
}

/** The identity as one line: `zap 2.17.0 via daemon`, `rampart 0.3.0`. */
export function identityLine(identity: { name: string; version: string | null; detail?: string | null }): string {
  return [identity.name, identity.version, identity.detail].filter((part) => part).join(' ');
}

export type EngineEvent =
  | ({ type: 'engine' } & EngineIdentity)
  | { type: 'progress'; percent: number; detail?: string }
  | { type: 'host'; hostname: string; address: string; state: 'up' | 'down' }
  | { type: 'finding'; finding: Finding }
  | { type: 'log'; level: 'info' | 'warn'; message: string }
  /**
   * The run did not see everything it should have (e.g. ports that may be open went unanswered):
   * the message becomes a note, and the run is recorded incomplete, so its silence calls no
   * finding fixed.
   */
  | { type: 'incomplete'; message: string };

export interface Engine {
  /** Recorded on each run (unless an `engine` event says more): which engine ran. */
  readonly name: string;
  readonly version: string;
  /**
   * The options a scan may set for this engine, as a TypeBox object schema; bounds may come from
   * the deployment's caps. Absent: the engine takes no options (any sent are refused).
   */
  readonly optionsSchema?: TSchema;
  run(job: EngineJob): AsyncIterable<EngineEvent>;
}

/** Every kind of engine failure, in the order of `EngineErrorKind`. */
export const ENGINE_ERROR_KINDS = ['network-temporary', 'network-permanent', 'deadline', 'config', 'internal'] as const;

/**
 * Kinds of failure (after nuclei's error kinds), read by the orchestrator to tell whose fault a
 * failed run is:
 * - `network-temporary`: the target did not answer (timeouts, resets); trying later may work;
 * - `network-permanent`: the target cannot be reached at all (no route, refused by the guard);
 * - `deadline`: the run ran out of its time;
 * - `config`: the tool is missing or misconfigured on this deployment (or the job is invalid);
 * - `internal`: a bug in the engine.
 * Only what the target caused counts against a host; `config` and `internal` fail the run.
 */
export type EngineErrorKind = (typeof ENGINE_ERROR_KINDS)[number];

export class EngineError extends Error {
  constructor(
    readonly kind: EngineErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EngineError';
  }
}
