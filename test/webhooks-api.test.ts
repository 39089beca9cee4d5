/**
 * Webhooks through the API, and deliveries end to end to a real HTTPS receiver on loopback (a
 * test CA trusted through RAMPART_WEBHOOK_CA_FILE; loopback allowed by this test's configuration
 * only), every signature checked with the public `standardwebhooks` package.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { buildTestApp, signUp } from './helpers/app.js';
import { hasOpenssl, TestPki } from './helpers/pki.js';
import { completedRun, createScan, finding, rerun, startScripted } from './helpers/scripted-engines.js';
import { listenOnLoopback, waitFor } from './helpers/servers.js';

interface Received {
  headers: Record<string, string>;
  body: string;
}

type Answer = number | [number, Record<string, string>];

/**
 * An HTTPS receiver answering each request with the next status of `statuses` (then 200); a
 * promise there holds that answer back until it settles. Its certificate is from `pki`'s CA.
 */
async function startReceiver(t: TestContext, pki: TestPki, statuses: (Answer | Promise<Answer>)[] = []) {
  const leaf = pki.issue({ cn: 'localhost', san: 'DNS:localhost,IP:127.0.0.1' });
  const received: Received[] = [];
  const server = https.createServer({ key: leaf.key, cert: leaf.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      const next = (await statuses.shift()) ?? 200;
      const [status, headers] = Array.isArray(next) ? next : [next, {}];
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(`answer ${status}`);
    });
  });
  await listenOnLoopback(t, server);
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

function setUp(t: TestContext, retryDelays = '0,0,0') {
  if (!hasOpenssl()) return undefined;
  const pki = new TestPki();
  t.after(() => pki.cleanup());
  const caFile = path.join(pki.dir, 'ca.pem');
  fs.writeFileSync(caFile, pki.ca.cert);
  return { pki, env: { RAMPART_WEBHOOK_CA_FILE: caFile, RAMPART_WEBHOOK_RETRY_DELAYS: retryDelays, RAMPART_WEBHOOK_TIMEOUT_MS: '5000' } };
}

test('webhook endpoints: 201, 401, 403, 404, 422 (including the 11th webhook and private addresses)', async (t) => {
  const ctx = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8', RAMPART_RATE_LIMITS: 'trial=100000' } });
  const owner = await signUp(ctx);
  const other = await signUp(ctx);
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = owner.auth) =>
    ctx.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

  const created = await call('POST', '/api/webhooks', { url: 'https://127.0.0.1:9/hook', events: ['scan.completed'], description: 'ops' });
  assert.equal(created.statusCode, 201, created.body);
  const hook = created.json().data;
  assert.equal(created.json().message, 'Webhook created successfully.');
  assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
  assert.deepEqual([hook.events, hook.description, hook.is_active, hook.service], [['scan.completed'], 'ops', true, 'generic']);
  assert.equal((await call('GET', '/api/webhooks')).json().data[0].secret, hook.secret, 'secrets are listed');

  // 401 everywhere without a token.
  for (const [method, url] of [['GET', '/api/webhooks'], ['POST', '/api/webhooks'], ['PUT', `/api/webhooks/${hook.id}`], ['DELETE', `/api/webhooks/${hook.id}`], ['POST', `/api/webhooks/${hook.id}/test`], ['GET', `/api/webhooks/${hook.id}/deliveries`]] as const) {
    assert.equal((await call(method, url, method === 'GET' || method === 'DELETE' ? undefined : {}, {})).statusCode, 401, `${method} ${url}`);
  }
  // 403 for another account's webhook, 404 for none.
  for (const [method, url, body] of [['PUT', `/api/webhooks/${hook.id}`, { is_active: false }], ['DELETE', `/api/webhooks/${hook.id}`, undefined], ['POST', `/api/webhooks/${hook.id}/test`, {}], ['GET', `/api/webhooks/${hook.id}/deliveries`, undefined]] as const) {
    assert.equal((await call(method, url, body, other.auth)).statusCode, 403, `${method} ${url} by another account`);
    assert.equal((await call(method, url.replace(String(hook.id), '999999'), body)).statusCode, 404, `${method} unknown`);
  }
  assert.equal((await call('GET', '/api/webhooks', undefined, other.auth)).json().data.length, 0, 'lists only its own');

  // 422s, each naming its field.
  const invalid = async (body: unknown, field: string) => {
    const res = await call('POST', '/api/webhooks', body);
    assert.equal(res.statusCode, 422, `${JSON.stringify(body)}: ${res.body}`);
    assert.ok(Object.keys(res.json().errors).some((key) => key === field || key.startsWith(`${field}.`)), `${field} in ${res.body}`);
  };
  await invalid({ url: 'http://127.0.0.1/hook', events: ['scan.completed'] }, 'url');
  await invalid({ url: 'not a url', events: ['scan.completed'] }, 'url');
  await invalid({ url: 'https://10.1.2.3/hook', events: ['scan.completed'] }, 'url');
  await invalid({ url: 'https://169.254.169.254/latest', events: ['scan.failed'] }, 'url');
  await invalid({ url: 'https://127.0.0.1/hook', events: [] }, 'events');
  await invalid({ url: 'https://127.0.0.1/hook', events: ['scan.started'] }, 'events');
  await invalid({ url: 'https://127.0.0.1/hook', events: ['scan.failed'], description: 'x'.repeat(256) }, 'description');
  assert.equal((await call('PUT', `/api/webhooks/${hook.id}`, { events: [] })).statusCode, 422);

  // Ten per account; the eleventh is a 422.
  for (let i = 2; i <= 10; i++) assert.equal((await call('POST', '/api/webhooks', { url: `https://127.0.0.1:9/hook${i}`, events: ['scan.failed'] })).statusCode, 201);
  const eleventh = await call('POST', '/api/webhooks', { url: 'https://127.0.0.1:9/hook11', events: ['scan.failed'] });
  assert.equal(eleventh.statusCode, 422);
  assert.match(eleventh.json().message, /at most 10 webhooks/);

  // Update, rotate, delete. An update shows the secret only when it made a new one.
  for (const body of [{ description: 'renamed' }, { description: 'renamed', rotate_secret: false }]) {
    const kept = await call('PUT', `/api/webhooks/${hook.id}`, body);
    assert.equal(kept.statusCode, 200);
    assert.equal(kept.json().data.description, 'renamed');
    assert.equal('secret' in kept.json().data, false, `${JSON.stringify(body)}: no secret`);
    assert.ok(!kept.body.includes(hook.secret));
  }
  const updated = (await call('PUT', `/api/webhooks/${hook.id}`, { description: null, is_active: false, rotate_secret: true })).json().data;
  assert.deepEqual([updated.description, updated.is_active, updated.url], [null, false, hook.url]);
  assert.match(updated.secret, /^whsec_/);
  assert.notEqual(updated.secret, hook.secret);
  const listed = (await call('GET', '/api/webhooks')).json().data.find((w: { id: number }) => w.id === hook.id);
  assert.equal(listed.secret, updated.secret, 'the list shows the new secret');
  const documented = (await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
  const ref: string = documented.paths['/api/webhooks/{id}'].put.responses['200'].content['application/json'].schema.properties.data.$ref;
  const webhookSchema = documented.components.schemas[ref.split('/').at(-1)!];
  assert.ok(webhookSchema.properties.secret, 'the secret is documented');
  assert.ok(!webhookSchema.required.includes('secret'), 'as optional');
  const deleted = await call('DELETE', `/api/webhooks/${hook.id}`);
  assert.equal(deleted.statusCode, 200);
  assert.equal((await call('GET', `/api/webhooks/${hook.id}/deliveries`)).statusCode, 404);
});

test('a finished run is delivered, signed, to a real HTTPS receiver; failing twice then answering gives one delivery of three attempts, one webhook-id', async (t) => {
  const setup = setUp(t);
  if (!setup) return t.skip('needs openssl (Debian package openssl)');
  const h = await startScripted(t, { env: setup.env });
  const receiver = await startReceiver(t, setup.pki, [500, [503, { 'retry-after': '0' }]]);
  const hook = (await h.ctx.app.inject({ method: 'POST', url: '/api/webhooks', headers: h.auth, payload: { url: receiver.url, events: ['scan.completed', 'scan.failed'] } })).json().data;

  h.scripts.rampart.next = { findings: [finding('rule-a', { threat: 'High', cvssBase: 7.5 }), finding('rule-b', { threat: 'Low', cvssBase: 2 })] };
  const uuid = await createScan(h, 'Rampart', { scan_name: 'Hooked scan' });
  await completedRun(h, uuid, 0);
  await waitFor('three attempts', async () => (receiver.received.length >= 3 ? true : undefined));

  const verifier = new Webhook(hook.secret);
  for (const r of receiver.received) verifier.verify(r.body, r.headers);
  assert.equal(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, 1, 'the same webhook-id on every attempt');
  const event = JSON.parse(receiver.received[2]!.body);
  assert.equal(event.type, 'scan.completed');
  assert.deepEqual(event.data.scan, { uuid, name: 'Hooked scan', type: 'Rampart', target: '127.0.0.1' });
  assert.deepEqual(event.data.run.counts, { critical: 0, high: 1, medium: 0, low: 1, informational: 0 });
  // Signed links: a chat service's reader opens them in a browser, without a bearer token.
  const pdfLink = new URL(event.data.run.report_urls.pdf);
  assert.equal(`${pdfLink.origin}${pdfLink.pathname}`, `http://rampart.test/api/reports/${uuid}/0/pdf`);
  const pdf = await h.ctx.app.inject({ method: 'GET', url: `${pdfLink.pathname}${pdfLink.search}` });
  assert.equal(pdf.statusCode, 200, pdf.body);
  assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');
  const tampered = await h.ctx.app.inject({ method: 'GET', url: `${pdfLink.pathname.replace('/0/', '/1/')}${pdfLink.search}` });
  assert.equal(tampered.statusCode, 403);

  const deliveries = await waitFor('the delivery succeeded', async () => {
    const data = (await h.ctx.app.inject({ method: 'GET', url: `/api/webhooks/${hook.id}/deliveries`, headers: h.auth })).json().data;
    return data[0]?.status === 'succeeded' ? data : undefined;
  });
  assert.equal(deliveries.length, 1, 'one record for the event, however many attempts');
  const [delivery] = deliveries;
  assert.deepEqual(
    [delivery.event, delivery.status, delivery.attempt, delivery.max_attempts, delivery.next_retry_at, delivery.response_code, delivery.response_body, delivery.error],
    ['scan.completed', 'succeeded', 3, 4, null, 200, 'answer 200', null],
  );
  assert.equal(delivery.payload.type, 'scan.completed', 'the body sent, whole');
  assert.equal(delivery.payload.data.scan.uuid, uuid);
  type Attempt = { attempt: number; status: string; response_code: number; response_body: string; error: string | null; started_at: string; duration_ms: number };
  assert.deepEqual(
    delivery.attempts.map((a: Attempt) => [a.attempt, a.status, a.response_code, a.response_body, a.error]),
    [[1, 'failed', 500, 'answer 500', null], [2, 'failed', 503, 'answer 503', null], [3, 'succeeded', 200, 'answer 200', null]],
  );
  const starts = delivery.attempts.map((a: Attempt) => Date.parse(a.started_at));
  assert.deepEqual(starts, [...starts].sort((a: number, b: number) => a - b), 'oldest attempt first');
  assert.ok(delivery.attempts.every((a: Attempt) => Number.isInteger(a.duration_ms) && a.duration_ms >= 0));
  const listed = (await h.ctx.app.inject({ method: 'GET', url: '/api/webhooks', headers: h.auth })).json().data[0];
  assert.equal(listed.last_status, 'succeeded (attempt 3 of 4: HTTP 200)');
  assert.ok(Date.parse(listed.last_delivery_at) >= starts[2]);

  // A failed run emits scan.failed.
  h.scripts.rampart.next = { findings: [], fail: true };
  await rerun(h, uuid, 1);
  await waitFor('scan.failed', async () => (receiver.received.length >= 4 ? true : undefined));
  const failed = JSON.parse(receiver.received[3]!.body);
  assert.equal(failed.type, 'scan.failed');
  // Whose fault: the scripted failure is a temporary network one, and the event says so.
  assert.equal(failed.data.run.error_kind, 'network-temporary');
  assert.match(failed.data.run.error, /^The target did not answer/);
  const both = await waitFor('the second delivery recorded', async () => {
    const data = (await h.ctx.app.inject({ method: 'GET', url: `/api/webhooks/${hook.id}/deliveries`, headers: h.auth })).json().data;
    return data[0]?.status === 'succeeded' && data.length === 2 ? data : undefined;
  });
  assert.deepEqual(both.map((d: { event: string; attempt: number }) => [d.event, d.attempt]), [['scan.failed', 1], ['scan.completed', 3]], 'newest first');
});

test('a delivery shows pending with its attempt in flight, then pending with next_retry_at until the retry', async (t) => {
  const setup = setUp(t, '3600');
  if (!setup) return t.skip('needs openssl (Debian package openssl)');
  const h = await startScripted(t, { env: setup.env });
  let release!: (answer: Answer) => void;
  const receiver = await startReceiver(t, setup.pki, [new Promise<Answer>((resolve) => (release = resolve))]);
  const hook = (await h.ctx.app.inject({ method: 'POST', url: '/api/webhooks', headers: h.auth, payload: { url: receiver.url, events: ['scan.completed'] } })).json().data;
  const deliveries = async () => (await h.ctx.app.inject({ method: 'GET', url: `/api/webhooks/${hook.id}/deliveries`, headers: h.auth })).json().data;
  const webhook = async () => (await h.ctx.app.inject({ method: 'GET', url: '/api/webhooks', headers: h.auth })).json().data[0];
  await h.ctx.app.inject({ method: 'POST', url: `/api/webhooks/${hook.id}/test`, headers: h.auth });

  // The receiver holds its answer: the first attempt is in flight.
  await waitFor('the first attempt at the receiver', async () => (receiver.received.length >= 1 ? true : undefined));
  const inFlight = await deliveries();
  assert.equal(inFlight.length, 1);
  assert.deepEqual(
    [inFlight[0].event, inFlight[0].status, inFlight[0].attempt, inFlight[0].max_attempts, inFlight[0].next_retry_at, inFlight[0].response_code, inFlight[0].error],
    ['ping', 'pending', 1, 2, null, null, null],
  );
  assert.deepEqual(
    inFlight[0].attempts.map((a: { attempt: number; status: string; duration_ms: number | null; response_code: number | null }) => [a.attempt, a.status, a.duration_ms, a.response_code]),
    [[1, 'in_flight', null, null]],
  );
  assert.equal((await webhook()).last_status, null, 'no attempt has ended yet');

  const answeredAt = Date.now();
  release(500);
  const [waiting] = await waitFor('the failed attempt recorded', async () => {
    const data = await deliveries();
    return data[0]?.attempts[0]?.status === 'failed' ? data : undefined;
  });
  assert.deepEqual([waiting.status, waiting.attempt, waiting.response_code, waiting.response_body], ['pending', 1, 500, 'answer 500']);
  const nextRetry = Date.parse(waiting.next_retry_at);
  assert.ok(nextRetry >= answeredAt + 3_600_000 && nextRetry <= Date.now() + 3_600_000, waiting.next_retry_at);
  const listed = await webhook();
  assert.equal(listed.last_status, 'pending (attempt 1 of 2 failed: HTTP 500)');
  assert.ok(listed.last_delivery_at);
});

test('a receiver that always fails ends failed after the last attempt, and last_status says why', async (t) => {
  const setup = setUp(t, '0,0');
  if (!setup) return t.skip('needs openssl (Debian package openssl)');
  const h = await startScripted(t, { env: setup.env });
  // A certificate from a CA the service does not trust: no attempt ever gets an HTTP answer.
  const stranger = new TestPki();
  t.after(() => stranger.cleanup());
  const receiver = await startReceiver(t, stranger);
  const hook = (await h.ctx.app.inject({ method: 'POST', url: '/api/webhooks', headers: h.auth, payload: { url: receiver.url, events: ['scan.completed'] } })).json().data;
  await h.ctx.app.inject({ method: 'POST', url: `/api/webhooks/${hook.id}/test`, headers: h.auth });

  const deliveries = await waitFor('the delivery given up', async () => {
    const data = (await h.ctx.app.inject({ method: 'GET', url: `/api/webhooks/${hook.id}/deliveries`, headers: h.auth })).json().data;
    return data[0]?.status === 'failed' ? data : undefined;
  });
  assert.equal(deliveries.length, 1);
  const [delivery] = deliveries;
  assert.deepEqual([delivery.attempt, delivery.max_attempts, delivery.next_retry_at, delivery.response_code], [3, 3, null, null]);
  assert.match(delivery.error, /^certificate not trusted: /);
  type Attempt = { attempt: number; status: string; response_code: number | null; error: string };
  assert.deepEqual(delivery.attempts.map((a: Attempt) => [a.attempt, a.status, a.response_code]), [[1, 'failed', null], [2, 'failed', null], [3, 'failed', null]]);
  for (const a of delivery.attempts as Attempt[]) assert.match(a.error, /^certificate not trusted: /);
  assert.equal(receiver.received.length, 0);
  const listed = (await h.ctx.app.inject({ method: 'GET', url: '/api/webhooks', headers: h.auth })).json().data[0];
  assert.match(listed.last_status, /^failed \(attempt 3 of 3 failed: certificate not trusted: .+\)$/);
});

test('test pings, secret rotation, switching off, and 410 Gone', async (t) => {
  const setup = setUp(t);
  if (!setup) return t.skip('needs openssl (Debian package openssl)');
  const h = await startScripted(t, { env: setup.env });
  const receiver = await startReceiver(t, setup.pki);
  const call = (method: 'POST' | 'PUT', url: string, payload: object) => h.ctx.app.inject({ method, url, headers: h.auth, payload });
  const hook = (await call('POST', '/api/webhooks', { url: receiver.url, events: ['scan.completed'] })).json().data;

  assert.equal((await call('POST', `/api/webhooks/${hook.id}/test`, {})).json().message, 'Test event dispatched.');
  await waitFor('the ping', async () => (receiver.received.length >= 1 ? true : undefined));
  const ping = receiver.received[0]!;
  new Webhook(hook.secret).verify(ping.body, ping.headers);
  assert.equal(JSON.parse(ping.body).type, 'ping');
  // The sample run's links are signed like real ones; the sample scan does not exist, so 404.
  const sample = new URL(JSON.parse(ping.body).data.run.report_urls.html);
  assert.equal(sample.pathname, '/api/reports/00000000-0000-0000-0000-000000000000/1/html');
  assert.equal((await h.ctx.app.inject({ method: 'GET', url: `${sample.pathname}${sample.search}` })).statusCode, 404);

  const rotated = (await call('PUT', `/api/webhooks/${hook.id}`, { rotate_secret: true })).json().data;
  await call('POST', `/api/webhooks/${hook.id}/test`, {});
  await waitFor('the second ping', async () => (receiver.received.length >= 2 ? true : undefined));
  const second = receiver.received[1]!;
  new Webhook(rotated.secret).verify(second.body, second.headers);
  assert.throws(() => new Webhook(hook.secret).verify(second.body, second.headers), 'the old secret no longer verifies');

  // Switched off: a finished run queues nothing for it.
  await call('PUT', `/api/webhooks/${hook.id}`, { is_active: false });
  h.scripts.rampart.next = { findings: [] };
  const uuid = await createScan(h, 'Rampart');
  await completedRun(h, uuid, 0);
  const queued = await h.ctx.store.db.selectFrom('webhook_outbox').select('event').where('webhook_id', '=', hook.id).execute();
  assert.deepEqual(queued.map((q) => q.event), ['ping', 'ping']);

  // 410 Gone switches the webhook off.
  const gone = await startReceiver(t, setup.pki, [410]);
  const doomed = (await call('POST', '/api/webhooks', { url: gone.url, events: ['scan.completed'] })).json().data;
  await call('POST', `/api/webhooks/${doomed.id}/test`, {});
  const off = await waitFor('the webhook switched off', async () => {
    const list = (await h.ctx.app.inject({ method: 'GET', url: '/api/webhooks', headers: h.auth })).json().data;
    const found = list.find((w: { id: number }) => w.id === doomed.id);
    return found && !found.is_active ? found : undefined;
  });
  assert.equal(off.last_status, 'failed (attempt 1 of 4 failed: HTTP 410)');
});
