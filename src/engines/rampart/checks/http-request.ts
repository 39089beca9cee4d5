/**
 * One bounded HTTP(S) request for the HTTP check, through the job's egress (`Egress.fetch`): to
 * the literal address (already allowed; the egress checks it again and never resolves a name),
 * with the target's name as Host (and SNI), no keep-alive, no redirects followed (a 3xx is judged
 * as it is; the crawl follows only same-origin links itself), a body cap and one deadline over
 * the connect and the response.
 */
import net from 'node:net';
import type http from 'node:http';
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

/** What to ask: method (GET by default), path (with its query), and extra headers. */
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
 * network error, on timeout (connect plus read timeouts in all), on a refusal by the guard and
 * on abort.
 */
export async function sendHttpRequest(endpoint: Endpoint, secure: boolean, options: HttpRequestOptions): Promise<HttpResponse | null> {
  if (endpoint.signal.aborted) return null;
  const address = net.isIPv6(endpoint.address) ? `[${endpoint.address}]` : endpoint.address;
  const url = `${secure ? 'https' : 'http'}://${address}:${endpoint.port}${options.path}`;
  try {
    const response = await endpoint.egress.fetch(url, {
      method: options.method ?? 'GET',
      headers: { host: hostHeader(endpoint, secure), 'user-agent': 'Rampart security scanner', ...options.headers },
      redirect: 'manual',
      timeoutMs: endpoint.limits.connectTimeoutMs + endpoint.limits.readTimeoutMs,
      connectTimeoutMs: endpoint.limits.connectTimeoutMs,
      maxBodyBytes: MAX_BODY_BYTES,
      signal: endpoint.signal,
      // The TLS check judges certificates; here we only want the HTTP answer.
      tls: { rejectUnauthorized: false },
      ...(net.isIP(endpoint.hostname) === 0 ? { servername: endpoint.hostname } : {}),
    });
    return { status: response.status, headers: response.headers, body: response.body, truncated: response.truncated };
  } catch {
    // EgressError (refused, timeout, unreachable, aborted, tls) or a malformed answer: nothing to judge.
    return null;
  }
}
