/**
 * Fuzz: thousands of malformed requests, generated from a seed, to every route the app registers
 * (read from the app itself, so a new route is fuzzed without touching this file) and to every MCP
 * tool through the official SDK client. Nothing may answer 5xx, every error must be the
 * Laravel-style `{"message": ...}` with an X-Request-Id, and no MCP call may end in an internal
 * error. A failure prints the seed and the requests: FUZZ_SEED=<seed> replays the same run.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, ResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isPagePath } from '../src/web/web.plugin.js';
import { STORE_KIND } from './helpers/app.js';
import { finding, startScripted } from './helpers/scripted-engines.js';
import { waitFor } from './helpers/servers.js';
import {
  deepNesting,
  encodeBytes,
  nastyString,
  nastyValue,
  parseRouteTree,
  plausibleObject,
  plausibleValue,
  Random,
  RAW_JSON_VALUES,
  spoiledObject,
  type RouteEntry,
} from './helpers/fuzz.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20260512);
const HTTP_REQUESTS = 2400;
const MCP_CALLS_PER_TOOL = 12;
const CONCURRENCY = 6;
const BODY_LIMIT = 262_144;

type JsonSchema = Record<string, unknown>;
interface Operation {
  parameters?: { in: string; name: string; schema: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}
interface Failure {
  request: string;
  outcome: string;
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: limit }, lane));
}

const clip = (text: string, n = 300) => (text.length > n ? `${text.slice(0, n)}... (${text.length} chars)` : text);

/** The failures grouped by outcome, with up to three of the requests of each. */
function report(failures: Failure[]): string {
  const groups = new Map<string, string[]>();
  for (const f of failures) {
    const key = f.outcome.slice(0, 120);
    groups.set(key, [...(groups.get(key) ?? []), f.request]);
  }
  const shown = [...groups].map(([outcome, requests]) => `  ${requests.length} x ${outcome}\n${requests.slice(0, 3).map((r) => `    ${r}`).join('\n')}`);
  return `${failures.length} failure(s) with FUZZ_SEED=${SEED}:\n${shown.join('\n')}`;
}

const CONTENT_TYPES = ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream', 'application/json; charset=utf-16', 'application/jsonx', '*/*'];
const RAW_SEGMENTS = ['%ED%A0%80', '%zz', '%', '%00', '..', '%2e%2e', '%2F', 'a'.repeat(150), '%C0%AF', '%FF%FE'];
const BAD_AUTH = [undefined, 'Bearer', 'Bearer x', 'Bearer a.b.c', 'Basic YTpi', 'bearer  ', 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.'];

interface Fixtures {
  token: string;
  /** Values for path parameters and body fields, by name. */
  hints: Record<string, string>;
  ids: string[];
}

function pathOf(r: Random, route: RouteEntry, fx: Fixtures): string {
  const destructive = route.method === 'DELETE';
  return route.url.replace(/:(\w+)|\*/g, (_, name: string | undefined) => {
    if (!destructive && r.chance(0.3)) return name === 'uuid' ? fx.hints.uuid! : r.pick(fx.ids);
    return r.chance(0.2) ? r.pick(RAW_SEGMENTS) : encodeBytes(nastyString(r, 200)) || 'x';
  });
}

function queryOf(r: Random, operation: Operation | undefined): string {
  const declared = (operation?.parameters ?? []).filter((p) => p.in === 'query');
  // One parameter spoiled (sometimes two), the others valid or left out, so most requests get past validation of the rest.
  const spoiled = new Set(declared.length > 0 ? [r.pick(declared).name, ...(r.chance(0.2) ? [r.pick(declared).name] : [])] : []);
  const pairs: string[] = [];
  for (const param of declared) {
    if (spoiled.has(param.name)) {
      pairs.push(`${param.name}=${r.chance(0.1) ? r.pick(RAW_SEGMENTS) : encodeBytes(nastyString(r, 2000))}`);
      if (r.chance(0.2)) pairs.push(`${param.name}=${encodeBytes(nastyString(r, 100))}`);
    } else if (r.chance(0.3)) {
      pairs.push(`${param.name}=${encodeBytes(String(plausibleValue(param.schema, r, {})))}`);
    }
  }
  if (r.chance(0.2)) pairs.push(`${encodeBytes(nastyString(r, 50))}=${encodeBytes(nastyString(r, 50))}`);
  if (r.chance(0.03)) pairs.push(`q=${'A'.repeat(100_000)}`);
  return pairs.length > 0 ? `?${pairs.join('&')}` : '';
}

/** A JSON object text with one property's value replaced by a raw text JSON.stringify cannot write. */
function rawValueBody(body: Record<string, unknown>, r: Random): string {
  const names = Object.keys(body);
  const name = names.length > 0 ? r.pick(names) : 'x';
  const rest = Object.entries(body).filter(([key]) => key !== name).map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`);
  return `{${[...rest, `${JSON.stringify(name)}:${r.pick(RAW_JSON_VALUES)}`].join(',')}}`;
}

function bodyOf(r: Random, operation: Operation | undefined, fx: Fixtures): { payload: string; contentType: string | undefined; note: string } {
  const schema = operation?.requestBody?.content?.['application/json']?.schema;
  const json = 'application/json';
  switch (r.int(12)) {
    case 0:
    case 1:
    case 2:
    case 3:
      return { payload: JSON.stringify(spoiledObject(schema, r, fx.hints)), contentType: json, note: 'spoiled fields' };
    case 4:
      return { payload: JSON.stringify(nastyValue(r)), contentType: json, note: 'hostile JSON value' };
    case 5:
      return { payload: rawValueBody(plausibleObject(schema, r, fx.hints), r), contentType: json, note: 'raw JSON number/escape' };
    case 6: {
      const text = JSON.stringify(plausibleObject(schema, r, fx.hints));
      return { payload: r.chance(0.5) ? text.slice(0, r.int(text.length)) : `${text}}garbage`, contentType: json, note: 'invalid JSON' };
    }
    case 7:
      return { payload: deepNesting(10 + r.int(60_000), r.chance(0.5) ? 'array' : 'object'), contentType: json, note: 'deep nesting' };
    case 8:
    case 9:
      return { payload: r.chance(0.5) ? JSON.stringify(plausibleObject(schema, r, fx.hints)) : nastyString(r), contentType: r.chance(0.2) ? undefined : r.pick(CONTENT_TYPES), note: 'wrong content type' };
    case 10:
      return { payload: JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT) }), contentType: json, note: 'over the body limit' };
    default:
      return { payload: JSON.stringify(plausibleObject(schema, r, fx.hints)), contentType: json, note: 'plausible body' };
  }
}

function requestFor(r: Random, route: RouteEntry, operation: Operation | undefined, fx: Fixtures): InjectOptions & { note: string } {
  const headers: Record<string, string> = {};
  const auth = r.chance(0.9) ? `Bearer ${fx.token}` : r.pick(BAD_AUTH);
  if (auth) headers.authorization = auth;
  if (r.chance(0.1)) headers['x-request-id'] = encodeBytes(nastyString(r, 200));
  if (r.chance(0.1)) headers.accept = r.pick(['text/html', 'application/xml', '*/*;q=0', 'text/event-stream']);
  const url = `${pathOf(r, route, fx)}${queryOf(r, operation)}`;
  const method = route.method as InjectOptions['method'];
  if (!['POST', 'PUT', 'DELETE', 'PATCH'].includes(route.method) && !r.chance(0.05)) return { method, url, headers, note: 'no body' };
  const body = bodyOf(r, operation, fx);
  if (body.contentType) headers['content-type'] = body.contentType;
  return { method, url, headers, payload: body.payload, note: body.note };
}

/**
 * What is wrong with a reply, or undefined: no 5xx, always an X-Request-Id, and errors as
 * `{message}` (the web application's pages answer HTML error pages instead).
 */
function judge(method: string, url: string, status: number, headers: Record<string, unknown>, body: string): string | undefined {
  if (status >= 500) return `${status} ${clip(body, 200)}`;
  if (!headers['x-request-id']) return `${status} without X-Request-Id`;
  if (status >= 400 && isPagePath(url) && String(headers['content-type']).startsWith('text/html')) {
    return method === 'HEAD' || body.startsWith('<!doctype html>') ? undefined : `${status} page that is not a document: ${clip(body, 200)}`;
  }
  if (status >= 400 && method !== 'HEAD') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return `${status} with a body that is not JSON: ${clip(body, 200)}`;
    }
    // The MCP transport's own errors are JSON-RPC, as its specification says; the rest are the API's.
    const shape = parsed as { message?: unknown; error?: { message?: unknown } };
    const message = url.startsWith('/mcp') && shape?.error ? shape.error.message : shape?.message;
    if (typeof message !== 'string') return `${status} without a message: ${clip(body, 200)}`;
  }
  return undefined;
}

/**
 * Whether an MCP call failed inside the server: a JSON-RPC internal error, or an HTTP 5xx. A
 * JSON-RPC error of another code, or an HTTP 4xx (a body the JSON parser refuses), is an answer.
 */
function isInternal(error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.InternalError;
  if (error instanceof StreamableHTTPError) return (error.code ?? 500) >= 500;
  return true;
}

/** One raw HTTP/1.1 request with exactly the request line given (no client-side URL normalisation). */
function rawRequest(port: number, method: string, path: string, token: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

test(`fuzz: malformed requests to every route and MCP tool never get a 5xx (${STORE_KIND})`, async (t) => {
  t.diagnostic(`FUZZ_SEED=${SEED}`);
  const h = await startScripted(t, { env: { RAMPART_RATE_LIMITS: 'trial=1000000,pro=1000000', RAMPART_BODY_LIMIT: String(BODY_LIMIT) } });
  const { app } = h.ctx;
  const token = h.auth.authorization.slice('Bearer '.length);

  // Real records, so that some requests reach past "not found" into the services.
  h.scripts.rampart.next = { findings: [finding('redis-noauth', { name: 'Redis without authentication', threat: 'Critical', cvssBase: 9.8, port: 6379 })] };
  const created = await app.inject({
    method: 'POST',
    url: '/api/new-scan',
    headers: h.auth,
    payload: { scan_name: 'Fuzzed', scan_type: 'Rampart', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: '127.0.0.1' },
  });
  const uuid = created.json().uuid as string;
  await waitFor('the first run', async () => ((await app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: h.auth })).json().runs as { status: string }[]).find((run) => run.status === 'completed'));
  const vulnerability = String((await app.inject({ method: 'GET', url: '/api/vulnerabilities', headers: h.auth })).json().data[0].id);
  const target = String((await app.inject({ method: 'GET', url: '/api/targets', headers: h.auth })).json().data[0].id);
  const webhook = String((await app.inject({ method: 'POST', url: '/api/webhooks', headers: h.auth, payload: { url: 'https://127.0.0.1:9/hook', events: ['scan.completed'] } })).json().data.id);
  const hints = { uuid, registration_id: uuid, scan_target: '127.0.0.1', scan_time_zone: 'UTC', url: 'https://127.0.0.1:9/hook', code: '123456' };
  const fx: Fixtures = { token, hints, ids: [vulnerability, target, webhook] };

  const routes = parseRouteTree(app.printRoutes({ commonPrefix: false }));
  const openapi = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as { paths: Record<string, Record<string, Operation>> };
  const operationOf = (route: RouteEntry) => openapi.paths[route.url.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()];

  await t.test('the route list comes from the app and covers the API', () => {
    const urls = new Set(routes.map((route) => `${route.method} ${route.url}`));
    for (const expected of ['POST /api/new-scan', 'GET /api/scans/pdf/:uuid', 'PUT /api/webhooks/:id', 'POST /agent/auth/claim', 'POST /mcp']) assert.ok(urls.has(expected), expected);
    for (const path of Object.keys(openapi.paths)) assert.ok(routes.some((route) => route.url === path.replace(/\{(\w+)\}/g, ':$1')), path);
  });

  await t.test(`HTTP: ${HTTP_REQUESTS}+ malformed requests across every route`, async () => {
    const r = new Random(SEED);
    const perRoute = Math.ceil(HTTP_REQUESTS / routes.length);
    const requests = routes.flatMap((route) => Array.from({ length: perRoute }, () => requestFor(r, route, operationOf(route), fx)));
    assert.ok(requests.length >= 2000);
    const failures: Failure[] = [];
    await pool(requests, CONCURRENCY, async ({ note, ...request }) => {
      const headers = JSON.stringify(request.headers).replace(token, '<token>');
      const describe = () => `${request.method} ${clip(String(request.url))} [${note}] ${clip(headers)} ${clip(String(request.payload ?? ''))}`;
      try {
        const res = await app.inject(request);
        const problem = judge(String(request.method), String(request.url), res.statusCode, res.headers, res.body);
        if (problem) failures.push({ request: describe(), outcome: problem });
      } catch (error) {
        failures.push({ request: describe(), outcome: `inject threw ${(error as Error).message}` });
      }
    });
    assert.ok(failures.length === 0, report(failures));
  });

  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const port = Number(new URL(address).port);

  await t.test('raw HTTP: broken percent-encoding, over-long paths and URLs', async () => {
    const r = new Random(SEED + 1);
    const failures: Failure[] = [];
    const paths = [
      '/api/scans/%ED%A0%80', '/api/vulnerabilities/%', '/api/scans/%zz/runs', `/api/scans/${'a'.repeat(5000)}`, `/api/targets/${'9'.repeat(400)}`,
      `/api/vulnerabilities?search=${'x'.repeat(20_000)}`, `/${'a/'.repeat(9000)}`, '/api/../api/user', '/api/./user', '//api//user', '/api/user%00',
      ...Array.from({ length: 30 }, () => `/api/${r.pick(['scans', 'targets', 'vulnerabilities', 'webhooks'])}/${r.pick(RAW_SEGMENTS)}${r.chance(0.5) ? `?${r.pick(RAW_SEGMENTS)}=${r.pick(RAW_SEGMENTS)}` : ''}`),
    ];
    for (const path of paths) {
      const res = await rawRequest(port, r.pick(['GET', 'POST', 'DELETE']), path, token);
      const problem = judge('GET', path, res.status, res.headers, res.body);
      if (problem) failures.push({ request: clip(path), outcome: problem });
    }
    assert.ok(failures.length === 0, report(failures));
  });

  await t.test(`MCP: ${MCP_CALLS_PER_TOOL} malformed calls per tool, hostile params and resource URIs`, async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${address}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const client = new Client({ name: 'rampart-fuzz', version: '1.0.0' });
    await client.connect(transport);
    t.after(() => client.close());
    const { tools } = await client.listTools();
    const r = new Random(SEED + 2);
    const failures: Failure[] = [];
    const calls: { name: string; args: Record<string, unknown> }[] = [];
    for (const tool of tools) {
      const hints = tool.annotations?.destructiveHint ? { ...fx.hints, uuid: '00000000-0000-4000-8000-000000000000' } : { ...fx.hints, id: r.pick(fx.ids) };
      for (let i = 0; i < MCP_CALLS_PER_TOOL; i++) calls.push({ name: tool.name, args: spoiledObject(tool.inputSchema as JsonSchema, r, hints) });
    }
    await pool(calls, CONCURRENCY, async ({ name, args }) => {
      const request = `tools/call ${name} ${clip(JSON.stringify(args))}`;
      try {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
        if (/^HTTP 5\d\d|Server Error/m.test(text)) failures.push({ request, outcome: clip(text, 200) });
      } catch (error) {
        if (isInternal(error)) failures.push({ request, outcome: `threw ${String(error)}` });
      }
    });
    // The request itself malformed: tools/call params and resources/read URIs of every shape.
    for (let i = 0; i < 60; i++) {
      const params = r.chance(0.5) ? { name: r.chance(0.5) ? r.pick(tools).name : nastyValue(r), arguments: nastyValue(r) } : { uri: r.chance(0.5) ? nastyString(r, 500) : `${address}/api/scans/pdf/${encodeBytes(nastyString(r, 100))}?run_index=${r.pick(RAW_SEGMENTS)}` };
      const method = 'uri' in params ? 'resources/read' : 'tools/call';
      try {
        await client.request({ method, params } as never, ResultSchema);
      } catch (error) {
        if (isInternal(error)) failures.push({ request: `${method} ${clip(JSON.stringify(params))}`, outcome: `threw ${String(error)}` });
      }
    }
    assert.ok(failures.length === 0, report(failures));
  });
});
