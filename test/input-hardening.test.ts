/**
 * Hostile input gets a 4xx in the API's own format, never a 500: NUL characters, numbers and ids
 * out of range, huge target lists, URLs the router or the HTTP parser refuse; enum errors name the
 * valid values; MCP replies carry a request id and invalid params are -32602. (test/fuzz.test.ts
 * throws thousands of random requests at the same rules.)
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { buildTestApp, signUp, STORE_KIND } from './helpers/app.js';
import { createScan, completedRun, startScripted } from './helpers/scripted-engines.js';

const SCAN = { scan_name: 'Hardening', scan_type: 'Rampart', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: '127.0.0.1' };
const REPORT_FORMATS = ['pdf', 'csv', 'html', 'txt', 'xml'];

test(`NUL characters: 422 naming the field, in bodies, query strings and paths (${STORE_KIND})`, async (t) => {
  const h = await startScripted(t);
  const { app } = h.ctx;
  const uuid = await createScan(h, 'Rampart');
  const nul = (field: string) => `The ${field.replace(/_/g, ' ')} field must not contain NUL characters.`;
  const cases: { method: 'GET' | 'POST' | 'PUT'; url: string; payload?: unknown; field: string }[] = [
    { method: 'POST', url: '/api/new-scan', payload: { ...SCAN, scan_name: 'a\u0000b' }, field: 'scan_name' },
    { method: 'POST', url: '/api/new-scan', payload: { ...SCAN, scan_email: 'ops\u0000@example.com' }, field: 'scan_email' },
    { method: 'POST', url: '/api/new-scan', payload: { ...SCAN, scan_target: '127.0.0.1\u0000' }, field: 'scan_target' },
    { method: 'PUT', url: `/api/scans/${uuid}`, payload: { scan_name: '\u0000' }, field: 'scan_name' },
    { method: 'POST', url: '/api/webhooks', payload: { url: 'https://127.0.0.1:9/hook', events: ['scan.completed'], description: 'x\u0000' }, field: 'description' },
    { method: 'POST', url: '/api/webhooks', payload: { url: 'https://127.0.0.1:9/hook', events: ['scan.completed\u0000'] }, field: 'events.0' },
    { method: 'GET', url: '/api/vulnerabilities?search=a%00b', field: 'search' },
    { method: 'GET', url: '/api/vulnerabilities?target=%00', field: 'target' },
    { method: 'GET', url: '/api/vulnerabilities/export?search=%00', field: 'search' },
    { method: 'GET', url: '/api/targets?search=x%00', field: 'search' },
    { method: 'GET', url: '/api/scans/a%00b', field: 'uuid' },
    { method: 'GET', url: '/api/vulnerabilities/1%00', field: 'id' },
    { method: 'POST', url: '/agent/auth', payload: { email: 'a@example.com', name: '\u0000' }, field: 'name' },
  ];
  for (const { method, url, payload, field } of cases) {
    const res = await app.inject({ method, url, headers: h.auth, ...(payload ? { payload } : {}) });
    assert.equal(res.statusCode, 422, `${method} ${url}: ${res.body}`);
    assert.deepEqual(res.json().errors[field], [nul(field)], `${method} ${url}`);
  }
});

test(`out-of-range run_index and ids: 422 or 404 on every report format, the API and MCP (${STORE_KIND})`, async (t) => {
  const h = await startScripted(t);
  const { app } = h.ctx;
  const uuid = await createScan(h, 'Rampart');
  await completedRun(h, uuid, 0);
  for (const format of REPORT_FORMATS) {
    for (const runIndex of ['2147483648', 'Infinity', '-Infinity', '1e400', '-1', '99999999999999999999']) {
      const res = await app.inject({ method: 'GET', url: `/api/scans/${format}/${uuid}?run_index=${runIndex}`, headers: h.auth });
      assert.equal(res.statusCode, 422, `${format} run_index=${runIndex}: ${res.body}`);
      assert.deepEqual(Object.keys(res.json().errors), ['run_index']);
    }
  }
  const huge = '99999999999999999999';
  for (const url of [`/api/vulnerabilities/${huge}`, `/api/vulnerabilities/2147483648/accept`, `/api/targets/${huge}`, `/api/targets/2147483648/vulnerabilities`, `/api/webhooks/${huge}/deliveries`]) {
    const method = url.endsWith('accept') ? 'POST' : 'GET';
    const res = await app.inject({ method, url, headers: h.auth, ...(method === 'POST' ? { payload: {} } : {}) });
    assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
  }
  for (const url of [`/api/webhooks/${huge}`, '/api/webhooks/-1']) {
    const res = await app.inject({ method: 'PUT', url, headers: h.auth, payload: { is_active: false } });
    assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
  }

  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const client = new Client({ name: 'hardening', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${address}/mcp`), { requestInit: { headers: h.auth } }));
  t.after(() => client.close());
  for (const runIndex of [2147483648, '1e400', 'Infinity', -1]) {
    const result = (await client.callTool({ name: 'scans_report', arguments: { uuid, format: 'csv', run_index: runIndex } })) as CallToolResult;
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /HTTP 422: .*run_index/, String(runIndex));
  }
  const surrogate = (await client.callTool({ name: 'vulnerabilities_show', arguments: { id: ['\ud800', 1] } })) as CallToolResult;
  assert.match(JSON.stringify(surrogate.content), /HTTP 404/, 'an id no URL can carry is an unknown id');
});

test(`a 422 for 65,536 refused addresses lists 20 and counts the rest (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t);
  const user = await signUp(ctx, { role: 'pro' });
  const addresses = Array.from({ length: 65_536 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
  const res = await ctx.app.inject({ method: 'POST', url: '/api/new-scan', headers: user.auth, payload: { ...SCAN, scan_target: addresses.join(' ') } });
  assert.equal(res.statusCode, 422);
  assert.ok(res.rawPayload.length < 64 * 1024, `${res.rawPayload.length} bytes`);
  const messages = res.json().errors.scan_target as string[];
  assert.equal(messages.length, 21);
  assert.match(messages[0]!, /^The target 10\.0\.0\.0 is a private address; managed scans cannot reach it\./);
  assert.match(messages[19]!, /^The target 10\.0\.0\.19 /);
  assert.equal(messages[20], '... and 65,516 more refused targets.');
  assert.match(res.json().message, /\(and 20 more errors\)$/);

  // Once the list is full, host names are not looked up (each would cost a DNS round trip).
  const mixed = [...addresses.slice(0, 25), 'host.invalid'].join(',');
  const second = await ctx.app.inject({ method: 'POST', url: '/api/new-scan', headers: user.auth, payload: { ...SCAN, scan_target: mixed } });
  assert.equal(second.json().errors.scan_target.at(-1), '... and 5 more refused targets. 1 host name was not looked up.');
});

test(`a 422 lists at most 50 messages and counts them all (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t);
  const user = await signUp(ctx);
  const events = Array.from({ length: 50_000 }, (_, i) => `event-${i}`);
  const res = await ctx.app.inject({ method: 'POST', url: '/api/webhooks', headers: user.auth, payload: { url: 'https://example.com/hook', events } });
  assert.equal(res.statusCode, 422);
  assert.ok(res.rawPayload.length < 64 * 1024, `${res.rawPayload.length} bytes`);
  const body = res.json();
  assert.equal(Object.values(body.errors).flat().length, 50);
  assert.deepEqual(body.errors['events.0'], ['The selected events.0 is invalid. Valid: scan.completed, scan.failed.']);
  assert.match(body.message, /\(and 49999 more errors\)$/);
});

/** A raw request over a socket, so that the URL and headers go out exactly as written. */
function rawGet(address: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${address}${path}`, { headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test(`framework and parser errors: Laravel-style bodies with an X-Request-Id (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { env: { RAMPART_BODY_LIMIT: '2048' } });
  const user = await signUp(ctx);
  const { app } = ctx;
  const cases: { name: string; status: number; request: InjectOptions; message?: string }[] = [
    { name: 'path parameter beyond maxParamLength', status: 414, request: { method: 'GET', url: `/api/scans/${'a'.repeat(200)}`, headers: user.auth }, message: 'The request URL is too long.' },
    { name: 'broken percent-encoding', status: 400, request: { method: 'GET', url: '/api/scans/%ED%A0%80', headers: user.auth }, message: 'The request URL is malformed.' },
    { name: 'unknown route', status: 404, request: { method: 'GET', url: '/nowhere' } },
    { name: 'bad JSON', status: 400, request: { method: 'POST', url: '/api/webhooks', headers: { ...user.auth, 'content-type': 'application/json' }, payload: '{"url":' } },
    { name: 'body too large', status: 413, request: { method: 'POST', url: '/api/webhooks', headers: user.auth, payload: { description: 'x'.repeat(4000) } } },
    { name: 'unsupported media type', status: 415, request: { method: 'POST', url: '/api/webhooks', headers: { ...user.auth, 'content-type': 'application/xml' }, payload: '<a/>' } },
    { name: 'no token', status: 401, request: { method: 'GET', url: '/api/user' } },
  ];
  for (const { name, status, request, message } of cases) {
    const res = await app.inject(request);
    assert.equal(res.statusCode, status, `${name}: ${res.body}`);
    assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/, name);
    assert.match(String(res.headers['content-type']), /^application\/json/, name);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['message'], name);
    if (message) assert.equal(body.message, message, name);
  }

  // The 429 of agent registration, whatever its limit.
  let limited;
  for (let i = 0; i < 50 && limited?.statusCode !== 429; i++) {
    limited = await app.inject({ method: 'POST', url: '/agent/auth', payload: { email: 'agent-owner@example.com' } });
  }
  assert.equal(limited!.statusCode, 429);
  assert.deepEqual(limited!.json(), { message: 'Too Many Attempts.' });
  assert.ok(limited!.headers['x-request-id']);

  // Before any route: the HTTP parser refuses a URL, or headers, beyond its size limit.
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const longUrl = await rawGet(address, `/api/vulnerabilities?search=${'x'.repeat(20_000)}`);
  assert.equal(longUrl.status, 414);
  assert.deepEqual(JSON.parse(longUrl.body), { message: 'The request URL is too long.' });
  assert.match(String(longUrl.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  const bigHeaders = await rawGet(address, '/api/user', { 'x-padding': 'x'.repeat(20_000) });
  assert.equal(bigHeaders.status, 431);
  assert.deepEqual(JSON.parse(bigHeaders.body), { message: 'The request headers are too large.' });
  assert.ok(bigHeaders.headers['x-request-id']);
});

test(`enum errors name the valid values, on every enum of every route (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t);
  const user = await signUp(ctx, { role: 'pro' });
  const res = await ctx.app.inject({ method: 'POST', url: '/api/new-scan', headers: user.auth, payload: { ...SCAN, scan_type: 'Nessus' } });
  assert.deepEqual(res.json().errors.scan_type, ['The selected scan type is invalid. Valid: Rampart, OpenVas, ZAP, Nuclei.']);

  type Schema = { enum?: unknown[]; items?: Schema; properties?: Record<string, Schema> };
  type Operation = { parameters?: { in: string; name: string; schema: Schema }[]; requestBody?: { content: Record<string, { schema: Schema }> } };
  const openapi = (await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as { paths: Record<string, Record<string, Operation>> };
  let checked = 0;
  for (const [path, operations] of Object.entries(openapi.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const url = path.replace(/\{\w+\}/g, '1');
      const valid = (values: unknown[]) => `Valid: ${values.filter((v) => v !== null).join(', ')}.`;
      for (const param of operation.parameters ?? []) {
        if (param.in !== 'query' || !param.schema.enum) continue;
        const reply = await ctx.app.inject({ method: method.toUpperCase() as 'GET', url: `${url}?${param.name}=not-a-value`, headers: user.auth });
        assert.equal(reply.statusCode, 422, `${method} ${path} ${param.name}`);
        assert.ok(reply.json().errors[param.name][0].endsWith(valid(param.schema.enum)), `${method} ${path} ${param.name}: ${reply.body}`);
        checked++;
      }
      const body = operation.requestBody?.content['application/json']?.schema;
      for (const [name, property] of Object.entries(body?.properties ?? {})) {
        const values = property.enum ?? property.items?.enum;
        if (!values) continue;
        const payload = { [name]: property.enum ? 'not-a-value' : ['not-a-value'] };
        const reply = await ctx.app.inject({ method: method.toUpperCase() as 'POST', url, headers: user.auth, payload });
        const field = property.enum ? name : `${name}.0`;
        assert.ok(reply.json().errors?.[field]?.[0]?.endsWith(valid(values)), `${method} ${path} ${field}: ${reply.body}`);
        checked++;
      }
    }
  }
  assert.ok(checked >= 15, `${checked} enums checked`);
});

test(`MCP: replies carry X-Request-Id; invalid tools/call params are -32602 (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t);
  const user = await signUp(ctx, { role: 'pro' });
  const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${address}/mcp`, { method: 'POST', headers: { ...user.auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
  const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  assert.equal(init.status, 200);
  assert.match(init.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  await init.text();
  const session = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };

  const call = async (params: unknown) => {
    const res = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params }, session);
    assert.ok(res.headers.get('x-request-id'), 'every MCP reply has a request id');
    const text = await res.text();
    return JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text) as { error?: { code: number; message: string }; result?: CallToolResult };
  };
  for (const params of [{ name: 'user_show', arguments: 'text' }, { name: 7 }, { arguments: {} }, { name: 'scans_show', arguments: [1, 2] }]) {
    const reply = await call(params);
    assert.equal(reply.error?.code, -32602, JSON.stringify(params));
    assert.match(reply.error!.message, /Invalid/);
  }
  assert.equal((await call({ name: 'no_such_tool', arguments: {} })).error?.code, -32602);
  // Arguments that break the tool's input schema are a tool execution error the model can read (MCP 2025-11-25, SEP-1303).
  const invalid = await call({ name: 'vulnerabilities_list', arguments: { severity: 'Severe' } });
  assert.equal(invalid.result?.isError, true);
  assert.match(JSON.stringify(invalid.result?.content), /HTTP 422: The selected severity is invalid\. Valid: Critical/);
  const read = await post({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 42 } }, session);
  assert.match(await read.text(), /"code":-32602/);
});
