/**
 * Sign-in of the web application (issue 17): one answer for every wrong credential, lock-out and
 * back-off per account and per address, unverified and disabled accounts, CSRF, `next`, session
 * rotation and the session cookie's flags. Through app.inject (the browser flows are in web-auth.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { buildTestApp } from './helpers/app.js';
import { BAD_CREDENTIALS, formSession, memoryMailer, PASSWORD, POLICY, postForm, sessionCookie, signInForm } from './helpers/web-forms.js';
import { createUser } from '../src/accounts/users.service.js';
import { resumeSession, startSession } from '../src/accounts/sessions.service.js';
import { reserveSignInAttempt, SignInLockedError, throttleKeys } from '../src/accounts/sign-in-throttle.service.js';

test('lock-out: the same 429 and message for a registered and an unregistered email, even with the right password', async (t) => {
  const ctx = await buildTestApp(t);
  await createUser(ctx.store.db, { email: 'victim@example.com', password: PASSWORD, emailVerified: true });
  for (const email of ['victim@example.com', 'nobody@example.com']) {
    for (let i = 0; i < 5; i += 1) {
      const res = await signInForm(ctx.app, email, `wrong guess number ${i}`);
      assert.equal(res.statusCode, 422, `${email} attempt ${i + 1}`);
      assert.match(res.body, new RegExp(BAD_CREDENTIALS));
    }
    const locked = await signInForm(ctx.app, email, PASSWORD);
    assert.equal(locked.statusCode, 429, email);
    assert.match(locked.body, /Too many failed sign-in attempts\. Try again in 1 minute\./);
    const retryAfter = Number(locked.headers['retry-after']);
    assert.ok(retryAfter > 0 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal(sessionCookie(locked), undefined);
  }
  // Another account from the same address is not locked by these (10 of the address's 30).
  await createUser(ctx.store.db, { email: 'other@example.com', password: PASSWORD, emailVerified: true });
  assert.equal((await signInForm(ctx.app, 'other@example.com', PASSWORD)).statusCode, 303);
});

test('lock-out per address: 30 failures with any emails lock the address; a right password clears its account', async (t) => {
  const ctx = await buildTestApp(t);
  await createUser(ctx.store.db, { email: 'owner@example.com', password: PASSWORD, emailVerified: true });
  for (let i = 0; i < 4; i += 1) assert.equal((await signInForm(ctx.app, 'owner@example.com', 'wrong wrong wrong')).statusCode, 422);
  assert.equal((await signInForm(ctx.app, 'owner@example.com', PASSWORD)).statusCode, 303, 'the 5th attempt is still allowed');
  for (let i = 0; i < 4; i += 1) assert.equal((await signInForm(ctx.app, 'owner@example.com', 'wrong wrong wrong')).statusCode, 422, 'counted from zero again');

  // 8 failures counted against 127.0.0.1 (the right password gave its attempt back); 21 more
  // attempts with other emails, as the form would make them (without 21 scrypt runs), then the 30th.
  for (let i = 0; i < 21; i += 1) await reserveSignInAttempt(ctx.store.db, throttleKeys(`spray-${i}@example.com`, '127.0.0.1'));
  assert.equal((await signInForm(ctx.app, 'spray-last@example.com', 'wrong wrong wrong')).statusCode, 422, 'the 30th attempt is made');
  const locked = await signInForm(ctx.app, 'owner@example.com', PASSWORD);
  assert.equal(locked.statusCode, 429, 'the address is locked, whichever account');
  assert.match(locked.body, /Too many failed sign-in attempts/);
});

test('lock-out: parallel attempts never exceed the threshold; each attempt after a lock doubles the next one', async (t) => {
  const ctx = await buildTestApp(t);
  const db = ctx.store.db;
  const now = new Date('2026-01-01T00:00:00Z');
  const keys = throttleKeys('Parallel@Example.com', '192.0.2.1');
  const outcomes = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => reserveSignInAttempt(db, { ...keys, address: `address:192.0.2.${i}` }, now)));
  assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 5, 'five attempts admitted, however many arrive at once');
  const refusal = outcomes.find((o) => o.status === 'rejected');
  assert.ok(refusal?.status === 'rejected' && refusal.reason instanceof SignInLockedError);
  assert.equal(refusal.reason.retryAfterSeconds, 60);

  // After the lock, one attempt is admitted and locks for 2 minutes, then 4, ... up to an hour.
  let at = now.getTime();
  let lock = 1;
  for (const minutes of [2, 4, 8, 16, 32, 60, 60]) {
    at += lock * 60_000; // the moment the lock ends: not quiet for 15 minutes yet
    await reserveSignInAttempt(db, keys, new Date(at));
    await assert.rejects(reserveSignInAttempt(db, keys, new Date(at)), (error: SignInLockedError) => error.retryAfterSeconds === minutes * 60);
    lock = minutes;
  }
  // A key quiet for 15 minutes after its lock starts again from zero.
  at += lock * 60_000 + 16 * 60_000;
  for (let i = 0; i < 4; i += 1) await reserveSignInAttempt(db, keys, new Date(at));
});

test('unverified, disabled and password-less accounts', async (t) => {
  const mailer = memoryMailer();
  const ctx = await buildTestApp(t, { mailer });
  const db = ctx.store.db;
  await createUser(db, { email: 'unverified@example.com', password: PASSWORD });
  const disabled = await createUser(db, { email: 'disabled@example.com', password: PASSWORD, emailVerified: true });
  await sql`update users set disabled_at = now() where id = ${disabled.id}`.execute(db);
  await createUser(db, { email: 'agent@example.com', emailVerified: true });

  const unverified = await signInForm(ctx.app, 'unverified@example.com', PASSWORD);
  assert.equal(unverified.statusCode, 403);
  assert.match(unverified.body, /Verify your email address before you sign in/);
  assert.match(unverified.body, /action="\/verify-email\/resend"/);
  assert.equal((await signInForm(ctx.app, 'unverified@example.com', 'wrong wrong wrong')).statusCode, 422, 'a wrong password reveals nothing');

  const off = await signInForm(ctx.app, 'disabled@example.com', PASSWORD);
  assert.equal(off.statusCode, 403);
  assert.match(off.body, /This account is disabled; ask an administrator\./);
  assert.equal(sessionCookie(off), undefined);

  const agent = await signInForm(ctx.app, 'agent@example.com', 'anything at all here');
  assert.equal(agent.statusCode, 422);
  assert.match(agent.body, new RegExp(BAD_CREDENTIALS));

  // Resend: at most one a minute; the same page for an unknown address.
  const resend = (email: string) => formSession(ctx.app).then((s) => postForm(ctx.app, '/verify-email/resend', { email }, s));
  const first = await resend('unverified@example.com');
  const second = await resend('unverified@example.com');
  const unknown = await resend('unknown@example.com');
  assert.equal(first.statusCode, 200);
  assert.equal(second.statusCode, 200);
  assert.equal(unknown.statusCode, 200);
  assert.equal(mailer.to('unverified@example.com').length, 1, 'the second resend within a minute sent nothing');
  assert.equal(mailer.to('unknown@example.com').length, 0);
  const strip = (body: string, email: string) => body.split(email).join('EMAIL').replace(/name="_csrf" value="[^"]+"/g, '');
  assert.equal(strip(second.body, 'unverified@example.com'), strip(unknown.body, 'unknown@example.com'));
});

test('sign-in: CSRF token required, next kept only as a local path, session rotated, cookie flags', async (t) => {
  const ctx = await buildTestApp(t);
  const user = await createUser(ctx.store.db, { email: 'rotate@example.com', password: PASSWORD, emailVerified: true });

  const session = await formSession(ctx.app);
  const noToken = await ctx.app.inject({
    method: 'POST',
    url: '/sign-in',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie: session.cookie },
    payload: new URLSearchParams({ email: user.email, password: PASSWORD }).toString(),
  });
  assert.equal(noToken.statusCode, 403);
  assert.equal(sessionCookie(noToken), undefined);

  for (const [next, location] of [
    ['//evil.example', '/'],
    ['https://evil.example/', '/'],
    ['/\\evil.example', '/'],
    ['/scans?status=running', '/scans?status=running'],
  ] as const) {
    const res = await signInForm(ctx.app, user.email, PASSWORD, next);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, location, `next=${next}`);
  }
  const form = await ctx.app.inject({ method: 'GET', url: '/sign-in?next=%2F%2Fevil.example' });
  assert.match(form.body, /name="next" value="\/"/);

  // A session the browser held before signing in (planted or its own) ends; the new one differs.
  const before = await startSession(ctx.store.db, user, POLICY, {});
  const held = await formSession(ctx.app, `rampart_session=${before.token}`);
  const rotated = await postForm(ctx.app, '/sign-in', { email: user.email, password: PASSWORD }, held);
  assert.equal(rotated.statusCode, 303);
  const cookie = sessionCookie(rotated);
  assert.ok(cookie && cookie.value !== before.token);
  assert.equal(await resumeSession(ctx.store.db, before.token, POLICY), undefined, 'the pre-sign-in session no longer works');
  assert.ok(await resumeSession(ctx.store.db, cookie.value, POLICY));
  const setCookies = (res: { headers: Record<string, unknown> }) => ([] as string[]).concat(res.headers['set-cookie'] as string | string[]);
  const flags = setCookies(rotated).find((c) => c.startsWith('rampart_session=') && !c.startsWith('rampart_session=;'));
  assert.match(flags ?? '', /HttpOnly/);
  assert.match(flags ?? '', /SameSite=Lax/);
  assert.doesNotMatch(flags ?? '', /Secure/, 'plain http: no Secure flag');

  const https = await buildTestApp(t, { env: { RAMPART_BASE_URL: 'https://rampart.test' } });
  await createUser(https.store.db, { email: user.email, password: PASSWORD, emailVerified: true });
  const secure = await signInForm(https.app, user.email, PASSWORD);
  assert.equal(secure.statusCode, 303);
  const secureFlags = setCookies(secure).find((c) => c.startsWith('__Host-rampart_session='));
  assert.match(secureFlags ?? '', /; Secure/);
  assert.match(secureFlags ?? '', /HttpOnly/);
  assert.match(secureFlags ?? '', /SameSite=Lax/);
});
