/**
 * A ZAP daemon played back from recordings (test/fixtures/zap, sources in its SOURCE.md): a
 * node:http server on loopback answering `/JSON/<component>/<view|action>/<name>/` as ZAP does.
 * It checks the `X-ZAP-API-Key` header (and that the key is never in the query), the parameters
 * ZAP requires, answers ZAP's error bodies for endpoints it does not know or that a test makes
 * fail, pages the recorded alerts under `baseurl`, and records every call in order.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

const FIXTURES = (() => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  // From test/helpers under tsx, or dist/test/helpers once compiled: the fixtures stay in the source tree.
  return path.resolve(here, here.includes(`${path.sep}dist${path.sep}`) ? '../../../test/fixtures/zap' : '../fixtures/zap');
})();

type Json = Record<string, unknown>;
interface Endpoint {
  required: string[];
  answers: Json[];
}
const read = (file: string): Json => JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')) as Json;
const ENDPOINTS = read('responses.json').endpoints as Record<string, Endpoint>;
const ERRORS = read('errors.json').errors as Record<string, { status: number; body: Json }>;
/** The recorded alerts, without their `_source`. */
export const RECORDED_ALERTS: Json[] = (read('alerts.json').alerts as Json[]).map(({ _source, ...alert }) => alert);

/** One call the replay received. */
export interface ZapCall {
  /** `spider/action/scan` */
  path: string;
  params: Record<string, string>;
  /** `GET`, or `POST` for a form POST (the parameters then in the body, not the URL). */
  method: string;
  /** The request's path and query as sent: what a log of the daemon would show. */
  target: string;
}

export interface ZapReplayOptions {
  apiKey: string;
  /** Endpoints that answer this ZAP error code (a key of errors.json) instead of their recording. */
  failures?: Record<string, string>;
  /** Endpoints whose first answer repeats forever (a scan that never ends). */
  hold?: string[];
}

export interface ZapReplay {
  url: string;
  calls: ZapCall[];
  /** The paths called, in order. */
  paths(): string[];
  /** Resolves with the first call of `path` (at once when it was already made). */
  called(path: string): Promise<ZapCall>;
}

/**
 * Moves a recorded alert URL's site root (`http://172.17.0.2/`) to the scanned `baseurl`; an
 * alert recorded without a URL (ZAP's own test alert) is placed at `baseurl` itself.
 */
function relocate(url: string, baseurl: string): string {
  if (!url) return baseurl;
  const recorded = new URL(url);
  return baseurl + url.slice(recorded.origin.length + 1);
}

export async function startZapReplay(t: TestContext, options: ZapReplayOptions): Promise<ZapReplay> {
  const calls: ZapCall[] = [];
  const served = new Map<string, number>();
  const waiters: Array<{ path: string; resolve: (call: ZapCall) => void }> = [];

  const answer = (request: http.IncomingMessage, form: string): { status: number; body: Json } => {
    const url = new URL(request.url ?? '/', 'http://zap');
    // ZAP takes the parameters from the query or, for a form POST, from the body (API.java).
    if (request.method === 'POST') for (const [key, value] of new URLSearchParams(form)) url.searchParams.set(key, value);
    const match = /^\/JSON\/([^/]+\/(?:view|action)\/[^/]+)\/$/.exec(url.pathname);
    if (!match) return ERRORS.bad_view!;
    const endpointPath = match[1]!;
    const params = Object.fromEntries(url.searchParams);
    const call = { path: endpointPath, params, method: request.method ?? 'GET', target: request.url ?? '' };
    calls.push(call);
    for (const waiter of waiters.filter((w) => w.path === endpointPath)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(call);
    }
    if (request.headers['x-zap-api-key'] !== options.apiKey || 'apikey' in params) return ERRORS.bad_api_key!;
    const failure = options.failures?.[endpointPath];
    if (failure) return ERRORS[failure]!;
    if (endpointPath === 'alert/view/alerts') return { status: 200, body: { alerts: alertsPage(params) } };
    const endpoint = ENDPOINTS[endpointPath];
    if (!endpoint) return endpointPath.includes('/view/') ? ERRORS.bad_view! : ERRORS.bad_action!;
    const given = new Set(Object.entries(params).filter(([, v]) => v !== '').map(([k]) => k.toLowerCase()));
    if (endpoint.required.some((name) => !given.has(name))) return ERRORS.missing_parameter!;
    // A message is served for its own id only (CoreAPI answers does_not_exist for others).
    if (endpointPath === 'core/view/message' && (endpoint.answers[0]!.message as Json).id !== params.id) return ERRORS.does_not_exist!;
    const index = served.get(endpointPath) ?? 0;
    if (!options.hold?.includes(endpointPath)) served.set(endpointPath, index + 1);
    return { status: 200, body: endpoint.answers[Math.min(index, endpoint.answers.length - 1)]! };
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { status, body } = answer(request, Buffer.concat(chunks).toString('utf8'));
      response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    paths: () => calls.map((call) => call.path),
    called: (endpointPath) => {
      const done = calls.find((call) => call.path === endpointPath);
      return done ? Promise.resolve(done) : new Promise((resolve) => waiters.push({ path: endpointPath, resolve }));
    },
  };
}

/** `alert/view/alerts`: the recorded alerts moved under `baseurl`, paged by `start` and `count`. */
function alertsPage(params: Record<string, string>): Json[] {
  const baseurl = params.baseurl ?? '';
  const start = Number(params.start ?? 0);
  const count = Number(params.count ?? 0) || Infinity;
  const alerts = RECORDED_ALERTS.map((alert) => ({ ...alert, url: relocate(String(alert.url), baseurl) })).filter((alert) => alert.url.startsWith(baseurl));
  return alerts.slice(start, start + count);
}
