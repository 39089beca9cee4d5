/**
 * HTTP downloads for the vulnerability-database sync: every request has a timeout, and 5xx, 429,
 * network errors and timeouts are retried a bounded number of times with a growing delay.
 */
import { gunzipSync } from 'node:zlib';

export interface DownloadOptions {
  /** Names the source in errors and progress (`NVD`, `KEV`, `EPSS`). */
  label: string;
  headers?: Record<string, string>;
  /** Per attempt, covering the response body too. */
  timeoutMs: number;
  /** Attempts after the first. */
  retries: number;
  /** Delay before retry n is n times this. */
  retryDelayMs: number;
  onRetry?: (message: string) => void;
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

/** Downloads a URL's body, retrying transient failures; throws a `DownloadError` with a clear message. */
export async function download(url: string, options: DownloadOptions): Promise<Buffer> {
  const attempts = options.retries + 1;
  for (let attempt = 1; ; attempt++) {
    let failure: DownloadError;
    try {
      const response = await fetch(url, { headers: options.headers, signal: AbortSignal.timeout(options.timeoutMs) });
      if (response.ok) return Buffer.from(await response.arrayBuffer());
      await response.body?.cancel().catch(() => undefined);
      const transient = response.status >= 500 || response.status === 429;
      failure = new DownloadError(`${options.label} download failed: HTTP ${response.status} from ${url}`, transient);
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      const message = timedOut
        ? `${options.label} download timed out after ${options.timeoutMs} ms: ${url}`
        : `${options.label} download failed: ${describe(error)} (${url})`;
      failure = new DownloadError(message, true, { cause: error });
    }
    if (!failure.retryable || attempt >= attempts) {
      if (attempt > 1) failure.message += ` (after ${attempt} attempts)`;
      throw failure;
    }
    options.onRetry?.(`${failure.message}; retrying (attempt ${attempt + 1} of ${attempts})`);
    await sleep(options.retryDelayMs * attempt);
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
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
