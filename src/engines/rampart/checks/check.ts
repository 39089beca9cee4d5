/**
 * The plug-in points of the Rampart engine after the port scan: service detection identifies what
 * listens on an open port, then every check that applies to that service runs against it.
 * Detectors and checks are plain async functions over one (address, port): they speak the
 * service's protocol with the job's timeouts and abort signal, send bounded, non-intrusive
 * requests (no credential guessing, no exploits), and return what they saw.
 *
 * Glossary: a *detector* turns an open port (and its banner) into a `ServiceInfo`; a *check* turns
 * a `ServiceInfo` into findings; a *rule id* (`rampart:<area>-<weakness>`) names what a check
 * found and never changes, since it is part of a finding's fingerprint.
 */
import type { Egress } from '../../../shared/egress.js';
import type { EngineLimits, Finding } from '../../engine.js';
import type { TokenBucket } from '../rate-limit.js';

/** What listens on a port, as far as the probes could tell. */
export interface ServiceInfo {
  /** Lower-case protocol name, e.g. `http`, `ssh`, `ftp`, `redis`, `mysql`; `unknown` if unidentified. */
  name: string;
  /** The product, e.g. `OpenSSH`, `nginx`, `Redis`, `MariaDB`, when the service said. */
  product: string | null;
  version: string | null;
  /** CPE 2.3 name when product (and version) map to one, e.g. `cpe:2.3:a:openbsd:openssh:9.6:*:*:*:*:*:*:*`. */
  cpe: string | null;
  /** The service speaks TLS on this port (the name is then the protocol inside it, e.g. `http`). */
  tls: boolean;
  /** The first bytes the service sent unprompted, escaped printable text, or null. */
  banner: string | null;
  /** Anything else a detector learned that checks may use (e.g. `server` header, `auth: none`). */
  details: Record<string, string>;
}

/** One (address, port) to probe, with the job's limits and abort signal. */
export interface Endpoint {
  /** The name the target was given as (hostname or the address itself): used for TLS SNI and HTTP Host. */
  hostname: string;
  /** The literal address to connect to (already allowed by the address guard: never resolve again). */
  address: string;
  port: number;
  limits: EngineLimits;
  signal: AbortSignal;
  /** Every connection goes through it (the job's egress), so each address is checked by the guard. */
  egress: Egress;
  /** The job's rate limit, when it has one: checks that open many connections take a token for each. */
  bucket?: Pick<TokenBucket, 'take'> | undefined;
}

/** A finding without its location: the engine adds hostname, address, port and protocol. */
export type CheckFinding = Omit<Finding, 'hostname' | 'hostIp' | 'port' | 'protocol' | 'service'>;

/** What a check must say about a finding; the rest has a default. */
export type CheckFindingFields = Pick<CheckFinding, 'ruleId' | 'name' | 'description' | 'solution' | 'threat' | 'evidence'> & Partial<CheckFinding>;

/** A finding with the fields most checks leave empty defaulted: no CVSS score, CVE, CWE or references. */
export function checkFinding(fields: CheckFindingFields): CheckFinding {
  return { cvssBase: null, cvssVector: null, cve: [], cwe: null, references: [], ...fields };
}

/** Identifies a TCP service; returns null when it does not recognise it (the next detector tries). */
export type Detector = (endpoint: Endpoint, banner: string | null) => Promise<ServiceInfo | null>;

/**
 * What a check's protocol exchange proved about CVEs that a version match would otherwise report
 * ("protocol facts beat versions"). A check that proves a CVE reports its own finding naming it
 * (its `cve`), which then stands for the version match; one that proves the service is not
 * affected says so here, and the version match is not reported.
 */
export interface ProtocolFacts {
  /** The service is not affected by `cve`; `reason` says what the exchange showed (logged). */
  notAffected(cve: string, reason: string): void;
}

export interface Check {
  /** Stable id of the check, e.g. `tls`, `http-headers`, `redis-noauth`. */
  id: string;
  /**
   * The check sends a credential (the MySQL empty-password login): the engine leaves it out when
   * the deployment (RAMPART_EMPTY_PASSWORD_LOGINS) or the scan (`empty_password_logins`) says so.
   */
  attemptsLogin?: boolean;
  appliesTo(service: ServiceInfo): boolean;
  run(endpoint: Endpoint, service: ServiceInfo, facts?: ProtocolFacts): Promise<CheckFinding[]>;
}
