/**
 * The web application's frame: HTML error pages beside the API's JSON ones, the security headers
 * (a CSP without inline code), CSRF refusal of a state-changing request, the static assets, and the
 * 404 page in a real browser (axe-core, no console error).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, signUp } from './helpers/app.js';
import { createUser, setUserDisabled } from '../src/accounts/users.service.js';
import { resumeSession, startSession } from '../src/accounts/sessions.service.js';
import { checkEmailToken, issueEmailToken } from '../src/accounts/email-tokens.service.js';
import { pruneAccountRecords } from '../src/accounts/housekeeping.service.js';
import { claimRun } from '../src/scans/runs.service.js';
import { checkPage, closeBrowser, newPage, requireChromium, signInAs, startWebServer } from './helpers/browser.js';

after(closeBrowser);

test('an unknown page answers an HTML 404 to a browser and JSON to an API client', async (t) => {
  const { app } = await buildTestApp(t);
  const page = await app.inject({ method: 'GET', url: '/no/such/page', headers: { accept: 'text/html' } });
  assert.equal(page.statusCode, 404);
  assert.match(page.headers['content-type'] as string, /^text\/html/);
  assert.match(page.body, /Page not found/);
  const api = await app.inject({ method: 'GET', url: '/api/no-such', headers: { accept: 'text/html' } });
  assert.equal(api.statusCode, 404);
  assert.match(api.headers['content-type'] as string, /^application\/json/);
});

test('assets are served with the security headers, and a form post without a CSRF token is refused', async (t) => {
  const { app } = await buildTestApp(t);
  const css = await app.inject({ method: 'GET', url: '/assets/app.css' });
  assert.equal(css.statusCode, 200);
  assert.match(css.headers['content-type'] as string, /text\/css/);
  assert.match(css.headers['content-security-policy'] as string, /script-src 'self'/);
  assert.doesNotMatch(css.headers['content-security-policy'] as string, /unsafe-inline/);
  const js = await app.inject({ method: 'GET', url: '/assets/app.js' });
  assert.equal(js.statusCode, 200);
  assert.match(js.headers['content-type'] as string, /javascript/);

  const refused = await app.inject({ method: 'POST', url: '/sign-out', payload: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' } });
  assert.equal(refused.statusCode, 403);
  assert.match(refused.body, /expired or was sent from another site/);
});

test('the 404 page in Chromium: accessible, no console error, signed in or not', async (t) => {
  if (!requireChromium(t)) return;
  const server = await startWebServer(t);
  const tp = await newPage(t, server);
  const response = await tp.page.goto('/no/such/page');
  assert.equal(response?.status(), 404);
  await checkPage(tp, 'not-found');

  await signInAs(server, tp);
  const signedOut = await tp.page.goto('/no/such/page');
  assert.equal(signedOut?.status(), 404);
});

test('pages stay out of the API reference, and every page carries the security headers, the 404 page too', async (t) => {
  const { app } = await buildTestApp(t);
  const openapi = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as { paths: Record<string, unknown> };
  const pagePaths = Object.keys(openapi.paths).filter((path) => !/^\/(api|mcp|agent|\.well-known|auth\.md)/.test(path));
  assert.deepEqual(pagePaths, []);
  assert.ok(openapi.paths['/api/new-scan'], 'the API itself is still documented');
  for (const url of ['/sign-in', '/no/such/page']) {
    const res = await app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
    assert.match(res.headers['content-security-policy'] as string, /^default-src 'self'; script-src 'self'/, url);
    assert.equal(res.headers['x-frame-options'], 'DENY', url);
    assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
  }
});

test('over HTTPS the cookies are cleared with the attributes they were set with (a browser ignores the deletion otherwise)', async (t) => {
  const { app, store } = await buildTestApp(t, { env: { RAMPART_BASE_URL: 'https://rampart.test' } });
  const user = await createUser(store.db, { email: 'https-cookies@example.com', password: 'a long enough password here', emailVerified: true });
  const session = await startSession(store.db, user, { idleMinutes: 60, maxHours: 2 }, {});
  const page = await app.inject({ method: 'GET', url: '/settings', cookies: { '__Host-rampart_session': session.token } });
  assert.equal(page.statusCode, 200);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
  assert.ok(csrf);
  const out = await app.inject({
    method: 'POST',
    url: '/sign-out',
    cookies: { '__Host-rampart_session': session.token },
    payload: `_csrf=${encodeURIComponent(csrf)}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(out.statusCode, 303);
  const cleared = ([] as string[]).concat(out.headers['set-cookie'] ?? []).find((c) => c.startsWith('__Host-rampart_session='));
  assert.ok(cleared, 'the session cookie is cleared');
  assert.match(cleared, /Secure/);
  assert.match(cleared, /Path=\//);
  assert.match(cleared, /Expires=Thu, 01 Jan 1970/);
});

test('pages for visitors count by address even with a session; a signed-in person browsing has a bucket of their own', async (t) => {
  const { app, store } = await buildTestApp(t, { env: { RAMPART_RATE_LIMITS: 'trial=3' } });
  const user = await createUser(store.db, { email: 'buckets@example.com', password: 'a long enough password here', emailVerified: true });
  const session = await startSession(store.db, user, { idleMinutes: 60, maxHours: 2 }, {});
  const cookies = { rampart_session: session.token };
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await app.inject({ method: 'GET', url: '/forgot-password', cookies })).statusCode);
  assert.deepEqual(statuses, [200, 200, 200, 429]);
  // The same person's own pages: the plan's rate is 3 a minute, pages get at least 300.
  for (let i = 0; i < 6; i++) assert.equal((await app.inject({ method: 'GET', url: '/settings', cookies })).statusCode, 200);
});

test("a disabled account's queued runs are not claimed until it is enabled again", async (t) => {
  const ctx = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.1/32' } });
  const owner = await signUp(ctx, { role: 'pro' });
  const admin = await createUser(ctx.store.db, { email: 'admin-claims@example.com', password: 'a long enough password here', role: 'admin', emailVerified: true });
  const created = await ctx.app.inject({
    method: 'POST',
    url: '/api/new-scan',
    headers: owner.auth,
    payload: { scan_name: 'Held', scan_type: 'Rampart', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: '127.0.0.1' },
  });
  assert.equal(created.statusCode, 200, created.body);
  await setUserDisabled(ctx.store.db, admin, owner.userId, true);
  assert.equal(await claimRun(ctx.store.db, 'test-worker', 60, ['Rampart']), undefined);
  await setUserDisabled(ctx.store.db, admin, owner.userId, false);
  const claimed = await claimRun(ctx.store.db, 'test-worker', 60, ['Rampart']);
  assert.ok(claimed, 'claimed once the account is enabled');
});

test('housekeeping removes ended sessions, old links and expired OIDC logins, and keeps what is live', async (t) => {
  const { store } = await buildTestApp(t);
  const user = await createUser(store.db, { email: 'housekeeping@example.com', password: 'a long enough password here', emailVerified: true });
  const long = { idleMinutes: 60, maxHours: 2 };
  const live = await startSession(store.db, user, long, {});
  await startSession(store.db, user, long, {}, new Date(Date.now() - 3 * 3_600_000)); // ended an hour ago
  const fresh = await issueEmailToken(store.db, user.id, 'reset-password', user.email);
  await issueEmailToken(store.db, user.id, 'reset-password', user.email, new Date(Date.now() - 3 * 86_400_000)); // expired two days ago
  const pruned = await pruneAccountRecords(store.db);
  assert.equal(pruned.sessions, 1);
  assert.equal(pruned.emailTokens, 1);
  assert.ok(await resumeSession(store.db, live.token, long), 'the live session stays');
  assert.equal((await checkEmailToken(store.db, fresh, 'reset-password')).user_id, user.id, 'the fresh link stays');
});
