import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SignJWT } from 'jose';
import { deleteApiKey } from '../src/accounts/api-keys.service.js';
import { loadConfig } from '../src/config.js';
import type { Db } from '../src/db/database.js';
import { buildTestApp, signUp, STORE_KIND, TEST_JWT_SECRET } from './helpers/app.js';

const CHALLENGE = 'Bearer resource_metadata="http://rampart.test/.well-known/oauth-protected-resource"';
const secret = new TextEncoder().encode(TEST_JWT_SECRET);

function assertUnauthenticated(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, message = 'Unauthenticated.') {
  assert.equal(res.statusCode, 401);
  assert.deepEqual(res.json(), { message });
  assert.equal(res.headers['www-authenticate'], CHALLENGE);
}

async function forgedToken(claims: { sub?: string; aud?: string; iss?: string; exp?: number; akid?: number; key?: Uint8Array }) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ akid: claims.akid ?? 1 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub ?? '1')
    .setIssuedAt(now - 10)
    .setExpirationTime(claims.exp ?? now + 600)
    .setJti('jti-1')
    .setIssuer(claims.iss ?? 'http://rampart.test')
    .setAudience(claims.aud ?? 'http://rampart.test')
    .sign(claims.key ?? secret);
}

test(`token exchange, user and refresh (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t);
  const user = await signUp(ctx, { email: 'Ann.Lee@Example.com', role: 'premium' });

  await t.test('POST /api/token returns a JWT with the spec fields', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: `/api/token?key=${user.key}` });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'token', 'token_type']);
    assert.equal(body.token_type, 'bearer');
    assert.equal(body.access_token, body.token);
    assert.equal(body.expires_in, 3600);
    const claims = JSON.parse(Buffer.from(body.token.split('.')[1], 'base64url').toString());
    for (const claim of ['sub', 'iat', 'exp', 'jti', 'iss', 'aud']) assert.ok(claim in claims, `claim ${claim}`);
    assert.equal(claims.sub, String(user.userId));
    assert.equal(claims.iss, 'http://rampart.test');
    assert.equal(claims.exp - claims.iat, 3600);
  });

  await t.test('GET /api/user returns the User resource', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/user', headers: user.auth });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { id: user.userId, name: 'Ann.Lee', email: 'Ann.Lee@Example.com', role: { name: 'premium' } });
  });

  await t.test('POST /api/refresh returns a new, working token', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/refresh', headers: user.auth });
    assert.equal(res.statusCode, 200);
    const { token, expires_in } = res.json();
    assert.equal(expires_in, 3600);
    assert.notEqual(token, user.token);
    const me = await ctx.app.inject({ method: 'GET', url: '/api/user', headers: { authorization: `Bearer ${token}` } });
    assert.equal(me.json().id, user.userId);
  });

  await t.test('the last-used time of the key is recorded', async () => {
    const row = await ctx.store.db.selectFrom('api_keys').select('last_used_at').where('id', '=', user.keyId).executeTakeFirstOrThrow();
    assert.ok(row.last_used_at instanceof Date);
  });
});

test(`401s carry the exact body and header (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t);
  const user = await signUp(ctx);
  const get = (headers: Record<string, string> = {}, url = '/api/user') => ctx.app.inject({ method: 'GET', url, headers });

  await t.test('missing token', async () => assertUnauthenticated(await get()));
  await t.test('malformed header', async () => {
    assertUnauthenticated(await get({ authorization: 'Bearer not-a-jwt' }));
    assertUnauthenticated(await get({ authorization: `Basic ${user.token}` }));
    assertUnauthenticated(await get({ authorization: user.token }));
  });
  await t.test('token in the query string or a cookie is not accepted', async () => {
    assertUnauthenticated(await get({}, `/api/user?access_token=${user.token}`));
    assertUnauthenticated(await get({ cookie: `token=${user.token}` }));
  });
  await t.test('expired token', async () => {
    const token = await forgedToken({ sub: String(user.userId), akid: user.keyId, exp: Math.floor(Date.now() / 1000) - 60 });
    assertUnauthenticated(await get({ authorization: `Bearer ${token}` }));
  });
  await t.test('wrong audience', async () => {
    const token = await forgedToken({ sub: String(user.userId), akid: user.keyId, aud: 'http://other.test' });
    assertUnauthenticated(await get({ authorization: `Bearer ${token}` }));
  });
  await t.test('wrong issuer', async () => {
    const token = await forgedToken({ sub: String(user.userId), akid: user.keyId, iss: 'http://other.test' });
    assertUnauthenticated(await get({ authorization: `Bearer ${token}` }));
  });
  await t.test('wrong signature', async () => {
    const token = await forgedToken({ sub: String(user.userId), akid: user.keyId, key: new TextEncoder().encode('x'.repeat(48)) });
    assertUnauthenticated(await get({ authorization: `Bearer ${token}` }));
  });
  await t.test('a valid token for an account that does not exist', async () => {
    const token = await forgedToken({ sub: '999999', akid: user.keyId });
    assertUnauthenticated(await get({ authorization: `Bearer ${token}` }));
  });
  await t.test('a forged token with a correct signature is accepted (control)', async () => {
    const token = await forgedToken({ sub: String(user.userId), akid: user.keyId });
    assert.equal((await get({ authorization: `Bearer ${token}` })).statusCode, 200);
  });
  await t.test('refresh without a token', async () => {
    assertUnauthenticated(await ctx.app.inject({ method: 'POST', url: '/api/refresh' }));
  });
  await t.test('invalid, missing and malformed API keys', async () => {
    for (const url of ['/api/token?key=rk_00000000_' + 'A'.repeat(43), '/api/token', '/api/token?key=', '/api/token?key=garbage']) {
      assertUnauthenticated(await ctx.app.inject({ method: 'POST', url }), 'Invalid API key.');
    }
  });
});

test(`a deleted key is refused at exchange and refresh (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t);
  const user = await signUp(ctx);
  await deleteApiKey(ctx.store.db, user.userId, user.key.slice(0, 11));

  assertUnauthenticated(await ctx.app.inject({ method: 'POST', url: `/api/token?key=${user.key}` }), 'Invalid API key.');
  assertUnauthenticated(await ctx.app.inject({ method: 'POST', url: '/api/refresh', headers: user.auth }));
  // The spec: tokens already issued remain valid until they expire.
  assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/user', headers: user.auth })).statusCode, 200);
});

test(`the generated signing key is kept in the store and shared (${STORE_KIND})`, async (t) => {
  const first = await buildTestApp(t, { env: { RAMPART_JWT_SECRET: '' } });
  const user = await signUp(first);
  const second = await buildTestApp(t, { env: { RAMPART_JWT_SECRET: '' }, store: first.store });
  const res = await second.app.inject({ method: 'GET', url: '/api/user', headers: user.auth });
  assert.equal(res.statusCode, 200);
  const forged = await forgedToken({ sub: String(user.userId), akid: user.keyId });
  assert.equal((await second.app.inject({ method: 'GET', url: '/api/user', headers: { authorization: `Bearer ${forged}` } })).statusCode, 401);
});

test(`RAMPART_TOKEN_TTL sets expires_in (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { env: { RAMPART_TOKEN_TTL: '120' } });
  const user = await signUp(ctx);
  const res = await ctx.app.inject({ method: 'POST', url: `/api/token?key=${user.key}` });
  assert.equal(res.json().expires_in, 120);
});

test(`RAMPART_JWT_PREVIOUS_SECRET verifies tokens signed before a rotation and signs nothing (${STORE_KIND})`, async (t) => {
  const OLD = 'old-signing-secret-old-signing-secret-0001';
  const NEW = 'new-signing-secret-new-signing-secret-0002';
  const before = await buildTestApp(t, { env: { RAMPART_JWT_SECRET: OLD } });
  const user = await signUp(before);
  const rotating = await buildTestApp(t, { env: { RAMPART_JWT_SECRET: NEW, RAMPART_JWT_PREVIOUS_SECRET: OLD }, store: before.store });
  const after = await buildTestApp(t, { env: { RAMPART_JWT_SECRET: NEW }, store: before.store });
  const me = (ctx: typeof before, token: string) => ctx.app.inject({ method: 'GET', url: '/api/user', headers: { authorization: `Bearer ${token}` } });

  assert.equal((await me(rotating, user.token)).statusCode, 200, 'a token of the previous key still works during the rotation');
  assertUnauthenticated(await me(after, user.token));
  const refreshed = await rotating.app.inject({ method: 'POST', url: '/api/refresh', headers: user.auth });
  assert.equal(refreshed.statusCode, 200);
  const exchanged = await rotating.app.inject({ method: 'POST', url: `/api/token?key=${user.key}` });
  for (const token of [refreshed.json().token as string, exchanged.json().token as string]) {
    assert.equal((await me(after, token)).statusCode, 200, 'new tokens are signed with the current key');
    assertUnauthenticated(await me(before, token));
  }
  const foreign = await forgedToken({ sub: String(user.userId), akid: user.keyId, key: new TextEncoder().encode('another-secret-another-secret-another-0003') });
  assertUnauthenticated(await me(rotating, foreign));
  assert.throws(() => loadConfig({ RAMPART_JWT_PREVIOUS_SECRET: 'too short' }), /RAMPART_JWT_PREVIOUS_SECRET/);
});

test(`a configured signing secret keeps the store free of signing keys (${STORE_KIND})`, async (t) => {
  const storedKeys = async (ctx: { store: { db: Db } }) =>
    (await ctx.store.db.selectFrom('settings').select('value').where('key', '=', 'jwt_signing_key').execute()).map((r) => r.value);
  const generated = await buildTestApp(t, { env: { RAMPART_JWT_SECRET: '' } });
  const user = await signUp(generated);
  const [first] = await storedKeys(generated);
  assert.ok(first && first.length >= 32, 'without RAMPART_JWT_SECRET a key is generated and stored');

  const configured = await buildTestApp(t, { store: generated.store });
  assert.deepEqual(await storedKeys(configured), [], 'with RAMPART_JWT_SECRET the store holds no signing key');
  await signUp(configured);
  assert.deepEqual(await storedKeys(configured), [], 'nor after tokens were issued');

  const again = await buildTestApp(t, { env: { RAMPART_JWT_SECRET: '' }, store: generated.store });
  const [second] = await storedKeys(again);
  assert.ok(second && second !== first, 'the removed key is never brought back');
  assertUnauthenticated(await again.app.inject({ method: 'GET', url: '/api/user', headers: user.auth }));
});
