/**
 * The app's real log output (every level, through the pino stream it writes to) never holds a
 * token, an API key, a webhook secret or a password, wherever the client put them: query strings
 * under any name, headers, the path; Fastify's own request lines and the error log included.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { SignJWT } from 'jose';
import { buildTestApp, signUp, STORE_KIND } from './helpers/app.js';

/** A token the app refuses (another key): its refusal is logged with the reason. */
async function foreignToken(): Promise<string> {
  return new SignJWT({ akid: 1 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject('1')
    .setIssuedAt()
    .setExpirationTime('10m')
    .setIssuer('http://rampart.test')
    .setAudience('http://rampart.test')
    .sign(randomBytes(32));
}

test(`no token, key, secret or password reaches the log (${STORE_KIND})`, async (t) => {
  const lines: string[] = [];
  const ctx = await buildTestApp(t, { logStream: { write: (line: string) => void lines.push(line) } });
  const user = await signUp(ctx);
  const forged = await foreignToken();
  const whsec = `whsec_${randomBytes(24).toString('base64')}`;
  const plain = ['hunter2-password', 'opaque-token-1', 'opaque-access-2', 'opaque-api-token-3', 'opaque-sig-4', 'opaque-signature-5', 'opaque-client-secret-6', '987123'];
  const get = (url: string, headers: Record<string, string> = {}) => ctx.app.inject({ method: 'GET', url, headers });

  assert.equal((await get(`/api/user?api_token=${user.token}`)).statusCode, 401, 'the query string is no bearer method');
  assert.equal((await get(`/api/user?access_token=${encodeURIComponent(user.token)}&other=${user.token}`)).statusCode, 401);
  const me = await get('/api/user', { ...user.auth, cookie: `session=${user.token}`, 'x-api-key': user.key, 'x-forwarded-token': user.token });
  assert.equal(me.statusCode, 200);
  assert.equal((await get(`/api/vulnerabilities?per_page=5&q=${user.token}`, user.auth)).statusCode, 200);
  assert.equal((await get(`/api/webhooks?note=${encodeURIComponent(whsec)}&raw=${whsec}&k=${user.key}`, user.auth)).statusCode, 200);
  const named = `password=${plain[0]}&token=${plain[1]}&access_token=${plain[2]}&api_token=${plain[3]}&sig=${plain[4]}&signature=${plain[5]}&client_secret=${plain[6]}&code=${plain[7]}&expires=1999999999`;
  assert.equal((await get(`/api/scans?${named}`, user.auth)).statusCode, 200);
  assert.equal((await get(`/no/such/${user.token}`)).statusCode, 404);
  assert.equal((await get('/api/user', { authorization: `Bearer ${forged}` })).statusCode, 401);
  assert.equal((await ctx.app.inject({ method: 'POST', url: '/api/refresh', headers: user.auth })).statusCode, 200);

  const log = lines.join('');
  const entries = lines.map((line) => JSON.parse(line) as { msg?: string; req?: { url: string }; context?: { reason?: string } });
  // The lines the assertions below rely on were written, redacted, not left out.
  const urls = entries.filter((e) => e.msg === 'incoming request').map((e) => e.req!.url);
  assert.ok(urls.includes('/api/user?api_token=[REDACTED]'), urls.join('\n'));
  assert.ok(urls.includes('/api/vulnerabilities?per_page=5&q=[REDACTED]'), 'other parameters stay readable');
  assert.ok(urls.includes('/no/such/[REDACTED]'), 'a token in the path');
  assert.ok(urls.includes('/api/webhooks?note=[REDACTED]&raw=[REDACTED]&k=[REDACTED]'), 'secret-shaped values under any name');
  assert.ok(urls.some((u) => u.startsWith('/api/scans?password=[REDACTED]&token=[REDACTED]') && u.endsWith('&code=[REDACTED]&expires=[REDACTED]')));
  assert.ok(entries.some((e) => e.msg === 'request completed'));
  assert.ok(entries.some((e) => e.context?.reason === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED'), 'the refused token is logged by its reason');

  for (const [name, secret] of [['token', user.token], ['forged token', forged], ['API key', user.key], ['key secret', user.key.slice(12)], ['webhook secret', whsec], ['JWT signature', user.token.split('.')[2]!], ...plain.map((p) => [p, p] as const)] as const) {
    assert.ok(!log.includes(secret), `the ${name} is not in the log`);
  }
  assert.ok(!log.includes(encodeURIComponent(whsec)), 'nor the encoded webhook secret');
});
