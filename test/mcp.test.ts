/**
 * The MCP endpoint through the official SDK's client over real HTTP: initialize, list tools, call
 * every tool (against real runs of the worker with scripted engines), session reuse and deletion,
 * the HTTP-level session and auth errors, and one account never reaching another's data.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpSessions } from '../src/mcp/sessions.js';
import { buildTestApp, signUp, STORE_KIND } from './helpers/app.js';
import { finding, startScripted, type Harness } from './helpers/scripted-engines.js';
import { waitFor } from './helpers/servers.js';

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const ACCEPT = 'application/json, text/event-stream';

async function listen(t: TestContext, h: Harness): Promise<string> {
  const address = await h.ctx.app.listen({ port: 0, host: '127.0.0.1' });
  return `${address}/mcp`;
}

async function connect(t: TestContext, endpoint: string, token: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'rampart-test', version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  return { client, transport };
}

type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Structured> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.ok(!result.isError, `${name}: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Structured;
}

async function failure(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.equal(result.isError, true, `${name} should fail: ${JSON.stringify(result.structuredContent)}`);
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

const tokenOf = (h: Harness) => h.auth.authorization.slice('Bearer '.length);

test(`MCP: every tool through the SDK client (${STORE_KIND})`, async (t) => {
  const h = await startScripted(t);
  const endpoint = await listen(t, h);
  const { client, transport } = await connect(t, endpoint, tokenOf(h));

  await t.test('initialize: server info, a session id, protocol 2025-11-25, instructions', () => {
    assert.equal(client.getServerVersion()?.name, 'rampart');
    assert.match(transport.sessionId ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(transport.protocolVersion, '2025-11-25');
    assert.match(client.getInstructions() ?? '', /scans_create/);
  });

  const { tools } = await client.listTools();
  await t.test('tools/list: one tool per operation, schemas and annotations', () => {
    const names = tools.map((tool) => tool.name).sort();
    assert.deepEqual(names, [
      'scans_create', 'scans_delete', 'scans_list', 'scans_report', 'scans_rerun', 'scans_runs', 'scans_schedule', 'scans_show', 'scans_update',
      'targets_delete', 'targets_list', 'targets_show', 'targets_vulnerabilities', 'user_show',
      'vulnerabilities_accept', 'vulnerabilities_export', 'vulnerabilities_false_positive', 'vulnerabilities_list', 'vulnerabilities_show', 'vulnerabilities_undo',
      'webhooks_create', 'webhooks_delete', 'webhooks_deliveries', 'webhooks_list', 'webhooks_test', 'webhooks_update',
    ]);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.ok(tool.description && tool.description.length > 10, `${tool.name} has a description`);
      assert.equal(typeof tool.annotations?.readOnlyHint, 'boolean', `${tool.name} says whether it only reads`);
      assert.ok(tool.outputSchema, `${tool.name} has an output schema`);
    }
    for (const name of ['scans_delete', 'targets_delete', 'webhooks_delete']) assert.equal(byName.get(name)!.annotations!.destructiveHint, true, name);
    assert.equal(byName.get('vulnerabilities_list')!.annotations!.readOnlyHint, true);
    assert.equal(byName.get('scans_create')!.annotations!.readOnlyHint, false);
    // The list's filters are the route's own query schema.
    const filters = byName.get('vulnerabilities_list')!.inputSchema.properties as Record<string, { enum?: string[]; maximum?: number }>;
    assert.deepEqual(filters.severity!.enum, ['Critical', 'High', 'Medium', 'Low', 'Informational']);
    assert.equal(filters.per_page!.maximum, 100);
    for (const key of ['status', 'lifecycle', 'target', 'search', 'sort', 'direction', 'page']) assert.ok(filters[key], key);
    assert.deepEqual(byName.get('scans_show')!.inputSchema.required, ['uuid']);
  });

  h.scripts.rampart.next = { findings: [finding('redis-noauth', { name: 'Redis without authentication', threat: 'Critical', cvssBase: 9.8, port: 6379 }), finding('tls-old')] };
  const created = await ok(client, 'scans_create', {
    scan_name: 'Agent scan', scan_type: 'Rampart', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: '127.0.0.1',
  });
  const uuid = created.uuid as string;
  const runOf = (index: number) =>
    waitFor(`run ${index}`, async () => {
      const runs = (await ok(client, 'scans_runs', { uuid })).runs as { run_index: number; status: string }[];
      return runs.find((r) => r.run_index === index && r.status === 'completed');
    });
  await runOf(0);

  await t.test('scans: list, show, update, schedule, rerun, runs', async () => {
    assert.match(created.message, /Scan created successfully/);
    assert.deepEqual((await ok(client, 'scans_list')).data.map((s: Structured) => s.uuid), [uuid]);
    assert.equal((await ok(client, 'scans_show', { uuid })).data.scan_name, 'Agent scan');
    assert.equal((await ok(client, 'scans_update', { uuid, scan_name: 'Renamed by agent' })).message, 'Scan updated successfully.');
    assert.equal((await ok(client, 'scans_show', { uuid })).data.scan_name, 'Renamed by agent');
    const schedule = await ok(client, 'scans_schedule', { uuid });
    assert.equal(schedule.scan_frequency, 'One-time');
    assert.deepEqual(schedule.upcoming, [], 'a One-time scan that ran has nothing upcoming');
    const rerun = await ok(client, 'scans_rerun', { uuid });
    assert.equal(rerun.run_index, 1);
    const run1 = await runOf(1);
    assert.equal(run1.status, 'completed');
  });

  await t.test('user_show: the account of the token', async () => {
    const user = await ok(client, 'user_show');
    assert.deepEqual(user.role, { name: 'pro' });
  });

  const vulnerabilities = (await ok(client, 'vulnerabilities_list', { per_page: 100 })).data as Structured[];
  await t.test('vulnerabilities: filters, show, triage, export', async () => {
    assert.equal(vulnerabilities.length, 2);
    const critical = await ok(client, 'vulnerabilities_list', { severity: 'Critical', search: 'redis' });
    assert.equal(critical.meta.total, 1);
    const id = critical.data[0].id as number;
    assert.equal((await ok(client, 'vulnerabilities_show', { id: String(id) })).data.name, 'Redis without authentication');
    assert.equal((await ok(client, 'vulnerabilities_accept', { id: String(id) })).message, 'Vulnerability marked as accepted.');
    assert.equal((await ok(client, 'vulnerabilities_list', { status: 'Accepted' })).meta.total, 1);
    assert.equal((await ok(client, 'vulnerabilities_false_positive', { id: String(id) })).message, 'Vulnerability marked as false positive.');
    assert.equal((await ok(client, 'vulnerabilities_undo', { id: String(id) })).message, 'Vulnerability status reset to unresolved.');
    assert.equal((await ok(client, 'vulnerabilities_show', { id: String(id) })).data.status, 'Unresolved');
    const exported = (await client.callTool({ name: 'vulnerabilities_export', arguments: { severity: 'Critical' } })) as CallToolResult;
    const csv = exported.content.find((c) => c.type === 'text' && c.text.startsWith('id,'));
    assert.ok(csv && csv.type === 'text' && csv.text.includes('Redis without authentication') && !csv.text.includes('Finding tls-old'));
    assert.equal((exported.structuredContent as Structured).truncated, false);
    assert.match((exported.structuredContent as Structured).filename, /^rampart-vulnerabilities-\d{4}-\d{2}-\d{2}\.csv$/);
    const whole = await client.readResource({ uri: (exported.structuredContent as Structured).uri });
    assert.equal((whole.contents[0] as { text: string }).text, csv.text);
  });

  await t.test('API errors come back as tool errors with the API messages', async () => {
    assert.match(await failure(client, 'vulnerabilities_list', { severity: 'Severe' }), /HTTP 422: The selected severity is invalid\. Valid: Critical, High, Medium, Low, Informational\.\nseverity: The selected severity is invalid\./);
    assert.match(await failure(client, 'scans_show', { uuid: '00000000-0000-4000-8000-000000000000' }), /^HTTP 404: /);
    assert.match(await failure(client, 'scans_show', {}), /HTTP 422: The uuid field is required\./);
    assert.match(await failure(client, 'webhooks_create', { url: 'http://127.0.0.1/hook', events: ['scan.completed'] }), /HTTP 422: .*\nurl: /);
  });

  await t.test('targets: list, show, their vulnerabilities', async () => {
    const targets = (await ok(client, 'targets_list')).data as Structured[];
    assert.equal(targets.length, 1);
    const id = String(targets[0]!.id);
    assert.equal((await ok(client, 'targets_show', { id })).data.target, '127.0.0.1');
    const own = await ok(client, 'targets_vulnerabilities', { id, sort: 'name', direction: 'asc' });
    assert.deepEqual(own.data.map((v: Structured) => v.name), ['Finding tls-old', 'Redis without authentication']);
  });

  await t.test('webhooks: create, list, update, test, deliveries, delete; the secret only where the contract shows it', async () => {
    const made = await ok(client, 'webhooks_create', { url: 'https://127.0.0.1:9/hook', events: ['scan.completed'], description: 'agent' });
    const id = String(made.data.id);
    assert.match(made.data.secret, /^whsec_/);
    const listed = await ok(client, 'webhooks_list');
    assert.equal(listed.data.length, 1);
    assert.equal(listed.data[0].secret, made.data.secret);
    /** The whole tool result, text and structured content, as one string. */
    const shown = async (name: string, args: Record<string, unknown>) => JSON.stringify(await client.callTool({ name, arguments: args }));
    const plain = await shown('webhooks_update', { id, description: 'renamed' });
    assert.match(plain, /renamed/);
    assert.ok(!plain.includes(made.data.secret) && !plain.includes('whsec_'), 'an update that keeps the secret does not show it');
    const updated = await ok(client, 'webhooks_update', { id, is_active: false, rotate_secret: true });
    assert.equal(updated.data.is_active, false);
    assert.match(updated.data.secret, /^whsec_/);
    assert.notEqual(updated.data.secret, made.data.secret);
    assert.equal((await ok(client, 'webhooks_test', { id })).message, 'Test event dispatched.');
    // Nothing listens on port 9: the ping's first attempt fails and its retry waits. The record,
    // attempts inside, passes the tool's output schema (the SDK client checks it).
    const [delivery] = await waitFor('the first attempt recorded', async () => {
      const data = (await ok(client, 'webhooks_deliveries', { id })).data;
      return data[0]?.attempts[0]?.status === 'failed' ? data : undefined;
    });
    assert.deepEqual([delivery.event, delivery.status, delivery.attempt], ['ping', 'pending', 1]);
    assert.ok(delivery.next_retry_at);
    assert.match(delivery.attempts[0].error, /could not connect/);
    for (const [name, args] of [['webhooks_test', { id }], ['webhooks_deliveries', { id }], ['user_show', {}], ['scans_list', {}]] as const) {
      assert.ok(!(await shown(name, args)).includes('whsec_'), `${name} shows no webhook secret`);
    }
    const { tools: listedTools } = await client.listTools();
    const output = listedTools.find((tool) => tool.name === 'webhooks_update')!.outputSchema as unknown as { properties: { data: { required: string[] } } };
    assert.ok(!output.properties.data.required.includes('secret'), 'the output schema says the secret may be absent');
    assert.equal((await ok(client, 'webhooks_delete', { id })).message, 'Webhook deleted successfully.');
  });

  await t.test('scans_report: text inline with a link; PDF as a resource link read through resources/read', async () => {
    const csv = (await client.callTool({ name: 'scans_report', arguments: { uuid, format: 'csv', run_index: 0 } })) as CallToolResult;
    assert.ok(!csv.isError, JSON.stringify(csv.content));
    const report = csv.structuredContent as Structured;
    assert.equal(report.run_index, 0);
    assert.match(report.filename, /-run-0\.csv$/);
    assert.ok(csv.content.some((c) => c.type === 'text' && c.text.includes('Redis without authentication')));
    assert.ok(csv.content.some((c) => c.type === 'resource_link' && c.uri === report.uri));
    const pdf = (await client.callTool({ name: 'scans_report', arguments: { uuid, format: 'pdf' } })) as CallToolResult;
    const link = pdf.content.find((c) => c.type === 'resource_link');
    assert.ok(link && link.type === 'resource_link' && link.mimeType === 'application/pdf');
    assert.equal((pdf.structuredContent as Structured).run_index, 1, 'the latest completed run');
    const read = await client.readResource({ uri: link.uri });
    const blob = (read.contents[0] as { blob: string }).blob;
    assert.equal(Buffer.from(blob, 'base64').subarray(0, 5).toString(), '%PDF-');
    assert.match(await failure(client, 'scans_report', { uuid, format: 'pdf', run_index: 7 }), /HTTP 404: This scan has no run 7\./);
    await assert.rejects(client.readResource({ uri: 'http://elsewhere.example/api/scans/pdf/x' }), /Not a Rampart resource/);
    const templates = await client.listResourceTemplates();
    assert.equal(templates.resourceTemplates.length, 2);
  });

  await t.test('targets_delete and scans_delete', async () => {
    const id = String(((await ok(client, 'targets_list')).data as Structured[])[0]!.id);
    assert.match((await ok(client, 'targets_delete', { id })).message, /deleted along with 2 associated vulnerabilities/);
    assert.equal((await ok(client, 'scans_delete', { uuid })).message, 'Scan deleted successfully.');
    assert.deepEqual((await ok(client, 'scans_list')).data, []);
  });
});

test(`MCP: sessions, HTTP errors and ownership (${STORE_KIND})`, async (t) => {
  const h = await startScripted(t, { env: { RAMPART_MCP_SESSIONS_PER_ACCOUNT: '2' } });
  const endpoint = await listen(t, h);
  const owner = await connect(t, endpoint, tokenOf(h));
  const other = await signUp(h.ctx, { role: 'pro' });
  const post = (headers: Record<string, string>, body: unknown = INIT) =>
    fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers }, body: JSON.stringify(body) });
  const listTools = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

  await t.test('401 with the API body and WWW-Authenticate, on every method', async () => {
    for (const method of ['POST', 'GET', 'DELETE']) {
      const res = await fetch(endpoint, { method, headers: { accept: ACCEPT, 'content-type': 'application/json' }, ...(method === 'POST' ? { body: JSON.stringify(INIT) } : {}) });
      assert.equal(res.status, 401, method);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer resource_metadata="http:\/\/rampart\.test\/\.well-known\/oauth-protected-resource"/);
      assert.equal(((await res.json()) as { message: string }).message, 'Unauthenticated.');
    }
  });

  await t.test('400 without a session id, 404 for an unknown one, 403 for another account', async () => {
    const missing = await post(h.auth, listTools);
    assert.equal(missing.status, 400);
    assert.match(JSON.stringify(await missing.json()), /Mcp-Session-Id header is required/);
    const unknown = await post({ ...h.auth, 'mcp-session-id': '5f1e1c9e-0000-4000-8000-000000000000' }, listTools);
    assert.equal(unknown.status, 404);
    const stolen = await post({ authorization: `Bearer ${other.token}`, 'mcp-session-id': owner.transport.sessionId! }, listTools);
    assert.equal(stolen.status, 403);
    assert.equal((await fetch(endpoint, { method: 'GET', headers: { ...h.auth, accept: 'text/event-stream' } })).status, 400);
  });

  await t.test('Accept, protocol version and Origin are checked', async () => {
    const noAccept = await fetch(endpoint, { method: 'POST', headers: { ...h.auth, 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(INIT) });
    assert.equal(noAccept.status, 406);
    const oldVersion = await post({ ...h.auth, 'mcp-session-id': owner.transport.sessionId!, 'mcp-protocol-version': '2025-03-26' }, listTools);
    assert.equal(oldVersion.status, 400);
    assert.match(JSON.stringify(await oldVersion.json()), /supported versions: 2025-11-25, 2025-06-18/);
    const foreign = await post({ ...h.auth, origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    // Asked for a version it does not speak, the server offers its latest.
    const negotiated = await post(h.auth, { ...INIT, params: { ...INIT.params, protocolVersion: '2024-11-05' } });
    assert.equal(negotiated.status, 200);
    assert.match(await negotiated.text(), /"protocolVersion":"2025-11-25"/);
  });

  await t.test('2025-06-18 is spoken too', async () => {
    const res = await post(h.auth, { ...INIT, params: { ...INIT.params, protocolVersion: '2025-06-18' } });
    assert.match(await res.text(), /"protocolVersion":"2025-06-18"/);
    assert.match(res.headers.get('mcp-session-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  await t.test('a session is reused across requests and ends with DELETE', async () => {
    const session = await connect(t, endpoint, tokenOf(h));
    const id = session.transport.sessionId!;
    await session.client.listTools();
    await session.client.callTool({ name: 'user_show', arguments: {} });
    assert.equal(session.transport.sessionId, id, 'the same session throughout');
    await session.transport.terminateSession();
    const after = await post({ ...h.auth, 'mcp-session-id': id }, listTools);
    assert.equal(after.status, 404);
  });

  await t.test('an account holds at most RAMPART_MCP_SESSIONS_PER_ACCOUNT sessions: the least recently used ends', async () => {
    const a = await connect(t, endpoint, tokenOf(h));
    await a.client.listTools();
    const b = await connect(t, endpoint, tokenOf(h));
    await b.client.listTools();
    await a.client.listTools();
    await connect(t, endpoint, tokenOf(h));
    assert.equal((await post({ ...h.auth, 'mcp-session-id': b.transport.sessionId! }, listTools)).status, 404, 'b was the least recently used');
    assert.equal((await a.client.listTools()).tools.length > 0, true);
    // The other account's sessions are counted apart.
    const theirs = await connect(t, endpoint, other.token);
    assert.ok((await theirs.client.listTools()).tools.length > 0);
  });

  await t.test('ownership: no tool reaches another account data', async () => {
    h.scripts.rampart.next = { findings: [finding('secret-finding', { name: 'Owner only' })] };
    const mine = await connect(t, endpoint, tokenOf(h));
    const uuid = (await ok(mine.client, 'scans_create', {
      scan_name: 'Private', scan_type: 'Rampart', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: '127.0.0.1',
    })).uuid as string;
    await waitFor('the run', async () => ((await ok(mine.client, 'scans_runs', { uuid })).runs as { status: string }[]).find((r) => r.status === 'completed'));
    const vulnerability = String((await ok(mine.client, 'vulnerabilities_list')).data[0].id);
    const target = String((await ok(mine.client, 'targets_list')).data[0].id);
    const webhook = String((await ok(mine.client, 'webhooks_create', { url: 'https://127.0.0.1:9/own', events: ['scan.failed'] })).data.id);

    const { client } = await connect(t, endpoint, other.token);
    for (const name of ['scans_list', 'webhooks_list']) assert.deepEqual((await ok(client, name)).data, [], name);
    for (const name of ['vulnerabilities_list', 'targets_list']) assert.equal((await ok(client, name)).meta.total, 0, name);
    const notFound: [string, Record<string, unknown>][] = [
      ['scans_show', { uuid }], ['scans_update', { uuid, scan_name: 'x' }], ['scans_delete', { uuid }], ['scans_rerun', { uuid }], ['scans_runs', { uuid }],
      ['scans_schedule', { uuid }], ['scans_report', { uuid, format: 'csv' }],
      ['vulnerabilities_show', { id: vulnerability }], ['vulnerabilities_accept', { id: vulnerability }], ['vulnerabilities_false_positive', { id: vulnerability }],
      ['vulnerabilities_undo', { id: vulnerability }], ['targets_show', { id: target }], ['targets_delete', { id: target }], ['targets_vulnerabilities', { id: target }],
    ];
    for (const [name, args] of notFound) assert.match(await failure(client, name, args), /^HTTP 404: /, name);
    for (const [name, args] of [['webhooks_update', { id: webhook, is_active: false }], ['webhooks_delete', { id: webhook }], ['webhooks_test', { id: webhook }], ['webhooks_deliveries', { id: webhook }]] as const) {
      assert.match(await failure(client, name, args), /^HTTP 403: /, name);
    }
    const exported = (await client.callTool({ name: 'vulnerabilities_export', arguments: {} })) as CallToolResult;
    assert.ok(!JSON.stringify(exported.content).includes('Owner only'));
    const report = `http://rampart.test/api/scans/csv/${uuid}?run_index=0`;
    await assert.rejects(client.readResource({ uri: report }), /404/);
    assert.ok((await mine.client.readResource({ uri: report })).contents.length === 1, 'the owner reads it');
    assert.equal((await ok(mine.client, 'scans_show', { uuid })).data.scan_name, 'Private', 'nothing changed');
  });
});

test('MCP: the rate limit counts each MCP request once, not the API call it makes', async (t) => {
  const h = await startScripted(t, { env: { RAMPART_RATE_LIMITS: 'pro=5' } });
  const endpoint = await listen(t, h);
  const post = (headers: Record<string, string>, body: unknown) =>
    fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT, ...h.auth, ...headers }, body: JSON.stringify(body) });
  const init = await post({}, INIT);
  await init.text();
  const session = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
  const call = (id: number) => post(session, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'user_show', arguments: {} } });
  // initialize was the first request of the minute; four tool calls make five.
  for (let i = 0; i < 4; i++) {
    const res = await call(10 + i);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /\\"role\\":\{\\"name\\":\\"pro\\"\}/);
  }
  const limited = await call(20);
  assert.equal(limited.status, 429);
  assert.equal(((await limited.json()) as { message: string }).message, 'Too Many Attempts.');
});

test('MCP sessions end when idle, on a sweep', async () => {
  let now = 0;
  const closed: string[] = [];
  const sessions = new McpSessions({ idleMs: 1000, perAccount: 5, now: () => now });
  const fake = (id: string) => ({ id, userId: 1, transport: {} as never, server: { close: async () => void closed.push(id) } as never });
  await sessions.add(fake('a'));
  now = 600;
  await sessions.add(fake('b'));
  now = 1200;
  assert.ok(sessions.use('b'));
  await sessions.sweep();
  assert.deepEqual(closed, ['a']);
  assert.equal(sessions.use('a'), undefined);
  now = 2300;
  await sessions.sweep();
  assert.deepEqual(closed, ['a', 'b']);
  assert.equal(sessions.count(), 0);
  await sessions.closeAll();
});

test(`MCP: scans_create refuses a scan type this deployment has no engine for (${STORE_KIND})`, async (t) => {
  // The deployment's own registry: no nuclei templates.
  const ctx = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8' } });
  const user = await signUp(ctx, { role: 'basic' });
  const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const { client } = await connect(t, `${address}/mcp`, user.token);
  const text = await failure(client, 'scans_create', {
    scan_name: 'web', scan_type: 'Nuclei', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: 'https://127.0.0.1/',
  });
  assert.match(text, /Nuclei scans need nuclei templates/);
});
