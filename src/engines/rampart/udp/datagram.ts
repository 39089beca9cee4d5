/**
 * One UDP exchange: send a probe's datagrams to one (address, port) and read the replies until the
 * probe has what it waits for, the read timeout passes, or the scan aborts. The socket is
 * connected, so the kernel drops datagrams from anyone but the target and reports an ICMP port
 * unreachable as ECONNREFUSED. The socket is closed, and its timer and listeners released, before
 * the promise resolves, whatever the outcome.
 */
import type dgram from 'node:dgram';
import { EgressError, type Egress } from '../../../shared/egress.js';
import type { TokenBucket } from '../rate-limit.js';
import type { UdpExchange } from './udp-probe.js';

/**
 * How an exchange ended. `answered`: at least one reply the probe recognised. `unrecognised`:
 * something answered, but not in this protocol. `open|filtered`: silence until the timeout, which
 * proves nothing. `closed`: ICMP port unreachable. `aborted`: the scan's signal. `error`: a local
 * failure (no socket, no route), which says nothing about the target.
 */
export type ExchangeState = 'answered' | 'unrecognised' | 'open|filtered' | 'closed' | 'aborted' | 'error';

export interface ExchangeOptions {
  /** How long to wait for replies after the last datagram went out. */
  timeoutMs: number;
  signal: AbortSignal;
  /** The socket comes from it: an address the guard refuses gets no datagram ('error'). */
  egress: Egress;
  /** The job's rate limit: one token per datagram. */
  bucket?: TokenBucket;
}

/** Runs `exchange` against `address:port` (a literal address, never a name). */
export async function runExchange(address: string, port: number, exchange: UdpExchange, options: ExchangeOptions): Promise<ExchangeState> {
  const { signal } = options;
  if (signal.aborted) return 'aborted';
  let socket: dgram.Socket;
  try {
    socket = options.egress.openDatagram(address, port);
  } catch (error) {
    if (!(error instanceof EgressError)) throw error;
    return 'error';
  }
  // Registered at once: the egress has already started the connect.
  const connected = new Promise<void>((resolve) => socket.once('connect', resolve));
  const closed = new Promise<void>((resolve) => socket.once('close', resolve));

  let answered = false;
  let unrecognised = false;
  let finished = false;
  let timer: NodeJS.Timeout | undefined;
  let settle: (state: ExchangeState) => void = () => undefined;
  const done = new Promise<ExchangeState>((resolve) => {
    settle = (state) => {
      if (finished) return;
      finished = true;
      resolve(state);
    };
  });
  const onAbort = (): void => settle('aborted');
  const onError = (error: NodeJS.ErrnoException): void => settle(error.code === 'ECONNREFUSED' ? 'closed' : 'error');
  const onMessage = (reply: Buffer): void => {
    const complete = exchange.accept(reply);
    if (exchange.outcome() !== null) answered = true;
    else unrecognised = true;
    if (complete) settle('answered');
  };

  const send = async (): Promise<void> => {
    await connected;
    for (const datagram of exchange.datagrams) {
      if (finished) return;
      if (options.bucket) await options.bucket.take(signal);
      if (finished) return;
      await new Promise<void>((resolve, reject) => socket.send(datagram, (error) => (error ? reject(error) : resolve())));
      if (finished) return;
    }
    timer = setTimeout(() => settle(answered ? 'answered' : unrecognised ? 'unrecognised' : 'open|filtered'), options.timeoutMs);
  };

  signal.addEventListener('abort', onAbort, { once: true });
  // A failed connect or send arrives as an 'error' event or a rejected send; both end the exchange.
  socket.on('error', onError).on('message', onMessage);
  try {
    send().catch((error: NodeJS.ErrnoException) => (signal.aborted ? settle('aborted') : onError(error)));
    return await done;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    socket.off('message', onMessage);
    // Errors after we settled (a late ICMP) must not crash the process.
    socket.off('error', onError).on('error', () => undefined);
    socket.close();
    await closed;
  }
}
