/**
 * The contract between the nuclei engine (nuclei.engine.ts: targets, discovery, selection,
 * scheduling, findings) and the protocol executors (execute/http*, execute/tcp, execute/ssl,
 * execute/dns: requests, operators, matches). Issue 15.
 *
 * Glossary:
 * - *service*: one place a template runs against: a host and port, with the scheme for HTTP(S)
 *   services and whether a network service speaks TLS.
 * - *match*: one reportable result of one template on one service: a named matcher that fired,
 *   the block's match, or (when nothing matched and the template has extractors only) an extraction,
 *   as nuclei's `MakeDefaultResultEvent` emits them.
 * - *host gate*: the per-host politeness of a run: a concurrency and rate limit shared by every
 *   protocol, and the count of consecutive network errors after which a host is skipped.
 *
 * Rules every executor keeps:
 * - Every connection goes through `context.egress` (never `node:net`/`node:http` directly): a
 *   template cannot reach an address the scan may not.
 * - Every request goes through `context.gate.run(host, ...)`, has a timeout (`context.timeoutMs`
 *   bounds one exchange), and follows `context.signal`.
 * - A network error is reported to the gate (`networkError`), a response (any status) as
 *   `answered`; once `gate.isSkipped(host)` the executor sends nothing more to that host.
 * - A template that cannot run on this service (unresolved `{{variables}}`, an unsupported
 *   feature met at run time) returns no match and, when worth saying, a `notes` line; it never throws
 *   for the template's own faults. Throwing is for bugs and the abort.
 */
import type { Egress } from '../../../shared/egress.js';
import type { Template } from '../templates/template.types.js';

/** A service a template runs against. */
export interface ServiceTarget {
  /** The name or address as the scan named it (`Hostname` helper variable). */
  host: string;
  /** The address that was probed (the `ip` of a result); the host itself when it is an address. */
  address: string;
  port: number;
  /** HTTP(S) services: the scheme detected; null for a service that does not speak HTTP. */
  scheme: 'http' | 'https' | null;
  /** The service speaks TLS (https, or TLS-wrapped network services). */
  tls: boolean;
  /** For a URL target, its path prefix (`BaseURL` keeps it); '/' otherwise. */
  basePath: string;
}

/** One reportable result of a template on a service. */
export interface TemplateMatch {
  templateId: string;
  protocol: 'http' | 'tcp' | 'ssl' | 'dns';
  /** Where it matched: the exact URL for http, `host:port` for the others. */
  matchedAt: string;
  /** The name of the matcher that fired, when it has one. */
  matcherName?: string;
  /** The name of the extractor when the result is an extraction. */
  extractorName?: string;
  /** Values the (non-internal) extractors produced, in order, de-duplicated. */
  extracted: string[];
  /** HTTP: the method of the request that matched (upper case). */
  method?: string;
  /** Payload values used by the matching request (`meta` of nuclei's output). */
  payload?: Record<string, string>;
  /** A short excerpt of the request that matched (request line and headers, body cut). */
  request?: string;
  /** A short excerpt of the response that matched (status line, headers, body cut). */
  response?: string;
}

/** The outcome of one template on one service. */
export interface TemplateOutcome {
  matches: TemplateMatch[];
  /** Requests actually sent (shared responses not counted). */
  requestsSent: number;
  /** Requests answered from the run's shared response cache instead of being sent. */
  requestsShared: number;
  /** Lines for the run's notes (a template skipped for a missing variable, ...), short. */
  notes: string[];
}

/** Per-host politeness, shared by every protocol of a run (implemented by the engine). */
export interface HostGate {
  /**
   * Runs `send` when the host has room under its concurrency and rate limits; rejects with an
   * `EngineError`-free `HostSkippedError` when the host was skipped meanwhile.
   */
  run<T>(host: string, send: () => Promise<T>): Promise<T>;
  /** The host answered (any response): its consecutive-error count starts again. */
  answered(host: string): void;
  /** A network error (timeout, reset, refused): after the limit in a row the host is skipped. */
  networkError(host: string, error: unknown): void;
  isSkipped(host: string): boolean;
}

/** Thrown by `HostGate.run` for a host that is skipped; executors stop that service quietly. */
export class HostSkippedError extends Error {
  constructor(readonly host: string) {
    super(`${host} stopped answering and is skipped.`);
    this.name = 'HostSkippedError';
  }
}

/** What an executor gets from the engine. */
export interface ExecutionContext {
  egress: Egress;
  signal: AbortSignal;
  gate: HostGate;
  /** Bound on one exchange (connect, send, read), in milliseconds (nuclei `-timeout`, default 10 s). */
  timeoutMs: number;
  /** The templates directory (payload wordlists are read relative to it, never outside it). */
  templatesDir: string;
  /** Values for variables the user supplies (`-var`); templates needing others are skipped. */
  vars: Record<string, string>;
  /**
   * The run's response cache for requests shared across templates (http: method, URL, headers and
   * body identical). One per run; the executor keys it by service.
   */
  cache: SharedResponses;
  /**
   * The DNS resolvers `dns:` templates query (`host:port`): the deployment's own infrastructure,
   * the one place packets go that is not the target. Default: the system's (`dns.getServers()`).
   */
  resolvers?: string[];
}

/** A bounded cache of in-flight and settled responses, shared across the templates of a run. */
export interface SharedResponses {
  /**
   * The value for `key`: the settled or in-flight one when present (counted as shared), else
   * `produce()` (counted as sent), remembered up to the cache's bound.
   */
  get<T>(key: string, produce: () => Promise<T>): Promise<{ value: T; shared: boolean }>;
}

/** Runs one template's blocks of one protocol family on one service. */
export type TemplateExecutor = (template: Template, service: ServiceTarget, context: ExecutionContext) => Promise<TemplateOutcome>;
