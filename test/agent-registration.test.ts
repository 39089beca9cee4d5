import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { buildTestApp, signUp, STORE_KIND } from './helpers/app.js';
import { startSmtpReceiver } from './helpers/smtp.js';
import { assertSquatterGone, leaveSquattersThings } from './helpers/account-claims.js';
import { createUser, markEmailVerified } from '../src/accounts/users.service.js';

/** The registration_id and claim_token of a start's answer: what a claim presents beside the code. */
function claimOf(started: { registration_id: string; claim_token: string }) {
  return { registration_id: started.registration_id, claim_token: started.claim_token };
}

function codeIn(raw: string): string {
  const match = /one-time code is: (\d{6})/.exec(raw);
  assert.ok(match, 'the message carries a six-digit code');
  return match[1]!;
}

test(`verified-email agent registration through a real SMTP server (${STORE_KIND})`, async (t) => {
  const smtp = await startSmtpReceiver(t);
  const ctx = await buildTestApp(t, { env: { RAMPART_SMTP_URL: smtp.url, RAMPART_MAIL_FROM: 'Rampart <noreply@rampart.test>' } });
  const post = (url: string, payload: object) => ctx.app.inject({ method: 'POST', url, payload });

  await t.test('a new account: register, receive the code, claim, use the key', async () => {
    const started = await post('/agent/auth', { identity_type: 'identity_assertion', assertion_type: 'verified_email', email: 'New.Agent.User@example.com', key_name: 'claude' });
    assert.equal(started.statusCode, 202);
    const { registration_id, claim_token, expires_in, claim_uri } = started.json();
    assert.match(registration_id, /^[0-9a-f-]{36}$/);
    assert.match(claim_token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(expires_in, 900);
    assert.equal(claim_uri, 'http://rampart.test/agent/auth/claim');

    const mail = await smtp.next();
    assert.deepEqual(mail.to, ['New.Agent.User@example.com']);
    assert.equal(mail.from, 'noreply@rampart.test');
    const code = codeIn(mail.raw);

    const claimed = await post('/agent/auth/claim', { registration_id, claim_token, code });
    assert.equal(claimed.statusCode, 200);
    const body = claimed.json();
    assert.equal(body.account_created, true);
    assert.equal(body.user.email, 'New.Agent.User@example.com');
    assert.equal(body.user.role.name, 'trial');
    assert.equal(body.token_endpoint, 'http://rampart.test/api/token');
    assert.match(body.api_key, /^rk_[0-9a-f]{8}_/);

    const token = await ctx.app.inject({ method: 'POST', url: `/api/token?key=${body.api_key}` });
    assert.equal(token.statusCode, 200);
    const me = await ctx.app.inject({ method: 'GET', url: '/api/user', headers: { authorization: `Bearer ${token.json().token}` } });
    assert.deepEqual(me.json(), body.user);

    const row = await ctx.store.db.selectFrom('users').selectAll().where('id', '=', body.user.id).executeTakeFirstOrThrow();
    assert.ok(row.email_verified_at, 'the email is marked verified');
    assert.equal(row.password_hash, null);
    const keyRow = await ctx.store.db.selectFrom('api_keys').selectAll().where('user_id', '=', body.user.id).executeTakeFirstOrThrow();
    assert.equal(keyRow.name, 'claude');

    const again = await post('/agent/auth/claim', { registration_id, claim_token, code });
    assert.equal(again.statusCode, 422, 'a registration is claimed once');
    assert.ok(again.json().errors.registration_id);
  });

  await t.test('an existing verified account gets a new key and is not duplicated', async () => {
    const existing = await signUp(ctx, { email: 'owner@example.com', role: 'pro' });
    // A verified account keeps its keys (an unverified one is claimed: the next test).
    await markEmailVerified(ctx.store.db, existing.userId);
    const started = await post('/agent/auth', { email: 'OWNER@example.com' });
    assert.equal(started.statusCode, 202);
    const code = codeIn((await smtp.next()).raw);
    const claimed = await post('/agent/auth/claim', { ...claimOf(started.json()), code: ` ${code} ` });
    assert.equal(claimed.statusCode, 200);
    assert.equal(claimed.json().account_created, false);
    assert.equal(claimed.json().user.id, existing.userId);
    assert.equal(claimed.json().user.role.name, 'pro');
    const keys = await ctx.store.db.selectFrom('api_keys').select('id').where('user_id', '=', existing.userId).execute();
    assert.equal(keys.length, 2);
  });

  await t.test("an existing unverified account is claimed: the squatter's password, session, keys, webhooks and pending links go", async () => {
    // Whoever signed up first with someone else's address, and used the account meanwhile.
    const squatted = await createUser(ctx.store.db, { email: 'squatted@example.com', password: 'the squatter chose this one' });
    const left = await leaveSquattersThings(ctx.store.db, squatted);
    const started = await post('/agent/auth', { email: 'squatted@example.com', key_name: 'owner-agent' });
    const code = codeIn((await smtp.next()).raw);
    const claimed = await post('/agent/auth/claim', { ...claimOf(started.json()), code });
    assert.equal(claimed.statusCode, 200);
    assert.equal(claimed.json().account_created, false);
    assert.equal(claimed.json().user.id, squatted.id);
    const row = await ctx.store.db.selectFrom('users').selectAll().where('id', '=', squatted.id).executeTakeFirstOrThrow();
    assert.equal(row.password_hash, null, "the squatter's password no longer signs in");
    await assertSquatterGone(ctx.store.db, squatted.id, left);
    const keys = await ctx.store.db.selectFrom('api_keys').select('prefix').where('user_id', '=', squatted.id).execute();
    assert.deepEqual(keys.map((k) => k.prefix), [claimed.json().key_prefix], 'only the key just issued is left');
  });

  await t.test('wrong codes count down, then the registration is void', async () => {
    const started = await post('/agent/auth', { email: 'guess@example.com' });
    const code = codeIn((await smtp.next()).raw);
    const wrong = code === '000000' ? '111111' : '000000';
    const claim = claimOf(started.json());
    const first = await post('/agent/auth/claim', { ...claim, code: wrong });
    assert.equal(first.statusCode, 422);
    assert.deepEqual(first.json().errors, { code: ['The code is invalid; 4 attempts left.'] });
    for (let i = 0; i < 4; i++) await post('/agent/auth/claim', { ...claim, code: wrong });
    const late = await post('/agent/auth/claim', { ...claim, code });
    assert.equal(late.statusCode, 422, 'the right code no longer works after five wrong ones');
    assert.ok(late.json().errors.registration_id);
  });

  await t.test('anonymous and ID-JAG registrations are refused', async () => {
    const anonymous = await post('/agent/auth', { identity_type: 'anonymous', email: 'a@example.com' });
    assert.equal(anonymous.statusCode, 422);
    assert.ok(anonymous.json().errors.identity_type);
    const idJag = await post('/agent/auth', { assertion_type: 'urn:ietf:params:oauth:token-type:id-jag', email: 'a@example.com' });
    assert.equal(idJag.statusCode, 422);
    assert.ok(idJag.json().errors.assertion_type);
  });

  await t.test('an address is sent at most five codes an hour', async () => {
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await post('/agent/auth', { email: 'flood@example.com' })).statusCode);
    assert.deepEqual(statuses, [202, 202, 202, 202, 202, 429]);
  });

  await t.test('malformed claims are 422 naming the field', async () => {
    const res = await post('/agent/auth/claim', { registration_id: '6f1c7a1e-1111-4222-8333-944455556666', claim_token: 'short', code: '12ab56' });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(Object.keys(res.json().errors), ['claim_token', 'code']);
  });
});

test(`without SMTP the code is written to an .eml file, with its text in a .txt file beside it (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t);
  const started = await ctx.app.inject({ method: 'POST', url: '/agent/auth', payload: { email: 'file@example.com' } });
  assert.equal(started.statusCode, 202);
  const dir = path.join(ctx.dataDir, 'mail');
  const files = (await fs.readdir(dir)).sort();
  assert.equal(files.length, 2);
  assert.match(files[0]!, /\.eml$/);
  assert.equal(files[1], files[0]!.replace(/\.eml$/, '.txt'));
  const raw = await fs.readFile(path.join(dir, files[0]!), 'utf8');
  assert.match(raw, /^To: file@example\.com$/m);
  const text = await fs.readFile(path.join(dir, files[1]!), 'utf8');
  assert.match(text, /^To: file@example\.com\nSubject: .+\n\n/);
  assert.ok(text.includes(codeIn(raw)), 'the code reads as sent');
  const claimed = await ctx.app.inject({ method: 'POST', url: '/agent/auth/claim', payload: { ...claimOf(started.json()), code: codeIn(raw) } });
  assert.equal(claimed.statusCode, 200);
});

test(`an unreachable SMTP server is a clear 503 (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { env: { RAMPART_SMTP_URL: 'smtp://127.0.0.1:1' } });
  const res = await ctx.app.inject({ method: 'POST', url: '/agent/auth', payload: { email: 'down@example.com' } });
  assert.equal(res.statusCode, 503);
  assert.deepEqual(res.json(), { message: 'The mail server could not be reached; try again later.' });
});
