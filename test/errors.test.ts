import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { test } from 'node:test';
import { buildTestApp, signUp, STORE_KIND } from './helpers/app.js';

test(`error bodies are Laravel-style JSON (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { env: { RAMPART_BODY_LIMIT: '2048' } });

  await t.test('unknown route: JSON 404', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/nope?x=1' });
    assert.equal(res.statusCode, 404);
    assert.match(res.headers['content-type'] as string, /application\/json/);
    assert.deepEqual(res.json(), { message: 'The route GET /api/nope could not be found.' });
  });

  await t.test('422 lists every field error and counts the rest', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/agent/auth/claim', payload: { registration_id: 'not-a-uuid', claim_token: 'x'.repeat(43) } });
    assert.equal(res.statusCode, 422);
    const body = res.json();
    assert.deepEqual(body.errors, {
      registration_id: ['The registration id field must be a valid UUID.'],
      code: ['The code field is required.'],
    });
    assert.equal(body.message, 'The registration id field must be a valid UUID. (and 1 more error)');
  });

  await t.test('422 for a wrong type and a bad format', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/agent/auth', payload: { email: 'nobody', name: 5 } });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(res.json().errors.email, ['The email field must be a valid email address.']);
  });

  await t.test('422 for a body that is not an object', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/agent/auth', payload: '[1,2]', headers: { 'content-type': 'application/json' } });
    assert.equal(res.statusCode, 422);
    assert.equal(res.json().message, 'The request body must be a JSON object.');
  });

  await t.test('malformed JSON: 400', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/agent/auth', payload: '{"email": ', headers: { 'content-type': 'application/json' } });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { message: 'The request body is not valid JSON.' });
  });

  await t.test('empty JSON body: 400', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/agent/auth', payload: '', headers: { 'content-type': 'application/json' } });
    assert.equal(res.statusCode, 400);
    assert.match(res.json().message, /empty/);
  });

  await t.test('oversized body: 413', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/agent/auth', payload: { email: 'a@b.co', name: 'x'.repeat(4000) } });
    assert.equal(res.statusCode, 413);
    assert.deepEqual(res.json(), { message: 'The request body is larger than the limit of 2048 bytes.' });
  });

  await t.test('unsupported content type: 415', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/agent/auth', payload: '<email>a@b.co</email>', headers: { 'content-type': 'application/xml' } });
    assert.equal(res.statusCode, 415);
    assert.ok(res.json().message);
  });

  await t.test('every response carries a request id, and a sane caller id is kept', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/auth.md', headers: { 'x-request-id': 'abc-123-def-456' } });
    assert.equal(res.headers['x-request-id'], 'abc-123-def-456');
    const other = await ctx.app.inject({ method: 'GET', url: '/auth.md', headers: { 'x-request-id': 'bad id with spaces' } });
    assert.match(other.headers['x-request-id'] as string, /^[0-9a-f-]{36}$/);
  });
});

test(`rate limits per role: 429 with headers (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { env: { RAMPART_RATE_LIMITS: 'trial=3,basic=5' } });
  const trial = await signUp(ctx, { role: 'trial' });
  const basic = await signUp(ctx, { role: 'basic' });
  const get = (auth: Record<string, string>) => ctx.app.inject({ method: 'GET', url: '/api/user', headers: auth });

  for (let i = 0; i < 3; i++) {
    const res = await get(trial.auth);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-ratelimit-limit'], '3');
    assert.equal(res.headers['x-ratelimit-remaining'], String(2 - i));
  }
  const limited = await get(trial.auth);
  assert.equal(limited.statusCode, 429);
  assert.deepEqual(limited.json(), { message: 'Too Many Attempts.' });
  assert.equal(limited.headers['x-ratelimit-limit'], '3');
  assert.equal(limited.headers['x-ratelimit-remaining'], '0');
  assert.ok(Number(limited.headers['retry-after']) > 0, 'Retry-After');
  assert.ok(Number(limited.headers['x-ratelimit-reset']) > 0, 'X-RateLimit-Reset');

  // Another account (and plan) has its own budget.
  for (let i = 0; i < 5; i++) assert.equal((await get(basic.auth)).statusCode, 200);
  const basicLimited = await get(basic.auth);
  assert.equal(basicLimited.statusCode, 429);
  assert.equal(basicLimited.headers['x-ratelimit-limit'], '5');
});

async function redisReachable(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(6379, '127.0.0.1');
    socket.setTimeout(1000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

test(`rate limits are shared by API nodes through Redis (${STORE_KIND})`, async (t) => {
  if (!(await redisReachable())) {
    t.skip('needs a Redis server on 127.0.0.1:6379 (Debian package redis-server)');
    return;
  }
  const env = { RAMPART_RATE_LIMITS: 'trial=4', RAMPART_REDIS_URL: 'redis://127.0.0.1:6379', RAMPART_REDIS_PREFIX: `test-${randomBytes(6).toString('hex')}:` };
  const nodeA = await buildTestApp(t, { env });
  const nodeB = await buildTestApp(t, { env, store: nodeA.store });
  const user = await signUp(nodeA);
  const statuses = [];
  for (const node of [nodeA, nodeB, nodeA, nodeB, nodeA]) {
    statuses.push((await node.app.inject({ method: 'GET', url: '/api/user', headers: user.auth })).statusCode);
  }
  assert.deepEqual(statuses, [200, 200, 200, 200, 429]);
});
