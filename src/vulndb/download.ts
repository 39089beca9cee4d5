/**
 * HTTP downloads for the vulnerability-database sync. A request may wait `timeoutMs` for the
 * response and then `timeoutMs` for each next piece of the body, so a large file on a slow link
 * completes while a server that stops sending is given up; 5xx, 429, network errors and timeouts
 * are retried a bounded number of times with a growing delay. Every failure names its cause (DNS,
 * refused, TLS, HTTP status, which time limit) and the URL.
 */
import { gunzipSync } from 'node:zlib';

export interface DownloadOptions {
  /** Names the source in errors and progress (`NVD`, `KEV`, `EPSS`). */
  label: string;
  headers?: Record<string, string>;
  /** The longest wait for the response, then for each next chunk of its body. */
  timeoutMs: number;
  /** Attempts after the first. */
  retries: number;
  /** Delay before retry n is n times this. */
  retryDelayMs: number;
  onRetry?: (message: string) => void;
  /** Bytes received so far and the announced length (null when the server gives none). */
  onBytes?: (received: number, total: number | null) => void;
  /** Stops the download (the sync's caller went away). */
  signal?: AbortSignal;
}

/** A failed download, after its retries; `retryable` failures were retried until exhausted. */
export class DownloadError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DownloadError';
  }
}

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

/** `250 ms`, `120 s`: how time limits read in messages. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/** Downloads a URL's body, retrying transient failures; throws a `DownloadError` with a clear message. */
export async function download(url: string, options: DownloadOptions): Promise<Buffer> {
  const attempts = options.retries + 1;
  for (let attempt = 1; ; attempt++) {
    let failure: DownloadError;
    try {
      return await attemptDownload(url, options);
    } catch (error) {
      // Only the caller's abort escapes attemptDownload as something else; it is not retried.
      if (!(error instanceof DownloadError)) throw error;
      failure = error;
    }
    if (!failure.retryable || attempt >= attempts) {
      if (attempt > 1) failure.message += ` (after ${attempt} attempts)`;
      throw failure;
    }
    options.onRetry?.(`${failure.message}; retrying (attempt ${attempt + 1} of ${attempts})`);
    await sleep(options.retryDelayMs * attempt);
  }
}

/** One request: the response within the time limit, then each chunk of the body within it. */
async function attemptDownload(url: string, options: DownloadOptions): Promise<Buffer> {
  const { label, timeoutMs } = options;
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([controller.signal, options.signal]) : controller.signal;
  let waiting: 'response' | 'body' = 'response';
  let timedOut = false;
  let received = 0;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
  };
  arm();
  try {
    const response = await fetch(url, { ...(options.headers ? { headers: options.headers } : {}), signal });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      const transient = response.status >= 500 || response.status === 429;
      throw new DownloadError(`${label} download failed: HTTP ${response.status} from ${url}`, transient);
    }
    waiting = 'body';
    // With a Content-Encoding, the length counts compressed bytes and fetch hands out decoded ones.
    const length = response.headers.has('content-encoding') ? Number.NaN : Number(response.headers.get('content-length'));
    const total = Number.isFinite(length) && length > 0 ? length : null;
    const chunks: Uint8Array[] = [];
    if (response.body) {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        arm();
        chunks.push(chunk);
        received += chunk.length;
        options.onBytes?.(received, total);
      }
    }
    return Buffer.concat(chunks);
  } catch (error) {
    if (error instanceof DownloadError) throw error;
    if (timedOut) {
      const message =
        waiting === 'response'
          ? `${label} download timed out: no response from ${url} within ${formatDuration(timeoutMs)}`
          : `${label} download stalled: nothing received from ${url} for ${formatDuration(timeoutMs)} (after ${received} bytes)`;
      throw new DownloadError(message, true, { cause: error });
    }
    if (options.signal?.aborted) throw error;
    throw new DownloadError(`${label} download failed: ${networkCause(error, url)} (${url})`, true, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

/**
 * What went wrong underneath fetch's "fetch failed", in words a person can act on: the system
 * error (with its code) that undici keeps as the cause.
 */
export function networkCause(error: unknown, url: string): string {
  let cause: unknown = error instanceof Error && error.cause !== undefined ? error.cause : error;
  // Happy eyeballs tries every address of a name and reports them together.
  if (cause instanceof AggregateError && cause.errors.length > 0 && !(cause as NodeJS.ErrnoException).code) cause = cause.errors[0];
  if (!(cause instanceof Error)) return String(cause);
  const e = cause as NodeJS.ErrnoException & { address?: string; port?: number; hostname?: string };
  const code = e.code ?? '';
  const host = new URL(url).hostname;
  const peer = e.address ? `${e.address}${e.port ? `:${e.port}` : ''}` : host;
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return `DNS lookup of ${e.hostname ?? host} failed (${code})`;
    case 'ECONNREFUSED':
      return `connection refused by ${peer} (ECONNREFUSED)`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return `connection closed by ${peer} before the answer was complete (${code})`;
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `could not connect to ${peer}: connection timed out (${code})`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${peer} is unreachable from this machine (${code})`;
  }
  if (TLS_CODE.test(code)) return `TLS connection to ${host} failed: ${e.message} (${code})`;
  return code ? `${e.message} (${code})` : e.message;
}

/**
 * The body as text, gunzipped when it is gzip data. The gzip magic bytes decide rather than the
 * URL or Content-Type: fetch already undoes a `Content-Encoding: gzip`, and a `.gz` URL can be
 * served decompressed by a mirror.
 */
export function bodyText(body: Buffer): string {
  const gzipped = body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;
  return (gzipped ? gunzipSync(body) : body).toString('utf8');
}
