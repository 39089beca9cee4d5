import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, signUp, STORE_KIND } from './helpers/app.js';

function assertTooManyAttempts(res: LightMyRequestResponse, limit: number): void {
  assert.equal(res.statusCode, 429);
  assert.deepEqual(res.json(), { message: 'Too Many Attempts.' });
  assert.ok(Number(res.headers['retry-after']) > 0, 'Retry-After');
  assert.equal(res.headers['x-ratelimit-limit'], String(limit));
  assert.equal(res.headers['x-ratelimit-remaining'], '0');
  assert.ok(Number(res.headers['x-ratelimit-reset']) > 0, 'X-RateLimit-Reset');
  assert.ok(res.headers['x-request-id'], 'X-Request-Id');
}

test(`failed authentications count per client address at the trial rate (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { env: { RAMPART_RATE_LIMITS: 'trial=3,basic=5' } });
  const account = await signUp(ctx, { role: 'basic' });
  const garbage = { authorization: 'Bearer aaaa.bbbb.cccc' };
  const attacker = '203.0.113.7';
  const get = (url: string, headers: Record<string, string>, remoteAddress = attacker) =>
    ctx.app.inject({ method: 'GET', url, headers, remoteAddress });

  await t.test('an invalid bearer token: 401 until the address has used its budget, then 429', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await get('/api/user', garbage);
      assert.equal(res.statusCode, 401);
      assert.equal(res.headers['x-ratelimit-remaining'], String(2 - i));
    }
    assertTooManyAttempts(await get('/api/user', garbage), 3);
    // The address's budget is one, whichever way it fails: no header, or the MCP endpoint.
    assertTooManyAttempts(await get('/api/scans', {}), 3);
    assertTooManyAttempts(await ctx.app.inject({ method: 'POST', url: '/mcp', headers: garbage, remoteAddress: attacker, payload: {} }), 3);
  });

  await t.test('a valid account calling from the same address keeps its own budget', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await get('/api/user', account.auth);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-ratelimit-limit'], '5');
    }
    assertTooManyAttempts(await get('/api/user', account.auth), 5);
  });

  await t.test('another address is not limited by the first', async () => {
    assert.equal((await get('/api/user', garbage, '198.51.100.9')).statusCode, 401);
  });
});

test(`token exchanges with invalid keys are limited per client address (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { env: { RAMPART_RATE_LIMITS: 'trial=3' } });
  const exchange = (key: string, remoteAddress: string) => ctx.app.inject({ method: 'POST', url: `/api/token?key=${key}`, remoteAddress });
  for (let i = 0; i < 3; i++) assert.equal((await exchange(`rk_0000000${i}_guess`, '203.0.113.8')).statusCode, 401);
  assertTooManyAttempts(await exchange('rk_00000003_guess', '203.0.113.8'), 3);
  assert.equal((await exchange('rk_00000004_guess', '198.51.100.10')).statusCode, 401);
});

test(`an IPv6 client counts by its /64 network (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { env: { RAMPART_RATE_LIMITS: 'trial=3' } });
  const get = (remoteAddress: string) => ctx.app.inject({ method: 'GET', url: '/api/user', remoteAddress });
  // One host is usually handed a whole /64: new addresses in it are not new clients.
  for (const address of ['2001:db8:0:7::1', '2001:db8:0:7::2', '2001:db8:0:7:ffff:1:2:3']) assert.equal((await get(address)).statusCode, 401);
  assertTooManyAttempts(await get('2001:db8:0:7:abcd::9'), 3);
  assert.equal((await get('2001:db8:0:8::1')).statusCode, 401, 'the next /64 is another client');
});
