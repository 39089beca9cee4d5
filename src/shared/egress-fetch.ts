/**
 * HTTP(S) through the egress: redirects are followed by hand, one hop at a time, and every hop's
 * host is resolved and checked again by `Egress.connect`, so a redirect (or a link a crawler
 * follows) to a refused address is never connected to. One deadline bounds the whole exchange
 * (every hop's connect, handshake and response), each connect has its own timeout, and a body
 * is read up to a cap and then cut (`truncated`).
 *
 * Built on node:http with a socket we connected ourselves (`createConnection`): the request then
 * cannot resolve the name again behind the guard's back, and no npm HTTP client is needed. See
 * docs/DECISIONS.md "Egress guard" for why not undici.
 */
import http from 'node:http';
import type net from 'node:net';
import type tls from 'node:tls';
import { EgressError } from './egress-error.js';
import type { EgressConnectOptions, EgressTlsOptions } from './egress-connect-options.js';

/** What a fetch needs of the egress (egress.ts `Egress` has it): guarded plain and TLS connects. */
export interface EgressConnector {
  connect(options: EgressConnectOptions): Promise<net.Socket>;
  connectTls(options: EgressTlsOptions): Promise<tls.TLSSocket>;
}

/** What to send and how far to go. */
export interface EgressFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** `follow` (default): follow up to `maxRedirects`; `manual`: return the 3xx itself. */
  redirect?: 'follow' | 'manual';
  /** Hops followed before giving up with `too-many-redirects`; default 5. */
  maxRedirects?: number;
  /** Deadline of the whole exchange, every hop included; default 30000 ms. */
  timeoutMs?: number;
  /** Bound on each TCP connect; default the egress's. */
  connectTimeoutMs?: number;
  /** Body bytes kept; the rest is dropped and `truncated` set. Default 1 MiB. */
  maxBodyBytes?: number;
  signal?: AbortSignal;
  /** TLS options for https (e.g. `rejectUnauthorized: false` to probe a self-signed server). */
  tls?: EgressTlsOptions['tls'];
  /** The SNI name for https when the URL names a literal address (a scanner probing a host by address); default the URL's host. */
  servername?: string;
  /**
   * The request-target of the first hop sent as written (path and query), instead of the URL's
   * normalised one: a scanner's `/a/../../etc/passwd` must reach the server unchanged. Node still
   * refuses spaces and control characters in it (the caller escapes them).
   */
  target?: string;
}

/** The final response, with the hops that led to it. */
export interface EgressResponse {
  /** The URL that answered (the last hop). */
  url: string;
  status: number;
  /** The reason phrase of the status line (`OK`), as the server sent it. */
  statusText: string;
  /** The protocol version of the status line (`1.1`). */
  httpVersion: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
  /** Each URL redirected to, in order. */
  redirects: string[];
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Credentials that must not follow a redirect to another origin. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/** `Egress.fetch`: see the module comment. Throws `EgressError` (refused, timeout, too-many-redirects, bad-url...). */
export async function egressFetch(egress: EgressConnector, input: string | URL, init: EgressFetchInit = {}): Promise<EgressResponse> {
  const timeoutMs = init.timeoutMs ?? 30_000;
  const maxRedirects = init.redirect === 'manual' ? 0 : (init.maxRedirects ?? 5);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new EgressError('timeout', `${String(input)}: no complete answer within ${timeoutMs} ms.`)), timeoutMs);
  const onAbort = (): void => controller.abort(new EgressError('aborted', `${String(input)}: aborted.`));
  if (init.signal?.aborted) onAbort();
  init.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    let url = httpUrl(input);
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body;
    const headers: Record<string, string> = Object.fromEntries(Object.entries(init.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    const redirects: string[] = [];
    for (;;) {
      const target = redirects.length === 0 ? init.target : undefined;
      const response = await exchange(egress, url, { method, headers, body, target }, init, controller.signal);
      const location = response.headers.location;
      if (!REDIRECT_STATUSES.has(response.status) || typeof location !== 'string' || init.redirect === 'manual') {
        return { ...response, url: url.href, redirects };
      }
      if (redirects.length >= maxRedirects) {
        throw new EgressError('too-many-redirects', `${redirects[0] ?? url.href}: more than ${maxRedirects} redirects.`);
      }
      const next = httpUrl(new URL(location, url));
      // As browsers do: 303 always, and 301/302 after a POST, become a GET without a body.
      if (response.status === 303 ? method !== 'HEAD' : (response.status === 301 || response.status === 302) && method === 'POST') {
        method = 'GET';
        body = undefined;
      }
      if (next.origin !== url.origin) for (const name of CREDENTIAL_HEADERS) delete headers[name];
      redirects.push(next.href);
      url = next;
    }
  } catch (error) {
    // A deadline or abort surfaces as what it is, not as the socket error it caused.
    if (controller.signal.aborted && controller.signal.reason instanceof EgressError) throw controller.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
    init.signal?.removeEventListener('abort', onAbort);
  }
}

function httpUrl(input: string | URL): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new EgressError('bad-url', `Not a URL: "${String(input)}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new EgressError('bad-url', `Only http and https URLs are fetched, not "${url.protocol}".`);
  return url;
}

type Hop = { method: string; headers: Record<string, string>; body: string | Uint8Array | undefined; target: string | undefined };

/** One request on a fresh guarded connection (no keep-alive); the socket is gone when it settles. */
async function exchange(egress: EgressConnector, url: URL, hop: Hop, init: EgressFetchInit, signal: AbortSignal): Promise<Omit<EgressResponse, 'url' | 'redirects'>> {
  const secure = url.protocol === 'https:';
  const connect = {
    host: url.hostname,
    port: Number(url.port) || (secure ? 443 : 80),
    signal,
    ...(init.connectTimeoutMs === undefined ? {} : { timeoutMs: init.connectTimeoutMs }),
  };
  const tlsOptions = { ...(init.tls ? { tls: init.tls } : {}), ...(init.servername === undefined ? {} : { servername: init.servername }) };
  const socket = secure ? await egress.connectTls({ ...connect, ...tlsOptions }) : await egress.connect(connect);
  const cap = init.maxBodyBytes ?? 1024 * 1024;
  try {
    return await new Promise((resolve, reject) => {
      const fail = (error: Error): void => reject(error instanceof EgressError ? error : new EgressError('unreachable', `${url.href}: ${error.message}`, { cause: error }));
      if (signal.aborted) return fail(new Error('aborted'));
      const request = http.request({
        // The socket is already connected to a checked address: the request never resolves the name.
        createConnection: () => socket,
        method: hop.method,
        path: hop.target ?? `${url.pathname}${url.search}`,
        headers: { host: url.host, 'user-agent': 'Rampart', accept: '*/*', ...hop.headers, connection: 'close' },
      });
      const onAbort = (): void => {
        request.destroy();
        fail(new Error('aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      request.on('close', () => signal.removeEventListener('abort', onAbort));
      request.on('error', fail);
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = (truncated: boolean): void => {
          resolve({
            status: response.statusCode ?? 0,
            statusText: response.statusMessage ?? '',
            httpVersion: response.httpVersion,
            headers: response.headers,
            body: Buffer.concat(chunks, size),
            truncated,
          });
          if (truncated) request.destroy();
        };
        response.on('data', (chunk: Buffer) => {
          const room = cap - size;
          chunks.push(chunk.subarray(0, room));
          size += Math.min(chunk.length, room);
          if (chunk.length > room) finish(true);
        });
        response.on('end', () => finish(false));
        response.on('error', fail);
      });
      request.end(hop.body);
    });
  } finally {
    socket.destroy();
  }
}
