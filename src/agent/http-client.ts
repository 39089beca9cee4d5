/**
 * The agent's client for the service: JSON over node:https (node:http for an http:// base URL),
 * the scan-scoped credential on every call, a timeout on every call, and bounded retries with
 * backoff for what may pass (connection errors, timeouts, 5xx) but never for a 4xx, which is the
 * service's answer. TLS is Node's default trust plus the CA of `--ca`; verification is never off.
 * Plain HTTP carries the credential in clear: it is refused off loopback unless the user asked for
 * it (`--insecure-http`, lab use only).
 */
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';

/** How the service answered, when it answered with a status the caller must handle (4xx). */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

/** The service's TLS certificate is not trusted: retrying cannot help, the user must pass --ca. */
export class UntrustedTlsError extends Error {
  constructor(reason: string) {
    super(`the service's TLS certificate is not trusted: ${reason}; pass --ca FILE naming the CA that signed it`);
    this.name = 'UntrustedTlsError';
  }
}

/** The service could not be reached (or answered 5xx) after every retry. */
export class UnreachableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UnreachableError';
  }
}

/** OpenSSL's and Node's codes for a certificate chain or name the client refuses. */
const CERTIFICATE_ERRORS = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED', 'CERT_REJECTED', 'CERT_SIGNATURE_FAILURE', 'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export interface ClientOptions {
  /** `{baseUrl}/api/scans/{uuid}/agent`, without a trailing slash. */
  agentUrl: string;
  credential: string;
  /** PEM text of an extra CA (`--ca`), trusted besides Node's default roots. */
  extraCa?: string;
  /** Bound on one request, connect to last byte; default 30 s. */
  timeoutMs?: number;
  /** Tries per call (the first included); default 6 (about a minute of backoff). */
  attempts?: number;
  /** Stops retries and in-flight requests (SIGINT/SIGTERM). */
  signal?: AbortSignal;
  /** Allow plain HTTP to a host other than loopback (`--insecure-http`). */
  insecureHttp?: boolean;
}

export const PLAIN_HTTP_REFUSED = 'the service must be reached over HTTPS; plain HTTP only on loopback';

/** Whether this URL would send the credential in clear over a network: plain HTTP to a host that is not loopback. */
export function isPlainHttpOffLoopback(url: URL): boolean {
  if (url.protocol !== 'http:') return false;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return !(host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::1');
}

export interface AgentClient {
  /** One call; resolves with the parsed JSON body of a 2xx, throws ServiceError for a 4xx. */
  call<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, options?: { attempts?: number }): Promise<T>;
}

/** Longest pause between two tries. */
const MAX_BACKOFF_MS = 30_000;

export function createAgentClient(options: ClientOptions): AgentClient {
  const url = new URL(options.agentUrl);
  if (isPlainHttpOffLoopback(url) && !options.insecureHttp) throw new Error(PLAIN_HTTP_REFUSED);
  const secure = url.protocol === 'https:';
  // Node's roots stay trusted: `ca` replaces them, so they are passed along with the extra one.
  const agent = secure
    ? new https.Agent({ keepAlive: true, ...(options.extraCa ? { ca: [...tls.rootCertificates, options.extraCa] } : {}) })
    : new http.Agent({ keepAlive: true });
  const timeoutMs = options.timeoutMs ?? 30_000;

  const once = (method: string, path: string, payload: string | undefined) =>
    new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const target = new URL(options.agentUrl + path);
      const request = (secure ? https : http).request(target, {
        method,
        agent,
        timeout: timeoutMs,
        headers: {
          authorization: `Bearer ${options.credential}`,
          accept: 'application/json',
          ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
        ...(options.signal ? { signal: options.signal } : {}),
      });
      // The socket timeout covers silences; this one bounds the whole exchange.
      const deadline = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
      request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
      request.on('error', (error) => {
        clearTimeout(deadline);
        reject(error);
      });
      request.on('response', (response) => {
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => parts.push(part));
        response.on('error', (error) => {
          clearTimeout(deadline);
          reject(error);
        });
        response.on('end', () => {
          clearTimeout(deadline);
          resolve({ status: response.statusCode ?? 0, body: parseBody(Buffer.concat(parts).toString('utf8')) });
        });
      });
      request.end(payload);
    });

  return {
    async call<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, callOptions: { attempts?: number } = {}): Promise<T> {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const attempts = callOptions.attempts ?? options.attempts ?? 6;
      let lastProblem = '';
      for (let attempt = 1; attempt <= attempts; attempt++) {
        if (attempt > 1) await pause(backoffMs(attempt - 1), options.signal);
        let answer: { status: number; body: Record<string, unknown> };
        try {
          answer = await once(method, path, payload);
        } catch (error) {
          if (options.signal?.aborted) throw error;
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== undefined && CERTIFICATE_ERRORS.has(code)) throw new UntrustedTlsError(`${(error as Error).message} (${code})`);
          lastProblem = describe(error);
          continue;
        }
        if (answer.status >= 200 && answer.status < 300) return answer.body as T;
        const message = typeof answer.body.message === 'string' ? answer.body.message : `HTTP ${answer.status}`;
        if (answer.status < 500) throw new ServiceError(answer.status, message, answer.body);
        lastProblem = `the service answered ${answer.status}: ${message}`;
      }
      throw new UnreachableError(`${method} ${path} failed after ${attempts} tries: ${lastProblem}`);
    },
  };
}

function parseBody(text: string): Record<string, unknown> {
  if (text === '') return {};
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : { value };
  } catch {
    return { message: text.slice(0, 500) };
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}

/** 1 s, 2 s, 4 s... up to MAX_BACKOFF_MS, with up to 25% jitter so agents do not retry in step. */
export function backoffMs(retry: number): number {
  const base = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (retry - 1));
  return Math.round(base * (1 + Math.random() * 0.25));
}

/** Waits, or resolves early when the signal aborts (the caller checks the signal). */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
