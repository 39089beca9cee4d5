/**
 * The error of the egress (egress.ts), apart so that egress-fetch.ts and egress-proxy.ts can use it
 * without an import cycle.
 */

/** Why a guarded connection did not happen. */
export type EgressErrorCode =
  | 'refused'
  | 'unresolvable'
  | 'timeout'
  | 'unreachable'
  | 'aborted'
  | 'tls'
  | 'bad-url'
  | 'too-many-redirects';

/** A guarded connection that did not happen (or a request that failed); `code` says why. */
export class EgressError extends Error {
  constructor(
    readonly code: EgressErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EgressError';
  }
}
