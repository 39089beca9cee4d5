/**
 * One TCP connect probe: connect with a timeout, read the banner of an open port, and always
 * destroy the socket. Every socket comes from the job's egress, which checks the literal address
 * with the guard (its verdict remembered, so a port scan pays once per address) and never does a
 * DNS look-up.
 */
import type net from 'node:net';
import { EgressError, type Egress } from '../../shared/egress.js';
import { readBanner } from './banner.js';

/** What a probe learned about one port. */
export type ProbeResult =
  /** Connected; `banner` holds what the service sent unprompted (empty if nothing). */
  | { state: 'open'; banner: Buffer }
  /** Refused with a RST: nothing listens, but the host answered. */
  | { state: 'closed' }
  /** No answer within the connect timeout: dropped by a firewall, or no host there. */
  | { state: 'filtered' }
  /** The network said no route (ICMP unreachable): says nothing reliable about the host. */
  | { state: 'unreachable'; code: string }
  /** A local failure (out of sockets, a local firewall rule): the target is not to blame. */
  | { state: 'error'; code: string };

/** The outcome of a connection attempt; a connected socket belongs to the caller. */
export type ConnectOutcome =
  | { state: 'connected'; socket: net.Socket }
  | Exclude<ProbeResult, { state: 'open' }>
  | { state: 'aborted' };

const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);

/** The local error code of a connection the egress refused (the guard said no; nothing was sent). */
export const REFUSED_BY_GUARD = 'REFUSED_BY_GUARD';

/**
 * Opens a TCP connection to `address:port` through `egress` within `timeoutMs`. On any outcome
 * but `connected` the socket is already destroyed and no timer is left behind; on abort it
 * resolves `{state: 'aborted'}` at once; an address the guard refuses is `{state: 'error', code:
 * REFUSED_BY_GUARD}`. Later checks (TLS, HTTP) use it to get a socket.
 */
export async function connectTcp(egress: Egress, address: string, port: number, timeoutMs: number, signal: AbortSignal): Promise<ConnectOutcome> {
  return (await connectTimed(egress, address, port, timeoutMs, signal)).outcome;
}

/**
 * `connectTcp`, with the round-trip time of the attempt: from when the connect really left (the
 * system call issued, not when the probe was queued) to when its answer was seen.
 *
 * Two things keep a busy event loop from turning an open port into a filtered one:
 * - the timeout starts when the connect is issued: Node issues it on the next tick after the
 *   socket is created, and our tick is queued after Node's, so it runs once the SYN has left;
 * - a timeout is only a verdict after the loop has polled for I/O once more: after a stall the
 *   timers phase runs before the poll phase, so an expired timer would otherwise win against a
 *   connect that completed in the kernel long before (the answer is there, unread).
 */
export function connectTimed(
  egress: Egress,
  address: string,
  port: number,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<{ outcome: ConnectOutcome; rttMs: number }> {
  if (signal.aborted) return Promise.resolve({ outcome: { state: 'aborted' }, rttMs: 0 });
  let socket: net.Socket;
  try {
    socket = egress.openSocket(address, port);
  } catch (error) {
    if (!(error instanceof EgressError)) throw error;
    return Promise.resolve({ outcome: { state: 'error', code: REFUSED_BY_GUARD }, rttMs: 0 });
  }
  return new Promise((resolve) => {
    // Errors that arrive after we settled (a RST while the caller reads) must not crash the process.
    socket.on('error', () => undefined);
    let sentAt = performance.now();
    let timer: NodeJS.Timeout | undefined;
    let verdict: NodeJS.Immediate | undefined;
    let settled = false;

    const settle = (outcome: ConnectOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearImmediate(verdict);
      signal.removeEventListener('abort', onAbort);
      socket.off('connect', onConnect).off('error', onError);
      if (outcome.state !== 'connected') socket.destroy();
      resolve({ outcome, rttMs: performance.now() - sentAt });
    };
    const onAbort = (): void => settle({ state: 'aborted' });
    const onConnect = (): void => settle({ state: 'connected', socket });
    const onError = (error: NodeJS.ErrnoException): void => settle(classifyConnectError(error));
    // The poll phase comes between the timers phase and setImmediate's check phase.
    const onTimeout = (): void => {
      verdict = setImmediate(() => settle({ state: 'filtered' }));
    };

    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', onConnect).once('error', onError);
    process.nextTick(() => {
      if (settled) return;
      sentAt = performance.now();
      timer = setTimeout(onTimeout, timeoutMs);
    });
  });
}

/**
 * Probes one port: connect, then on success read the banner for up to `readTimeoutMs`.
 * Resolves null when `signal` aborted (the socket is destroyed either way).
 */
export async function probeTcpPort(
  egress: Egress,
  address: string,
  port: number,
  options: { connectTimeoutMs: number; readTimeoutMs: number; signal: AbortSignal },
): Promise<ProbeResult | null> {
  const outcome = await connectTcp(egress, address, port, options.connectTimeoutMs, options.signal);
  if (outcome.state === 'aborted') return null;
  if (outcome.state !== 'connected') return outcome;
  try {
    const banner = await readBanner(outcome.socket, options.readTimeoutMs, options.signal);
    return banner === null ? null : { state: 'open', banner };
  } finally {
    outcome.socket.destroy();
  }
}

function classifyConnectError(error: NodeJS.ErrnoException): ConnectOutcome {
  const code = error.code ?? 'UNKNOWN';
  if (code === 'ECONNREFUSED') return { state: 'closed' };
  if (code === 'ETIMEDOUT') return { state: 'filtered' };
  if (UNREACHABLE_CODES.has(code)) return { state: 'unreachable', code };
  return { state: 'error', code };
}
