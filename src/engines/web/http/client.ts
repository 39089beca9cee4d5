/**
 * The one HTTP client of a web scan (contract.ts `WebClient`). Every request goes through the
 * job's egress (the address guard checks every hop), stays in the scan's scope, waits for its turn
 * under the per-host rate and concurrency bounds, has a deadline, and counts against the request
 * budget. Cookies live in one jar (the session), which a login replaces.
 */
import { performance } from 'node:perf_hooks';
import { Cookie, CookieJar } from 'tough-cookie';
import type { Egress, EgressResponse } from '../../../shared/egress.js';
import { EgressError } from '../../../shared/egress.js';
import { BudgetExhausted, OutOfScope, type BrowserCookie, type SendOptions, type WebClient, type WebRequest, type WebResponse } from '../contract.js';
import { createScope } from './scope.js';

export interface WebClientOptions {
  egress: Egress;
  /** The scan's start URL: its scheme, host, port and path prefix are the scope. */
  start: string;
  signal: AbortSignal;
  /** Requests per second to the host; 0 for no limit. */
  ratePerSecond: number;
  /** Exchanges in flight at once. */
  maxConcurrency: number;
  /** Deadline of one exchange (every redirect hop included). */
  timeoutMs: number;
  /** Requests the scan may send in all; then `send` throws `BudgetExhausted`. */
  maxRequests: number;
  /** Wall-clock time (ms since the epoch) after which `send` throws `BudgetExhausted`. */
  deadline: number;
  /** Body bytes kept per response; default 1 MiB. */
  maxBodyBytes?: number;
  /** TLS: accept any certificate (a scanner probes self-signed test servers); default true. */
  insecureTls?: boolean;
  userAgent?: string;
  /** Called with every response (the passive checks read them here). */
  onResponse?: (response: WebResponse) => void;
}

export const USER_AGENT = 'Mozilla/5.0 (compatible; Rampart web scanner; +https://github.com/rampart)';
const MAX_REDIRECTS = 5;

export function createWebClient(options: WebClientOptions): WebClient {
  const scope = createScope(options.start);
  const jar = new CookieJar(undefined, { looseMode: true, rejectPublicSuffixes: false });
  const gate = createGate(options.ratePerSecond, options.maxConcurrency);
  let sent = 0;
  let sessionHeaders: Record<string, string> = {};

  const exchange = async (request: WebRequest, sendOptions: SendOptions): Promise<WebResponse> => {
    if (options.signal.aborted) throw new EgressError('aborted', `${request.url}: the scan was stopped.`);
    if (sent >= options.maxRequests) throw new BudgetExhausted(`the scan's request budget (${options.maxRequests} requests) is spent.`);
    if (Date.now() >= options.deadline) throw new BudgetExhausted("the scan's time limit is reached.");
    const headers: Record<string, string> = {
      'user-agent': options.userAgent ?? USER_AGENT,
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      ...(sendOptions.withoutCookies ? {} : sessionHeaders),
      ...lowerCaseKeys(request.headers ?? {}),
    };
    if (!sendOptions.withoutCookies && headers.cookie === undefined) {
      const cookie = jar.getCookieStringSync(request.url);
      if (cookie) headers.cookie = cookie;
    }
    const release = await gate.acquire(options.signal);
    let response: EgressResponse;
    let timeMs: number;
    try {
      if (sent >= options.maxRequests) throw new BudgetExhausted(`the scan's request budget (${options.maxRequests} requests) is spent.`);
      sent++;
      const began = performance.now();
      response = await options.egress.fetch(request.url, {
        method: request.method,
        headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
        redirect: 'manual',
        timeoutMs: Math.max(1, Math.min(sendOptions.timeoutMs ?? options.timeoutMs, options.deadline - Date.now())),
        maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
        signal: options.signal,
        tls: { rejectUnauthorized: options.insecureTls === false },
        ...(sendOptions.rawTarget !== undefined ? { target: sendOptions.rawTarget } : {}),
      });
      timeMs = performance.now() - began;
    } finally {
      release();
    }
    const flat = flattenHeaders(response.headers);
    if (!sendOptions.withoutCookies && flat['set-cookie']) {
      for (const line of flat['set-cookie'].split('\n')) {
        try {
          jar.setCookieSync(line, response.url, { ignoreError: true });
        } catch {
          // A malformed cookie is the server's problem; the passive checks still see the header.
        }
      }
    }
    const body = decodeBody(response.body, flat['content-type']);
    const result: WebResponse = {
      request: { method: request.method, url: request.url, headers, body: bodyText(request.body) },
      url: response.url,
      status: response.status,
      headers: flat,
      body,
      truncated: response.truncated,
      redirects: [],
      timeMs,
    };
    options.onResponse?.(result);
    return result;
  };

  const send = async (request: WebRequest, sendOptions: SendOptions = {}): Promise<WebResponse> => {
    if (!sendOptions.allowOutOfScope && !scope.contains(request.url)) throw new OutOfScope(request.url);
    let response = await exchange(request, sendOptions);
    if (!sendOptions.followRedirects) return response;
    const redirects: string[] = [];
    let current = request;
    while (isRedirect(response.status) && response.headers.location !== undefined && redirects.length < MAX_REDIRECTS) {
      let next: string;
      try {
        next = new URL(response.headers.location, response.url).href.replace(/#.*$/, '');
      } catch {
        break;
      }
      // Never follow out of scope: the 3xx itself is the answer.
      if (!scope.contains(next)) break;
      redirects.push(next);
      const keepsMethod = response.status === 307 || response.status === 308;
      current = keepsMethod ? { ...current, url: next } : { method: 'GET', url: next, ...(current.headers ? { headers: withoutBodyHeaders(current.headers) } : {}) };
      const { rawTarget: _first, ...hopOptions } = sendOptions;
      response = await exchange(current, hopOptions);
    }
    return { ...response, redirects };
  };

  return {
    send,
    inScope: (url) => scope.contains(url),
    get requestsSent() {
      return sent;
    },
    get spent() {
      return sent >= options.maxRequests || Date.now() >= options.deadline;
    },
    cookieHeader: (url) => jar.getCookieStringSync(url),
    setHeaders(headers) {
      sessionHeaders = lowerCaseKeys(headers);
    },
    setCookies(cookies: BrowserCookie[]) {
      jar.removeAllCookiesSync();
      for (const cookie of cookies) {
        const domain = cookie.domain?.replace(/^\./, '') ?? new URL(scope.origin).hostname;
        const made = new Cookie({
          key: cookie.name,
          value: cookie.value,
          domain,
          path: cookie.path ?? '/',
          secure: cookie.secure ?? false,
          httpOnly: cookie.httpOnly ?? false,
          hostOnly: !cookie.domain?.startsWith('.'),
          ...(cookie.expiry !== undefined ? { expires: new Date(cookie.expiry * 1000) } : {}),
        });
        const origin = `${new URL(scope.origin).protocol}//${domain}${new URL(scope.origin).port ? `:${new URL(scope.origin).port}` : ''}/`;
        jar.setCookieSync(made, origin, { ignoreError: true });
      }
    },
  };
}

const isRedirect = (status: number): boolean => status === 301 || status === 302 || status === 303 || status === 307 || status === 308;

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

function withoutBodyHeaders(headers: Record<string, string>): Record<string, string> {
  const out = lowerCaseKeys(headers);
  delete out['content-type'];
  delete out['content-length'];
  return out;
}

function flattenHeaders(headers: EgressResponse['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join('\n') : String(value);
  }
  return out;
}

function bodyText(body: WebRequest['body']): string {
  if (body === undefined) return '';
  return typeof body === 'string' ? body : Buffer.from(body).toString('latin1');
}

/** The body as text, in the charset the content-type names (utf-8 when none or unknown). */
export function decodeBody(body: Buffer, contentType: string | undefined): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** Bounds exchanges: at most `maxConcurrency` in flight, and starts spaced to `ratePerSecond`. */
function createGate(ratePerSecond: number, maxConcurrency: number): { acquire(signal: AbortSignal): Promise<() => void> } {
  const interval = ratePerSecond > 0 ? 1000 / ratePerSecond : 0;
  let nextStart = 0;
  let inFlight = 0;
  const waiting: Array<() => void> = [];
  const release = (): void => {
    inFlight--;
    waiting.shift()?.();
  };
  return {
    async acquire(signal) {
      if (inFlight >= maxConcurrency) {
        await new Promise<void>((resolve, reject) => {
          const onAbort = (): void => {
            const index = waiting.indexOf(wake);
            if (index >= 0) waiting.splice(index, 1);
            reject(new EgressError('aborted', 'the scan was stopped.'));
          };
          const wake = (): void => {
            signal.removeEventListener('abort', onAbort);
            resolve();
          };
          waiting.push(wake);
          signal.addEventListener('abort', onAbort, { once: true });
        });
      }
      inFlight++;
      if (interval > 0) {
        const now = performance.now();
        const start = Math.max(now, nextStart);
        nextStart = start + interval;
        if (start > now) {
          try {
            await delay(start - now, signal);
          } catch (error) {
            release();
            throw error;
          }
        }
      }
      return release;
    },
  };
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new EgressError('aborted', 'the scan was stopped.'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
