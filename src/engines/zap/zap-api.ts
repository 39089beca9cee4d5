/**
 * A small client of the ZAP daemon's JSON API (`/JSON/<component>/<view|action>/<name>/`).
 *
 * ZAP is the deployment's own daemon, not a scan target: it is called with Node's fetch directly,
 * not through the scan's egress (whose guard would rightly refuse a loopback or private daemon).
 * Every call carries the key in `X-ZAP-API-Key` (never in the query, where proxies log it), has a
 * time limit, and follows the caller's abort signal.
 *
 * ZAP's encoding (zaproxy `ApiResponseElement`, `ApiException`): a view answers
 * `{"<name>": value}`, an action without a value `{"Result":"OK"}`; scalars are JSON strings
 * (`"100"`); an error is HTTP 400 (500 for `internal_error`) with `{"code":..., "message":...}`.
 */
import { EngineError, type EngineErrorKind } from '../engine.js';

/** ZAP's error codes that mean the deployment's setup is wrong rather than a bug of the driver. */
const CONFIG_CODES = new Set(['bad_api_key', 'no_implementor', 'disabled']);

/** A ZAP API error answer: the code ZAP sent (`url_not_found`, `scan_in_progress`...) and its message. */
export class ZapApiError extends EngineError {
  constructor(
    kind: EngineErrorKind,
    readonly code: string,
    message: string,
  ) {
    super(kind, message);
    this.name = 'ZapApiError';
  }
}

/** Where the daemon is and how long one call may take. */
export interface ZapApiSettings {
  /** `http://127.0.0.1:8080`, with or without a trailing slash. */
  url: string;
  apiKey: string;
  /** Bound on one call, in milliseconds (default 30 s). */
  callTimeoutMs?: number;
}

/** A parameter value as ZAP takes it (booleans and numbers are sent as text). */
export type ZapParam = string | number | boolean | undefined;

export interface ZapApi {
  /** The daemon's base URL (for messages), without a trailing slash. */
  readonly url: string;
  /**
   * One call; resolves to ZAP's JSON object. Throws `ZapApiError` for ZAP's error answers and an
   * `EngineError` of kind `config` when the daemon does not answer.
   */
  call(path: `${string}/${'view' | 'action'}/${string}`, params: Record<string, ZapParam>, signal: AbortSignal): Promise<Record<string, unknown>>;
}

const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/** The client of one daemon. */
export function createZapApi(settings: ZapApiSettings): ZapApi {
  const base = settings.url.replace(/\/+$/, '');
  const timeoutMs = settings.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  return {
    url: base,
    async call(path, params, signal) {
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, String(value));
      // Actions are form POSTs: what they carry (a login session's cookies in a replacer rule) stays
      // out of URLs, and so out of ZAP's and any proxy's request logs. Views are GETs.
      const action = path.includes('/action/');
      const endpoint = action ? `${base}/JSON/${path}/` : `${base}/JSON/${path}/?${query}`;
      const deadline = AbortSignal.timeout(timeoutMs);
      let response: Response;
      let text: string;
      try {
        response = await fetch(endpoint, {
          method: action ? 'POST' : 'GET',
          headers: { 'X-ZAP-API-Key': settings.apiKey, accept: 'application/json', ...(action ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
          ...(action ? { body: query.toString() } : {}),
          signal: AbortSignal.any([signal, deadline]),
          redirect: 'manual',
        });
        text = await response.text();
      } catch (error) {
        if (signal.aborted) throw error;
        const why = deadline.aborted ? `did not answer ${path} within ${timeoutMs} ms` : `does not answer (${describeNetworkError(error)})`;
        throw new EngineError('config', `ZAP at ${base} ${why}: check RAMPART_ZAP_URL and that the daemon runs.`, { cause: error });
      }
      const body = parseObject(text);
      if (!response.ok) throw zapError(path, response.status, body, text);
      if (!body) throw new EngineError('internal', `ZAP answered ${path} with something that is not a JSON object: ${text.slice(0, 200)}`);
      return body;
    },
  };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function zapError(path: string, status: number, body: Record<string, unknown> | undefined, text: string): ZapApiError {
  const code = typeof body?.code === 'string' ? body.code : `http_${status}`;
  const message = typeof body?.message === 'string' ? body.message : text.slice(0, 200) || `HTTP ${status}`;
  const detail = typeof body?.detail === 'string' ? ` (${body.detail})` : '';
  if (CONFIG_CODES.has(code)) {
    const fix = code === 'bad_api_key' ? ': check RAMPART_ZAP_API_KEY' : ': the daemon lacks what this call needs (an add-on, or the API is disabled)';
    return new ZapApiError('config', code, `ZAP refused ${path}: ${message} (${code})${detail}${fix}.`);
  }
  return new ZapApiError('internal', code, `ZAP failed ${path}: ${message} (${code})${detail}.`);
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** A scalar of a ZAP answer (`{"status":"57"}` -> "57"); throws `internal` when it is missing. */
export function scalarOf(body: Record<string, unknown>, key: string): string {
  const value = body[key];
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  throw new EngineError('internal', `ZAP's answer has no "${key}": ${JSON.stringify(body).slice(0, 200)}`);
}

/** A scalar read as an integer (ZAP sends numbers as strings). */
export function integerOf(body: Record<string, unknown>, key: string): number {
  const text = scalarOf(body, key);
  const value = Number.parseInt(text, 10);
  if (!Number.isFinite(value)) throw new EngineError('internal', `ZAP's "${key}" is not a number: ${text}`);
  return value;
}
