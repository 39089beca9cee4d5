/**
 * One bounded HTTP(S) request for the HTTP check: to the literal address, through the egress
 * (which checks it with the guard), with the target's name as Host (and SNI), no keep-alive, no
 * redirects followed (a 3xx is judged as it is; anything that follows one must use
 * `Egress.fetch`, which checks every hop), a body cap and an overall deadline. The socket and
 * timer are released before the promise settles.
 */
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { connectTcp } from '../port-scan.js';
import type { Endpoint } from './check.js';

/** The most of a body read per response; the rest is dropped (`truncated`). */
export const MAX_BODY_BYTES = 64 * 1024;

/** A response as read: status, headers and the first `MAX_BODY_BYTES` of the body. */
export interface HttpResponse {
  status: number;
  /** Header names in lower case; repeated headers joined by Node's rules (`set-cookie` an array). */
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
}

/** What to ask: method (GET by default), path, and extra headers. */
export interface HttpRequestOptions {
  method?: string;
  path: string;
  headers?: Record<string, string>;
}

/** The Host header value for an endpoint: its name, the port when not the scheme's default. */
export function hostHeader(endpoint: Endpoint, secure: boolean): string {
  const name = net.isIPv6(endpoint.hostname) ? `[${endpoint.hostname}]` : endpoint.hostname;
  return endpoint.port === (secure ? 443 : 80) ? name : `${name}:${endpoint.port}`;
}

/**
 * Sends one request and reads the response (up to `MAX_BODY_BYTES`). Resolves null on any
 * network error, on timeout (connect plus read timeouts in all) and on abort.
 */
export async function sendHttpRequest(endpoint: Endpoint, secure: boolean, options: HttpRequestOptions): Promise<HttpResponse | null> {
  if (endpoint.signal.aborted) return null;
  const started = Date.now();
  const outcome = await connectTcp(endpoint.egress, endpoint.address, endpoint.port, endpoint.limits.connectTimeoutMs, endpoint.signal);
  if (outcome.state !== 'connected') return null;
  const raw = outcome.socket;
  const socket = secure
    ? tls.connect({
        socket: raw,
        host: endpoint.address,
        // The TLS check judges certificates; here we only want the HTTP answer.
        rejectUnauthorized: false,
        ...(net.isIP(endpoint.hostname) === 0 ? { servername: endpoint.hostname } : {}),
      })
    : raw;
  // Errors after we settled (a late reset) must not crash the process.
  socket.on('error', () => undefined);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (response: HttpResponse | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      endpoint.signal.removeEventListener('abort', onAbort);
      request.destroy();
      socket.destroy();
      raw.destroy();
      resolve(response);
    };
    const onAbort = (): void => settle(null);
    // Connect plus read timeouts in all, the connect included.
    const left = Math.max(0, endpoint.limits.connectTimeoutMs + endpoint.limits.readTimeoutMs - (Date.now() - started));
    const timer = setTimeout(() => settle(null), left);

    const requestOptions: http.RequestOptions = {
      // The socket is already connected to the checked address: nothing is resolved here.
      createConnection: () => socket,
      method: options.method ?? 'GET',
      path: options.path,
      headers: {
        host: hostHeader(endpoint, secure),
        'user-agent': 'Rampart security scanner',
        accept: '*/*',
        connection: 'close',
        ...options.headers,
      },
    };
    const request = http.request(requestOptions, (response) => {
      const finish = (truncated: boolean): void =>
        settle({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks, size), truncated });
      response.on('data', (chunk: Buffer) => {
        const room = MAX_BODY_BYTES - size;
        chunks.push(chunk.subarray(0, room));
        size += Math.min(chunk.length, room);
        if (chunk.length > room) finish(true);
      });
      response.on('end', () => finish(false));
      // A reset mid-body still leaves the status and headers worth judging.
      response.on('error', () => finish(true));
    });
    request.on('error', () => settle(null));
    endpoint.signal.addEventListener('abort', onAbort, { once: true });
    if (endpoint.signal.aborted) onAbort();
    request.end();
  });
}
