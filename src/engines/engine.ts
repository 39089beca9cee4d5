/**
 * The one interface every scan engine implements, built-in or a driver for an external tool.
 * Engines are plain modules: they know nothing of HTTP or SQL. Given a job they yield events —
 * progress, host states, normalised findings — and stop promptly when the job's signal aborts.
 * The run orchestrator (src/runs) stores what they yield.
 *
 * Glossary: a *job* is one run's work; a *host* is one address (or name) the engine probed; a
 * *finding* is one weakness on one host (and port), normalised to the fields of the Vulnerability
 * resource; the *rule id* names the check that found it (our check id, an NVT OID, a template id).
 */
import type { AddressGuard } from '../shared/address-guard.js';
import type { Egress } from '../shared/egress.js';

/** One target of a job, as the scan's `scan_target` named it (already validated and normalised). */
export type JobTarget =
  | { kind: 'ip'; value: string }
  | { kind: 'cidr'; value: string }
  | { kind: 'hostname'; value: string }
  | { kind: 'url'; value: string };

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
}

/**
 * Looks up known vulnerabilities of a product version. The orchestrator implements it over the
 * store (engines know no SQL); absent when no database was ever synced.
 */
export interface VulnerabilityLookup {
  /** When the database was last synced. */
  syncedAt: Date;
  /** Vulnerabilities whose NVD CPE configurations match this CPE 2.3 name (with a version). */
  forCpe(cpe: string): Promise<KnownVulnerability[]>;
}

export interface EngineJob {
  targets: JobTarget[];
  /** Known-vulnerability matching; when absent the engine logs that no database is synced. */
  vulnerabilities?: VulnerabilityLookup;
  /** Ports to probe: the engine's default set, every port, or an explicit list. */
  ports: 'default' | 'all' | number[];
  limits: EngineLimits;
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
export { threatFromCvss, threatFromSeverity } from '../shared/finding.js';
import type { Finding } from '../shared/finding.js';

export type EngineEvent =
  | { type: 'progress'; percent: number; detail?: string }
  | { type: 'host'; hostname: string; address: string; state: 'up' | 'down' }
  | { type: 'finding'; finding: Finding }
  | { type: 'log'; level: 'info' | 'warn'; message: string };

export interface Engine {
  /** Recorded on each run: which engine actually ran. */
  readonly name: string;
  readonly version: string;
  run(job: EngineJob): AsyncIterable<EngineEvent>;
}

/**
 * Kinds of failure (after nuclei's error kinds): only what the target caused counts against a
 * host; `config` and `internal` fail the run with a clear message.
 */
export type EngineErrorKind = 'network-temporary' | 'network-permanent' | 'deadline' | 'config' | 'internal';

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
