/**
 * Settings (profile, password, email, API keys) and the admins' users page, in Chromium and with
 * app.inject: a key created in the browser works against the API and stops working once revoked;
 * a password change ends the other sessions; an email change happens only through the mailed
 * link; admins change plans and disable accounts, whose sessions, tokens, keys and agent
 * registrations are then refused; bad paths (CSRF, another account's key, non-admins).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { buildTestApp, signUp, STORE_KIND, type TestApp } from './helpers/app.js';
import { checkPage, closeBrowser, latestMail, linkIn, newPage, requireChromium, signInAs, startWebServer, type WebServer } from './helpers/browser.js';
import { createUser } from '../src/accounts/users.service.js';
import { createApiKey } from '../src/accounts/api-keys.service.js';
import { startSession } from '../src/accounts/sessions.service.js';
import { issueEmailToken } from '../src/accounts/email-tokens.service.js';
import type { MailMessage, Mailer } from '../src/mail/mailer.js';

after(closeBrowser);

const PASSWORD = 'a long enough password for tests';
const FORM = { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' };

/** A signed-in account for app.inject: its cookie header and the CSRF token its pages carry. */
async function injectSession(ctx: TestApp, role = 'trial') {
  const user = await createUser(ctx.store.db, { email: `inject-${Math.random().toString(16).slice(2, 10)}@example.com`, password: PASSWORD, role, emailVerified: true });
  const session = await startSession(ctx.store.db, user, { idleMinutes: 60, maxHours: 2 }, {});
  const cookie = `rampart_session=${session.token}`;
  const page = await ctx.app.inject({ method: 'GET', url: '/settings', headers: { cookie } });
  assert.equal(page.statusCode, 200, page.body);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
  assert.ok(csrf, 'the settings page carries a CSRF token');
  return { user, cookie, csrf };
}

/** POST /api/token?key= against the listening server. */
function exchange(server: WebServer, key: string) {
  return fetch(`${server.url}/api/token?key=${encodeURIComponent(key)}`, { method: 'POST' });
}

function apiUser(server: WebServer, token: string) {
  return fetch(`${server.url}/api/user`, { headers: { authorization: `Bearer ${token}` } });
}

/** Accepts the next confirm() dialog (data-confirm forms). */
function acceptNextDialog(page: Page): void {
  page.once('dialog', (dialog) => void dialog.accept());
}

test(`settings pages refuse what they must (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t);

  await t.test('signed out: settings and the users page send to sign-in', async () => {
    for (const url of ['/settings', '/settings/api-keys', '/admin/users']) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      assert.equal(res.statusCode, 303, url);
      assert.equal(res.headers.location, `/sign-in?next=${encodeURIComponent(url)}`);
    }
  });

  await t.test('a settings form without its CSRF token is refused with 403, and nothing changes', async () => {
    const { user, cookie } = await injectSession(ctx);
    for (const [url, payload] of [
      ['/settings/password', `current_password=${encodeURIComponent(PASSWORD)}&password=another+long+enough+passphrase&password_confirmation=another+long+enough+passphrase`],
      ['/settings/name', 'name=Mallory'],
      ['/settings/api-keys', 'name=stolen'],
    ] as const) {
      const res = await ctx.app.inject({ method: 'POST', url, payload, headers: { ...FORM, cookie } });
      assert.equal(res.statusCode, 403, url);
      assert.match(res.body, /expired or was sent from another site/);
    }
    const row = await ctx.store.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(row.name, user.name);
    assert.equal(row.password_hash, user.password_hash);
    assert.equal((await ctx.store.db.selectFrom('api_keys').select('id').where('user_id', '=', user.id).execute()).length, 0);
  });

  await t.test("revoking another account's key is a 404 page and the key still works", async () => {
    const { cookie, csrf } = await injectSession(ctx);
    const other = await signUp(ctx);
    for (const id of [String(other.keyId), '999999', 'abc']) {
      const res = await ctx.app.inject({ method: 'POST', url: `/settings/api-keys/${id}/revoke`, payload: `_csrf=${encodeURIComponent(csrf)}`, headers: { ...FORM, cookie } });
      assert.equal(res.statusCode, 404, id);
      assert.match(res.body, /Page not found/);
    }
    assert.equal((await ctx.app.inject({ method: 'POST', url: `/api/token?key=${other.key}` })).statusCode, 200);
  });

  await t.test('a bad key name comes back 422 beside the field, with what was typed', async () => {
    const { cookie, csrf } = await injectSession(ctx);
    const long = 'k'.repeat(256);
    const res = await ctx.app.inject({ method: 'POST', url: '/settings/api-keys', payload: `_csrf=${encodeURIComponent(csrf)}&name=${long}`, headers: { ...FORM, cookie } });
    assert.equal(res.statusCode, 422);
    assert.match(res.body, /id="f-name-error"[^>]*>The name field must be 1 to 255 characters/);
    assert.match(res.body, new RegExp(`value="${long}"`));
  });

  await t.test('a non-admin posting to the users forms gets the 403 page and changes nothing', async () => {
    const { user, cookie, csrf } = await injectSession(ctx, 'pro');
    for (const url of [`/admin/users/${user.id}/role`, `/admin/users/${user.id}/disable`]) {
      const res = await ctx.app.inject({ method: 'POST', url, payload: `_csrf=${encodeURIComponent(csrf)}&role=admin`, headers: { ...FORM, cookie } });
      assert.equal(res.statusCode, 403, url);
      assert.match(res.body, /requires the admin role; this account&#39;s role is pro|requires the admin role; this account's role is pro/);
    }
    const row = await ctx.store.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(row.role, 'pro');
    assert.equal(row.disabled_at, null);
  });

  await t.test('an admin cannot disable their own account', async () => {
    const { user, cookie, csrf } = await injectSession(ctx, 'admin');
    const res = await ctx.app.inject({ method: 'POST', url: `/admin/users/${user.id}/disable`, payload: `_csrf=${encodeURIComponent(csrf)}`, headers: { ...FORM, cookie } });
    assert.equal(res.statusCode, 422);
    assert.match(res.body, /You cannot disable your own account/);
    const row = await ctx.store.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(row.disabled_at, null);
  });
});

test(`guessing the current password from a session counts against the sign-in lock-out (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { mailer: { send: async () => ({ messageId: '1' }), close: () => undefined } });
  const NEW = 'another long enough passphrase';

  await t.test('five wrong passwords lock the account: the right one is then a 429 here, on the email form and at sign-in', async () => {
    const { user, cookie, csrf } = await injectSession(ctx);
    const post = (url: string, fields: Record<string, string>) =>
      ctx.app.inject({ method: 'POST', url, payload: new URLSearchParams({ _csrf: csrf, ...fields }).toString(), headers: { ...FORM, cookie } });
    const change = (current: string) => post('/settings/password', { current_password: current, password: NEW, password_confirmation: NEW });
    for (let i = 0; i < 5; i += 1) {
      const wrong = await change(`wrong guess number ${i}`);
      assert.equal(wrong.statusCode, 422);
      assert.match(wrong.body, /The current password is not correct/);
    }
    const locked = await change(PASSWORD);
    assert.equal(locked.statusCode, 429);
    assert.match(locked.body, /Too many failed sign-in attempts\. Try again in 1 minute\./);
    assert.ok(Number(locked.headers['retry-after']) > 0);
    const email = await post('/settings/email', { email: 'moved@example.com', current_password: PASSWORD });
    assert.equal(email.statusCode, 429);
    assert.match(email.body, /Too many failed sign-in attempts/);
    assert.match(email.body, /value="moved@example\.com"/, 'what was typed is kept');
    const signIn = await ctx.app.inject({ method: 'GET', url: '/sign-in' });
    const signInCsrf = /name="_csrf" value="([^"]+)"/.exec(signIn.body)?.[1] ?? '';
    const pre = signIn.cookies.find((c) => c.name.endsWith('rampart_pre'));
    const form = await ctx.app.inject({
      method: 'POST',
      url: '/sign-in',
      headers: { ...FORM, cookie: pre ? `${pre.name}=${pre.value}` : '' },
      payload: new URLSearchParams({ _csrf: signInCsrf, email: user.email, password: PASSWORD }).toString(),
    });
    assert.equal(form.statusCode, 429, 'the sign-in form shares the lock');
    const row = await ctx.store.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
    assert.equal(row.password_hash, user.password_hash, 'the password did not change');
  });

  await t.test('the right password clears the count', async () => {
    const { user, cookie, csrf } = await injectSession(ctx);
    const post = (fields: Record<string, string>) =>
      ctx.app.inject({ method: 'POST', url: '/settings/email', payload: new URLSearchParams({ _csrf: csrf, ...fields }).toString(), headers: { ...FORM, cookie } });
    for (let i = 0; i < 3; i += 1) assert.equal((await post({ email: 'next@example.com', current_password: 'not it at all' })).statusCode, 422);
    const key = `account:${user.email.toLowerCase()}`;
    assert.equal((await ctx.store.db.selectFrom('auth_throttles').select('failures').where('key', '=', key).executeTakeFirstOrThrow()).failures, 3);
    assert.equal((await post({ email: 'next@example.com', current_password: PASSWORD })).statusCode, 303);
    assert.equal(await ctx.store.db.selectFrom('auth_throttles').select('key').where('key', '=', key).executeTakeFirst(), undefined);
  });
});

test(`a password change and disabling an account void pending links; a disabled account's address change is refused (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t);
  const NEW = 'another long enough passphrase';
  const pendingOf = (userId: number) => ctx.store.db.selectFrom('email_tokens').select(['purpose', 'used_at']).where('user_id', '=', userId).execute();

  const changer = await injectSession(ctx);
  await issueEmailToken(ctx.store.db, changer.user.id, 'change-email', 'thief@elsewhere.example');
  await issueEmailToken(ctx.store.db, changer.user.id, 'verify-email', changer.user.email);
  await issueEmailToken(ctx.store.db, changer.user.id, 'reset-password', changer.user.email);
  const changed = await ctx.app.inject({
    method: 'POST',
    url: '/settings/password',
    payload: new URLSearchParams({ _csrf: changer.csrf, current_password: PASSWORD, password: NEW, password_confirmation: NEW }).toString(),
    headers: { ...FORM, cookie: changer.cookie },
  });
  assert.equal(changed.statusCode, 303, changed.body);
  const afterChange = await pendingOf(changer.user.id);
  assert.equal(afterChange.length, 3);
  assert.ok(afterChange.every((p) => p.used_at !== null), 'every pending link is void after a password change');

  const admin = await injectSession(ctx, 'admin');
  const member = await createUser(ctx.store.db, { email: 'to-disable@example.com', password: PASSWORD, emailVerified: true });
  const moveLink = await issueEmailToken(ctx.store.db, member.id, 'change-email', 'new-home@example.com');
  await issueEmailToken(ctx.store.db, member.id, 'verify-email', member.email);
  const disabled = await ctx.app.inject({ method: 'POST', url: `/admin/users/${member.id}/disable`, payload: `_csrf=${encodeURIComponent(admin.csrf)}`, headers: { ...FORM, cookie: admin.cookie } });
  assert.equal(disabled.statusCode, 303, disabled.body);
  assert.ok((await pendingOf(member.id)).every((p) => p.used_at !== null), 'every pending link is void once disabled');
  const voided = await ctx.app.inject({ method: 'GET', url: `/settings/email/confirm?token=${moveLink}` });
  assert.equal(voided.statusCode, 422);

  // A link that slipped past the voiding (issued while the account was being disabled): refused.
  const late = await issueEmailToken(ctx.store.db, member.id, 'change-email', 'new-home@example.com');
  const refused = await ctx.app.inject({ method: 'GET', url: `/settings/email/confirm?token=${late}` });
  assert.equal(refused.statusCode, 403);
  assert.match(refused.body, /disabled/);
  const row = await ctx.store.db.selectFrom('users').select('email').where('id', '=', member.id).executeTakeFirstOrThrow();
  assert.equal(row.email, 'to-disable@example.com', 'the address did not change');
});

test(`a disabled account gets no key from agent registration, no MCP access, and works again once enabled (${STORE_KIND})`, async (t) => {
  const sent: MailMessage[] = [];
  const mailer: Mailer = { send: async (message) => (sent.push(message), { messageId: String(sent.length) }), close: () => undefined };
  const ctx = await buildTestApp(t, { mailer });
  const target = await signUp(ctx, { email: 'agent-owner@example.com' });
  const { cookie, csrf } = await injectSession(ctx, 'admin');
  const post = (url: string) => ctx.app.inject({ method: 'POST', url, payload: `_csrf=${encodeURIComponent(csrf)}`, headers: { ...FORM, cookie } });

  const disabled = await post(`/admin/users/${target.userId}/disable`);
  assert.equal(disabled.statusCode, 303, disabled.body);

  const started = await ctx.app.inject({ method: 'POST', url: '/agent/auth', payload: { email: 'agent-owner@example.com' } });
  assert.equal(started.statusCode, 202, 'the start answers as for any address');
  const code = /one-time code is: (\d{6})/.exec(sent.at(-1)!.text)![1]!;
  const { registration_id, claim_token } = started.json();
  const claim = await ctx.app.inject({ method: 'POST', url: '/agent/auth/claim', payload: { registration_id, claim_token, code } });
  assert.equal(claim.statusCode, 403);
  assert.match(claim.json().message, /disabled/);
  assert.equal((await ctx.store.db.selectFrom('api_keys').select('id').where('user_id', '=', target.userId).execute()).length, 1, 'no new key');

  const mcp = await ctx.app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...target.auth, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
  });
  assert.equal(mcp.statusCode, 401);
  assert.equal((await ctx.app.inject({ method: 'POST', url: '/api/refresh', headers: target.auth })).statusCode, 401);

  const enabled = await post(`/admin/users/${target.userId}/enable`);
  assert.equal(enabled.statusCode, 303);
  assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/user', headers: target.auth })).statusCode, 200, 'the same token works again');
  assert.equal((await ctx.app.inject({ method: 'POST', url: `/api/token?key=${target.key}` })).statusCode, 200);
});

test(`API keys in the browser: create, read once, use, see its last use, revoke (${STORE_KIND})`, async (t) => {
  if (!requireChromium(t)) return;
  const server = await startWebServer(t);
  const tp = await newPage(t, server);
  const user = await signInAs(server, tp);
  const { page } = tp;

  await page.goto('/settings/api-keys');
  await page.getByText('No API keys yet').waitFor();
  await page.getByLabel('Key name').fill('CI pipeline');
  const [created] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/settings/api-keys') && r.request().method() === 'POST'), page.getByRole('button', { name: 'Create key' }).click()]);
  assert.equal(created.status(), 201);
  const key = (await page.locator('#new-api-key').textContent())!.trim();
  assert.match(key, /^rk_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
  const prefix = key.slice(0, 11);
  assert.match((await page.locator('#exchange-command').textContent())!, new RegExp(`curl -X POST '${server.url}/api/token\\?key=${key}'`));
  await page.getByRole('button', { name: 'Copy key' }).waitFor();
  await checkPage(tp, 'settings-api-keys');

  const row = page.locator('tr', { hasText: prefix });
  assert.match((await row.textContent())!, /never/);

  const exchanged = await exchange(server, key);
  assert.equal(exchanged.status, 200);
  const { token } = (await exchanged.json()) as { token: string };
  const me = await apiUser(server, token);
  assert.equal(me.status, 200);
  assert.equal(((await me.json()) as { email: string }).email, user.email);

  await page.goto('/settings/api-keys');
  assert.equal(await page.locator('#new-api-key').count(), 0, 'the key is shown once');
  assert.ok(!(await page.content()).includes(key), 'the whole key is on no later page');
  const listed = page.locator('tr', { hasText: prefix });
  await listed.locator('time').nth(1).waitFor();
  assert.doesNotMatch((await listed.textContent())!, /never/, 'last used is shown after the exchange');

  acceptNextDialog(page);
  await listed.getByRole('button', { name: /Revoke CI pipeline/ }).click();
  await page.getByText(`(${prefix}) is revoked`).waitFor();
  assert.equal(await page.locator('tr', { hasText: prefix }).count(), 0);
  assert.equal((await exchange(server, key)).status, 401);
});

test(`password change in the browser: wrong current password is 422, the right one ends the other sessions (${STORE_KIND})`, async (t) => {
  if (!requireChromium(t)) return;
  const server = await startWebServer(t);
  const tp = await newPage(t, server);
  const user = await signInAs(server, tp);
  const other = await newPage(t, server);
  await signInAs(server, other, { user });
  const { page } = tp;
  const newPassword = 'a different passphrase for later';

  await page.goto('/settings');
  await page.getByText('Attack narratives in reports:').waitFor();
  assert.match((await page.locator('.plan-allowances').textContent())!, /not included \(premium, pro or admin plan\)[\s\S]*60 requests per minute/);
  await checkPage(tp, 'settings-profile');

  const passwordForm = page.locator('form[action="/settings/password"]');
  await passwordForm.getByLabel('Current password').fill('not my password at all');
  await passwordForm.locator('#f-password').fill(newPassword);
  await passwordForm.getByLabel('New password again').fill(newPassword);
  const [refused] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/settings/password')), passwordForm.getByRole('button', { name: 'Change password' }).click()]);
  assert.equal(refused.status(), 422);
  const error = page.locator('#f-password-current-error');
  await error.waitFor();
  assert.equal((await error.textContent())!.trim(), 'The current password is not correct.');
  assert.equal(await page.locator('#f-password-current').getAttribute('aria-describedby'), 'f-password-current-error');
  assert.equal((await other.context.request.get('/settings', { maxRedirects: 0 })).status(), 200, 'nothing ended yet');

  const retry = page.locator('form[action="/settings/password"]');
  await retry.getByLabel('Current password').fill(PASSWORD);
  await retry.locator('#f-password').fill(newPassword);
  await retry.getByLabel('New password again').fill(newPassword);
  await retry.getByRole('button', { name: 'Change password' }).click();
  await page.getByText('Password changed.').waitFor();

  const ended = await other.context.request.get('/settings', { maxRedirects: 0 });
  assert.equal(ended.status(), 303, "the other browser's session ended");
  assert.match(ended.headers().location ?? '', /^\/sign-in/);
  const stays = await page.goto('/settings');
  assert.equal(stays?.status(), 200, 'this browser stays signed in, on a new session');
  const sessions = await server.store.db.selectFrom('web_sessions').select('id_hash').where('user_id', '=', user.id).execute();
  assert.equal(sessions.length, 1);
  const row = await server.store.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
  assert.notEqual(row.password_hash, user.password_hash);
});

test(`email change in the browser: confirmed by the link mailed to the new address (${STORE_KIND})`, async (t) => {
  if (!requireChromium(t)) return;
  const server = await startWebServer(t);
  const tp = await newPage(t, server);
  const user = await signInAs(server, tp);
  const taken = await createUser(server.store.db, { email: 'taken@example.com', password: PASSWORD });
  const { page } = tp;
  const emailForm = () => page.locator('form[action="/settings/email"]');

  await page.goto('/settings');
  await emailForm().getByLabel('New email address').fill(taken.email);
  await emailForm().getByLabel('Current password').fill(PASSWORD);
  const [refused] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/settings/email')), emailForm().getByRole('button', { name: 'Send confirmation link' }).click()]);
  assert.equal(refused.status(), 422);
  assert.equal((await page.locator('#f-email-error').textContent())!.trim(), 'The email has already been taken.');
  assert.equal(await emailForm().getByLabel('New email address').inputValue(), taken.email, 'what was typed is kept');

  const newEmail = 'moved.here@example.com';
  await emailForm().getByLabel('New email address').fill(newEmail);
  await emailForm().getByLabel('Current password').fill(PASSWORD);
  await emailForm().getByRole('button', { name: 'Send confirmation link' }).click();
  await page.getByText(`We sent a confirmation link to ${newEmail}`).waitFor();
  const unchanged = await server.store.db.selectFrom('users').select('email').where('id', '=', user.id).executeTakeFirstOrThrow();
  assert.equal(unchanged.email, user.email, 'nothing changes before the link is followed');

  const notice = await latestMail(server, user.email);
  assert.ok(notice, 'the old address is told');
  assert.match(notice.text, new RegExp(`change its email address to ${newEmail.replace(/\./g, '\\.')}`));
  const mail = await latestMail(server, newEmail);
  assert.ok(mail, 'a confirmation mail went to the new address');
  const link = linkIn(mail.text, `${server.url}/settings/email/confirm?token=`);

  const confirmed = await page.goto(link);
  assert.equal(confirmed?.status(), 200);
  await page.getByText(`is now ${newEmail}`).waitFor();
  await checkPage(tp, 'settings-email-confirmed');
  const row = await server.store.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
  assert.equal(row.email, newEmail);
  assert.ok(row.email_verified_at);

  const again = await page.goto(link);
  assert.equal(again?.status(), 422, 'a link works once');
  await page.getByText('This link has already been used').waitFor();
  await page.goto('/settings');
  await page.locator('dd', { hasText: newEmail }).first().waitFor();
});

test(`the users page: admins change plans and disable accounts; others get 403 (${STORE_KIND})`, async (t) => {
  if (!requireChromium(t)) return;
  const server = await startWebServer(t);

  const trialPage = await newPage(t, server);
  await signInAs(server, trialPage);
  const forbidden = await trialPage.page.goto('/admin/users');
  assert.equal(forbidden?.status(), 403);
  await trialPage.page.getByText('requires the admin role').waitFor();

  const tp = await newPage(t, server);
  const admin = await signInAs(server, tp, { role: 'admin', email: 'root@example.com' });
  const target = await signUp(server, { email: 'member@example.com' });
  const targetBrowser = await newPage(t, server);
  await signInAs(server, targetBrowser, { user: (await server.store.db.selectFrom('users').selectAll().where('id', '=', target.userId).executeTakeFirstOrThrow()) });
  const { page } = tp;

  await page.goto('/admin/users');
  const row = page.locator(`#user-${target.userId}`);
  await row.waitFor();
  await checkPage(tp, 'admin-users');

  await row.getByLabel('Plan of member@example.com').selectOption('pro');
  await row.getByRole('button', { name: /Change the plan of member@example.com/ }).click();
  await page.getByText('The plan of member@example.com is now pro.').waitFor();
  const me = await apiUser(server, target.token);
  assert.deepEqual(((await me.json()) as { role: unknown }).role, { name: 'pro' });

  await page.getByLabel('Email contains').fill('member');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.waitForURL(/search=member/);
  assert.equal(await page.locator('tbody tr').count(), 1, 'the search keeps only the matching account');

  acceptNextDialog(page);
  await page.locator(`#user-${target.userId}`).getByRole('button', { name: /Disable/ }).click();
  await page.getByText('member@example.com is disabled').waitFor();
  assert.match(page.url(), /search=member/, 'back to the list as it was');
  assert.equal((await targetBrowser.context.request.get('/settings', { maxRedirects: 0 })).status(), 303, 'its session ended');
  assert.equal((await apiUser(server, target.token)).status, 401, 'its bearer token is refused');
  const exchangeRefused = await exchange(server, target.key);
  assert.equal(exchangeRefused.status, 401, 'its key is refused');
  assert.equal(((await exchangeRefused.json()) as { message: string }).message, 'This account is disabled.');
  await page.locator(`#user-${target.userId}`).getByText('Disabled', { exact: true }).waitFor();

  await page.goto('/admin/users');
  const own = page.locator(`#user-${admin.id}`);
  await own.getByLabel('Plan of root@example.com').selectOption('basic');
  const [refused] = await Promise.all([page.waitForResponse((r) => r.url().includes(`/admin/users/${admin.id}/role`)), own.getByRole('button', { name: /Change the plan/ }).click()]);
  assert.equal(refused.status(), 422);
  await page.locator(`#role-${admin.id}-error`).getByText('This is the only admin account').waitFor();
  const still = await server.store.db.selectFrom('users').select('role').where('id', '=', admin.id).executeTakeFirstOrThrow();
  assert.equal(still.role, 'admin');
});

test(`an account without a password is told to use "forgot password" (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t);
  const user = await createUser(ctx.store.db, { email: 'agent-made@example.com', emailVerified: true });
  await createApiKey(ctx.store.db, user.id, 'agent');
  const session = await startSession(ctx.store.db, user, { idleMinutes: 60, maxHours: 2 }, {});
  const cookie = `rampart_session=${session.token}`;
  const page = await ctx.app.inject({ method: 'GET', url: '/settings', headers: { cookie } });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /has no password yet/);
  assert.match(page.body, /href="\/forgot-password"/);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/settings/password',
    payload: `_csrf=${encodeURIComponent(csrf)}&password=a+brand+new+passphrase&password_confirmation=a+brand+new+passphrase`,
    headers: { ...FORM, cookie },
  });
  assert.equal(res.statusCode, 422);
  assert.match(res.body, /Forgot your password/);
  const row = await ctx.store.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
  assert.equal(row.password_hash, null);
});

test(`email change: an address taken before the link is followed is a 422 page; requests are capped per hour (${STORE_KIND})`, async (t) => {
  const sent: MailMessage[] = [];
  const mailer: Mailer = { send: async (message) => (sent.push(message), { messageId: String(sent.length) }), close: () => undefined };
  const ctx = await buildTestApp(t, { mailer });
  const { user, cookie, csrf } = await injectSession(ctx);
  const ask = (email: string) =>
    ctx.app.inject({
      method: 'POST',
      url: '/settings/email',
      payload: `_csrf=${encodeURIComponent(csrf)}&email=${encodeURIComponent(email)}&current_password=${encodeURIComponent(PASSWORD)}`,
      headers: { ...FORM, cookie },
    });

  const asked = await ask('wanted@example.com');
  assert.equal(asked.statusCode, 303, asked.body);
  const confirmation = sent.find((m) => m.to === 'wanted@example.com')!;
  assert.ok(sent.some((m) => m.to === user.email && /being changed/.test(m.subject)), 'the old address is told');
  const token = /confirm\?token=([A-Za-z0-9_-]{43})/.exec(confirmation.text)![1]!;
  await createUser(ctx.store.db, { email: 'Wanted@Example.com', password: PASSWORD });
  const page = await ctx.app.inject({ method: 'GET', url: `/settings/email/confirm?token=${token}`, headers: { accept: 'text/html' } });
  assert.equal(page.statusCode, 422);
  assert.match(page.body, /now belongs to another account/);
  const row = await ctx.store.db.selectFrom('users').select('email').where('id', '=', user.id).executeTakeFirstOrThrow();
  assert.equal(row.email, user.email);

  for (let i = 2; i <= 5; i++) assert.equal((await ask(`other-${i}@example.com`)).statusCode, 303, `request ${i}`);
  const capped = await ask('one-too-many@example.com');
  assert.equal(capped.statusCode, 429);
  assert.match(capped.body, /Too many address changes/);
});
