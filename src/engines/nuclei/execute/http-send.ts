/**
 * Sending one built http request: hop by hop through `egress.fetch` (redirect `manual`, so the
 * executor applies nuclei's redirect rules: `redirects` any host, `host-redirects` the same host
 * only, `max-redirects` default 10, Go's method change on 301/302/303), each hop under the host
 * gate, the cookie jar applied, the body read up to a cap and decoded (gzip, deflate, br).
 * Identical requests of different templates share one exchange through the run's cache.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import zlib from 'node:zlib';
import { EgressError } from '../../../shared/egress.js';
import type { ExecutionContext } from './contract.js';
import type { CookieJar } from './http-cookies.js';
import type { HttpExchange, HttpHop } from './http-hop.js';
import type { HttpRequestSpec } from './http-request.js';
import { sendUnsafe } from './http-unsafe.js';

/** Body bytes read from one response (nuclei reads 10 MB); matchers see the cut body. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** Upper bound of a `@timeout:` annotation (time-based templates ask 10-30 s). */
const MAX_ANNOTATION_TIMEOUT_MS = 120_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** How a block follows redirects. */
export interface RedirectPolicy {
  follow: boolean;
  sameHostOnly: boolean;
  max: number;
}

/** A request the guard refused, or that node refused to write: the template's own fault, not the host's. */
export class RequestRefusedError extends Error {
  override readonly name = 'RequestRefusedError';
}

/** Go's canonical header name (`content-type` -> `Content-Type`). */
export function canonicalHeaderName(name: string): string {
  if (!/^[A-Za-z0-9-]+$/.test(name)) return name;
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
}

/** The request-target with what node refuses (spaces, controls) and non-ASCII bytes percent-encoded. */
export function escapeTarget(target: string): string {
  let out = '';
  for (const char of target) {
    const code = char.charCodeAt(0);
    out += code <= 0x20 || code >= 0x7f ? `%${code.toString(16).toUpperCase().padStart(2, '0')}` : char;
  }
  return out;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Header lines node accepts: token names; values without CR, LF or other controls (dropped). */
function cleanHeaders(headers: Array<[string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    if (!TOKEN.test(name) || name.toLowerCase() === 'content-length' || name.toLowerCase() === 'connection') continue;
    out[name.toLowerCase()] = value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');
  }
  return out;
}

function decodeBody(body: Buffer, encoding: string | undefined): Buffer {
  const options = { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: MAX_BODY_BYTES };
  try {
    switch (encoding?.trim().toLowerCase()) {
      case 'gzip':
      case 'x-gzip':
        return zlib.gunzipSync(body, options);
      case 'deflate':
        return body[0] === 0x78 ? zlib.inflateSync(body, options) : zlib.inflateRawSync(body, options);
      case 'br':
        return zlib.brotliDecompressSync(body, { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH, maxOutputLength: MAX_BODY_BYTES });
      default:
        return body;
    }
  } catch {
    return body; // not what it says it is, or too large decoded: matchers see the bytes received
  }
}

function dumpRequest(method: string, target: string, headers: Record<string, string>, host: string, body: Uint8Array | undefined): string {
  const lines = [`${method} ${target} HTTP/1.1`];
  if (!Object.hasOwn(headers, 'host')) lines.push(`Host: ${host}`);
  for (const [name, value] of Object.entries(headers)) lines.push(`${canonicalHeaderName(name)}: ${value}`);
  if (body && body.byteLength > 0) lines.push(`Content-Length: ${body.byteLength}`);
  return `${lines.join('\r\n')}\r\n\r\n${body ? Buffer.from(body).toString('latin1') : ''}`;
}

function setCookiesOf(headers: IncomingHttpHeaders): string[] {
  return headers['set-cookie'] ?? [];
}

/**
 * Runs one exchange on a copy of the jar. Throws HostSkippedError (gate), EgressError (network,
 * after telling the gate; `refused` untold: the guard's choice, not the host's fault),
 * RequestRefusedError (a request node will not write).
 */
async function runExchange(spec: HttpRequestSpec, policy: RedirectPolicy, jar: CookieJar, context: ExecutionContext, maxBody: number, count: () => void): Promise<HttpExchange> {
  const hops: HttpHop[] = [];
  let url = new URL(`${spec.origin}/`);
  let target: string | undefined = escapeTarget(spec.target);
  let method = spec.method;
  let body = spec.body;
  const headers = cleanHeaders(spec.headers);
  const timeoutMs = exchangeTimeoutMs(spec, context);
  let bytes = 0;
  for (;;) {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const hopHeaders = { ...headers };
    const cookies = jar.header(host);
    if (cookies !== undefined) hopHeaders.cookie = hopHeaders.cookie ? `${hopHeaders.cookie}; ${cookies}` : cookies;
    const sentTarget = target ?? `${url.pathname}${url.search}`;
    const hopUrl = hops.length === 0 ? spec.url : `${url.origin}${sentTarget}`;
    const response = await context.gate.run(host, async () => {
      if (context.signal.aborted) throw new EgressError('aborted', `${hopUrl}: aborted.`);
      const started = performance.now();
      count();
      try {
        const answer = await context.egress.fetch(url, {
          method,
          headers: hopHeaders,
          ...(body === undefined ? {} : { body }),
          redirect: 'manual',
          ...(target === undefined ? {} : { target }),
          timeoutMs,
          connectTimeoutMs: Math.min(timeoutMs, context.timeoutMs),
          maxBodyBytes: maxBody,
          signal: context.signal,
          tls: { rejectUnauthorized: false },
        });
        context.gate.answered(host);
        return { answer, seconds: (performance.now() - started) / 1000 };
      } catch (error) {
        if (!(error instanceof EgressError)) throw new RequestRefusedError(`${hopUrl}: ${(error as Error).message}`);
        if (countsAgainstHost(error)) context.gate.networkError(host, error);
        throw error;
      }
    });
    const decoded = decodeBody(response.answer.body, response.answer.headers['content-encoding']);
    bytes += decoded.byteLength;
    hops.push({
      url: hopUrl,
      host,
      method,
      status: response.answer.status,
      statusText: response.answer.statusText,
      httpVersion: response.answer.httpVersion,
      headers: response.answer.headers,
      body: decoded,
      durationSeconds: response.seconds,
      requestDump: dumpRequest(method, sentTarget, hopHeaders, url.host, body),
    });
    jar.store(host, setCookiesOf(response.answer.headers));
    const location = response.answer.headers.location;
    if (!policy.follow || !REDIRECTS.has(response.answer.status) || typeof location !== 'string' || hops.length > policy.max) break;
    let next: URL;
    try {
      next = new URL(location, `${url.origin}${sentTarget}`);
    } catch {
      break;
    }
    if ((next.protocol !== 'http:' && next.protocol !== 'https:') || (policy.sameHostOnly && next.host !== url.host)) break;
    // Go's client: 301/302/303 become a GET without a body (HEAD stays HEAD); 307/308 keep both.
    if ([301, 302, 303].includes(response.answer.status) && method !== 'GET' && method !== 'HEAD') {
      method = 'GET';
      body = undefined;
      delete headers['content-type'];
    }
    if (next.host !== url.host) for (const name of ['authorization', 'cookie', 'www-authenticate']) delete headers[name];
    // The template's Host header named the first hop; a redirect goes to its own host.
    delete headers.host;
    url = next;
    target = undefined;
  }
  return { hops, bytes };
}

/** What the executor tracks while sending: the template's jar, the keys it already sent, counters. */
export interface SendState {
  jar: CookieJar;
  /** Keys this template execution already used: a repeated identical request is sent again (state may have changed). */
  usedKeys: Set<string>;
  sent: number;
  shared: number;
}

/**
 * Sends a request (or takes the answer another template got for the same request on this run),
 * then applies every hop's cookies to the template's jar.
 */
export async function sendHttpRequest(spec: HttpRequestSpec, policy: RedirectPolicy, maxBody: number, state: SendState, context: ExecutionContext): Promise<HttpExchange> {
  if (spec.unsafeBytes !== undefined) return sendUnsafeRequest(spec, spec.unsafeBytes, maxBody, state, context);
  const jarCookie = state.jar.header(new URL(`${spec.origin}/`).hostname.replace(/^\[(.*)\]$/, '$1'));
  const key = JSON.stringify([
    spec.origin,
    spec.method,
    spec.target,
    [...spec.headers].map(([n, v]) => [n.toLowerCase(), v]).sort(),
    spec.body === undefined ? '' : Buffer.from(spec.body).toString('base64'),
    jarCookie ?? '',
    policy,
    spec.timeoutMs ?? 0,
    maxBody,
  ]);
  const count = (): void => {
    state.sent += 1;
  };
  let exchange: HttpExchange;
  if (state.usedKeys.has(key)) {
    exchange = await runExchange(spec, policy, state.jar.clone(), context, maxBody, count);
  } else {
    state.usedKeys.add(key);
    const { value, shared } = await context.cache.get(`http ${key}`, () => runExchange(spec, policy, state.jar.clone(), context, maxBody, count));
    if (shared) state.shared += 1;
    exchange = value;
  }
  for (const hop of exchange.hops) state.jar.store(hop.host, setCookiesOf(hop.headers));
  return exchange;
}

/** An unsafe request: never shared (its bytes are the point), one response, no redirects. */
async function sendUnsafeRequest(spec: HttpRequestSpec, bytes: Uint8Array, maxBody: number, state: SendState, context: ExecutionContext): Promise<HttpExchange> {
  const host = new URL(`${spec.origin}/`).hostname.replace(/^\[(.*)\]$/, '$1');
  const timeoutMs = exchangeTimeoutMs(spec, context);
  const hop = await context.gate.run(host, async () => {
    if (context.signal.aborted) throw new EgressError('aborted', `${spec.url}: aborted.`);
    state.sent += 1;
    try {
      const answer = await sendUnsafe({ origin: spec.origin, bytes: Buffer.from(bytes), method: spec.method, url: spec.url, timeoutMs }, context, maxBody);
      context.gate.answered(host);
      return answer;
    } catch (error) {
      if (error instanceof EgressError && countsAgainstHost(error)) context.gate.networkError(host, error);
      throw error;
    }
  });
  hop.body = decodeBody(Buffer.from(hop.body), headerText(hop.headers['content-encoding']));
  state.jar.store(hop.host, setCookiesOf(hop.headers));
  return { hops: [hop], bytes: hop.body.byteLength };
}

/** The bound on one exchange: the deployment's, or a longer `@timeout` annotation up to its cap. */
function exchangeTimeoutMs(spec: HttpRequestSpec, context: ExecutionContext): number {
  return spec.timeoutMs === undefined ? context.timeoutMs : Math.min(Math.max(spec.timeoutMs, context.timeoutMs), MAX_ANNOTATION_TIMEOUT_MS);
}

/** A failure the target caused (timeouts, resets), not our guard's refusal, the abort or a URL we built wrong. */
function countsAgainstHost(error: EgressError): boolean {
  return error.code !== 'refused' && error.code !== 'aborted' && error.code !== 'bad-url';
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
