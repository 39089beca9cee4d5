/**
 * The guarded network surface every engine connects through (DESIGN.md "Safety of scanning"):
 * the address guard applies to every connection an engine makes, not only to the scan's targets.
 * A redirect, a link found while crawling, a name a template resolves, an FTP data port: each goes
 * through here, so each is checked.
 *
 * The rules, in one place:
 * - A name is resolved once (A and AAAA, with a timeout) and every address is checked; only the
 *   allowed ones are kept, and the connection goes to a checked address itself. Nothing resolves
 *   the name a second time, so a DNS answer that changes between the check and the connect (DNS
 *   rebinding) cannot reach a refused address.
 * - A literal address is checked without DNS; verdicts are remembered per address (a port scan
 *   checks each address once, not once per port).
 * - Every connect and every handshake has a timeout and follows the caller's abort signal.
 * - A refusal is an `EgressError` with code `refused` naming the host, the address and its class.
 *
 * HTTP(S) with redirects is in egress-fetch.ts; the proxy for external tools in egress-proxy.ts.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import tls from 'node:tls';
import { resolveAndCheck, type AddressGuard, type AddressVerdict } from './address-guard.js';
import { EgressError } from './egress-error.js';
import { egressFetch, type EgressFetchInit, type EgressResponse } from './egress-fetch.js';

export { EgressError, type EgressErrorCode } from './egress-error.js';
export type { EgressFetchInit, EgressResponse } from './egress-fetch.js';
export type { EgressConnectOptions, EgressTlsOptions } from './egress-connect-options.js';
import type { EgressConnectOptions, EgressTlsOptions } from './egress-connect-options.js';

/** The one guarded network surface engines take as a dependency (`EngineJob.egress`). */
export interface Egress {
  /** The deployment's address guard. */
  readonly guard: AddressGuard;
  /** The guard's verdict on one literal address, remembered per address. */
  check(address: string): AddressVerdict;
  /** The allowed addresses of a name (or the literal itself); throws `refused` when none is, `unresolvable` when DNS fails. */
  resolve(host: string): Promise<string[]>;
  /**
   * Every address of a name (or the literal itself), each allowed: throws `refused`, naming the
   * refused ones, when any is. For targets handed to a tool that connects by itself (OpenVAS):
   * keeping only the allowed addresses would not stop it from reaching the others.
   */
  resolveEvery(host: string): Promise<string[]>;
  /**
   * A TCP socket already connecting to a literal, allowed address (no DNS). Throws `refused`
   * synchronously otherwise. The caller owns the socket: its events, its timeout, destroying it.
   * For the port scan's hot path; everything else uses `connect`.
   */
  openSocket(address: string, port: number): net.Socket;
  /** A UDP socket connected (or connecting) to a literal, allowed address; throws `refused` otherwise. */
  openDatagram(address: string, port: number): dgram.Socket;
  /** Resolves, checks, and connects to the first allowed address that answers. */
  connect(options: EgressConnectOptions): Promise<net.Socket>;
  /** `connect`, then a TLS handshake keeping the name for SNI and the certificate check. */
  connectTls(options: EgressTlsOptions): Promise<tls.TLSSocket>;
  /** One HTTP(S) exchange, redirects followed hop by hop, each hop resolved and checked again (egress-fetch.ts). */
  fetch(url: string | URL, init?: EgressFetchInit): Promise<EgressResponse>;
}

/** How an egress is built: the guard, and the bounds of its look-ups and connects. */
export interface EgressOptions {
  guard: AddressGuard;
  /** All A and AAAA addresses of a name; default the system resolver. A seam for tests. */
  lookup?: (hostname: string) => Promise<string[]>;
  /** Bound on one name resolution; default 5000 ms. */
  dnsTimeoutMs?: number;
  /** Bound on one TCP connect (and on a TLS handshake); default 10000 ms. */
  connectTimeoutMs?: number;
}

/** Verdicts kept before the memory is cleared: enough for the hosts a scan works on at once. */
const MAX_REMEMBERED_VERDICTS = 4096;

/** Builds the egress of a deployment (or a test) from its address guard. */
export function createEgress(options: EgressOptions): Egress {
  const { guard } = options;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const verdicts = new Map<string, AddressVerdict>();

  const check = (address: string): AddressVerdict => {
    let verdict = verdicts.get(address);
    if (verdict === undefined) {
      if (verdicts.size >= MAX_REMEMBERED_VERDICTS) verdicts.clear();
      verdict = guard.check(address);
      verdicts.set(address, verdict);
    }
    return verdict;
  };
  const assertAllowed = (address: string, host: string): void => {
    if (net.isIP(address) === 0) throw new EgressError('refused', `refused: "${address}" is not a literal address (names go through resolve).`);
    const verdict = check(address);
    if (!verdict.allowed) throw refusal(host, [{ address, class: verdict.class }]);
  };

  /** The allowed addresses of `host`; with `every`, a single refused address refuses the host. */
  const resolveChecked = async (host: string, every: boolean): Promise<string[]> => {
    const result = await resolveAndCheck(host, { check }, {
      timeoutMs: options.dnsTimeoutMs ?? 5000,
      ...(options.lookup ? { lookup: options.lookup } : {}),
    });
    if (result.ok) return result.addresses;
    if (result.reason === 'unresolvable') throw new EgressError('unresolvable', result.message);
    const allowed = result.addresses.filter((address) => check(address).allowed);
    if (allowed.length > 0 && !every) return allowed;
    const refused = result.addresses.filter((address) => !check(address).allowed);
    throw refusal(host, refused.map((address) => ({ address, class: check(address).class })));
  };
  const resolve = (host: string): Promise<string[]> => resolveChecked(host, false);

  const egress: Egress = {
    guard,
    check,
    resolve,
    resolveEvery: (host) => resolveChecked(host, true),
    openSocket(address, port) {
      assertAllowed(address, address);
      return net.connect({ host: address, port });
    },
    openDatagram(address, port) {
      assertAllowed(address, address);
      const socket = dgram.createSocket(net.isIPv6(address) ? 'udp6' : 'udp4');
      socket.connect(port, address);
      return socket;
    },
    async connect(connect) {
      const addresses = await untilAborted(resolve(connect.host), connect);
      return connectFirst(addresses, connect, connect.timeoutMs ?? connectTimeoutMs, (address) => {
        assertAllowed(address, connect.host);
        return net.connect({ host: address, port: connect.port });
      });
    },
    async connectTls(connect) {
      const socket = await egress.connect(connect);
      return startTls(socket, connect, connect.timeoutMs ?? connectTimeoutMs);
    },
    fetch: (url, init) => egressFetch(egress, url, init),
  };
  return egress;
}

/** The refusal of a host: which address(es) and why, and what would allow them. */
function refusal(host: string, refused: { address: string; class: string }[]): EgressError {
  const list = refused.map((r) => `${r.address} is ${r.class}`).join(', ');
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const name = refused.length === 1 && refused[0]!.address === bare ? '' : ` (host "${bare}")`;
  return new EgressError('refused', `refused: ${list}${name}; this deployment may not contact it (RAMPART_ALLOW_TARGETS does not cover it).`);
}

/** The promise's value, unless the signal aborts first (a DNS lookup cannot be cancelled, only left behind). */
async function untilAborted<T>(promise: Promise<T>, options: EgressConnectOptions): Promise<T> {
  const { signal } = options;
  if (!signal) return promise;
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new EgressError('aborted', `Connecting to ${options.host}:${options.port} was aborted.`));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Tries each address in turn until one accepts; the errors of all of them otherwise. */
async function connectFirst(
  addresses: string[],
  options: EgressConnectOptions,
  timeoutMs: number,
  open: (address: string) => net.Socket,
): Promise<net.Socket> {
  const failures: string[] = [];
  let allTimedOut = true;
  for (const address of addresses) {
    if (options.signal?.aborted) throw new EgressError('aborted', `Connecting to ${options.host}:${options.port} was aborted.`);
    const outcome = await awaitConnect(open(address), timeoutMs, options.signal);
    if (outcome instanceof net.Socket) return outcome;
    if (outcome === 'aborted') throw new EgressError('aborted', `Connecting to ${options.host}:${options.port} was aborted.`);
    if (outcome !== 'timeout') allTimedOut = false;
    failures.push(`${address}: ${outcome}`);
  }
  const code = allTimedOut ? 'timeout' : 'unreachable';
  throw new EgressError(code, `Could not connect to ${options.host}:${options.port} (${failures.join(', ')}).`);
}

/** Waits for a socket to connect within `timeoutMs`; on failure it is destroyed and the reason returned. */
function awaitConnect(socket: net.Socket, timeoutMs: number, signal: AbortSignal | undefined): Promise<net.Socket | string> {
  return new Promise((resolve) => {
    const settle = (outcome: net.Socket | string): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.off('connect', onConnect).off('error', onError);
      if (typeof outcome === 'string') socket.destroy();
      resolve(outcome);
    };
    const onConnect = (): void => settle(socket);
    const onError = (error: NodeJS.ErrnoException): void => settle(error.code ?? error.message);
    const onAbort = (): void => settle('aborted');
    const timer = setTimeout(() => settle('timeout'), timeoutMs);
    // A late error (after we settled) must not crash the process.
    socket.on('error', () => undefined);
    socket.once('connect', onConnect).once('error', onError);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A TLS handshake over a connected socket, bounded in time; the name is kept for SNI and the certificate check. */
function startTls(socket: net.Socket, options: EgressTlsOptions, timeoutMs: number): Promise<tls.TLSSocket> {
  const name = options.servername ?? options.host.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve, reject) => {
    const secure = tls.connect({
      ...options.tls,
      socket,
      // `host` names the peer for the certificate check; the socket is already connected to the checked address.
      host: name,
      // An IP address is not a valid SNI name (RFC 6066 3).
      ...(net.isIP(name) === 0 ? { servername: name } : {}),
    });
    const settle = (error: EgressError | null): void => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      secure.off('secureConnect', onSecure).off('error', onError).off('close', onClose);
      if (error === null) return resolve(secure);
      secure.destroy();
      socket.destroy();
      reject(error);
    };
    const onSecure = (): void => settle(null);
    const onError = (error: Error): void => settle(new EgressError('tls', `TLS with ${name}:${options.port} failed: ${error.message}`, { cause: error }));
    const onClose = (): void => settle(new EgressError('tls', `TLS with ${name}:${options.port}: the peer closed during the handshake.`));
    const onAbort = (): void => settle(new EgressError('aborted', `TLS with ${name}:${options.port} was aborted.`));
    const timer = setTimeout(() => settle(new EgressError('timeout', `TLS with ${name}:${options.port}: no handshake within ${timeoutMs} ms.`)), timeoutMs);
    secure.on('error', () => undefined);
    secure.once('secureConnect', onSecure).once('error', onError).once('close', onClose);
    options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
