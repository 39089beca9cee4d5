/**
 * The options of a guarded connection (egress.ts). A file of their own so that egress-fetch.ts,
 * which egress.ts builds on, can name them without an import cycle.
 */
import type tls from 'node:tls';

/** Where to connect: a host name or literal address, a port, and the bounds of the attempt. */
export interface EgressConnectOptions {
  host: string;
  port: number;
  /** Per address tried; the egress default (the deployment's connect timeout) if absent. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** TLS on top of a guarded connection. The certificate is verified unless `tls.rejectUnauthorized` is false. */
export interface EgressTlsOptions extends EgressConnectOptions {
  /** The name sent as SNI and checked against the certificate; default `host` (none for an IP literal). */
  servername?: string;
  tls?: Omit<tls.ConnectionOptions, 'host' | 'port' | 'socket' | 'servername' | 'lookup' | 'path'>;
}
