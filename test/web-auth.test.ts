/**
 * The account entry of the web application (issue 17): sign-up, email verification, sign-in with
 * lock-out, sign-out, password reset. Flows in Chromium (mail read from the data directory's .eml
 * files); bad paths, cookies and limits through app.inject.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { checkPage, closeBrowser, latestMail, linkIn, newPage, requireChromium, signInAs, startWebServer } from './helpers/browser.js';
import type { Mailer, MailMessage } from '../src/mail/mailer.js';
import { AppError } from '../src/shared/errors.js';
import { createUser, findUserByEmail } from '../src/accounts/users.service.js';
import { issueEmailToken } from '../src/accounts/email-tokens.service.js';
import { resumeSession, startSession } from '../src/accounts/sessions.service.js';
import { reserveSignInAttempt, SignInLockedError, throttleKeys } from '../src/accounts/sign-in-throttle.service.js';

after(closeBrowser);

const PASSWORD = 'plum kettle orbit harbour';
const NEW_PASSWORD = 'violet anchor meadow 7';
const POLICY = { idleMinutes: 60, maxHours: 2 };
const BAD_CREDENTIALS = 'These credentials do not match our records.';

/** A mailer that keeps its messages (or fails like an unreachable SMTP server). */
function memoryMailer(options: { fail?: boolean } = {}): Mailer & { sent: MailMessage[]; to(address: string): MailMessage[] } {
  const sent: MailMessage[] = [];
  return {
    sent,
    to: (address) => sent.filter((m) => m.to === address),
    async send(message) {
      if (options.fail) throw new AppError('service_unavailable', 'The mail server could not be reached; try again later.');
      sent.push(message);
      return { messageId: String(sent.length) };
    },
    close() {},
  };
}

interface FormSession {
  cookie: string;
  csrf: string;
}

/** The cookies and CSRF token a browser would hold after opening the sign-in page. */
async function formSession(app: TestApp['app'], cookie = ''): Promise<FormSession> {
  const res = await app.inject({ method: 'GET', url: '/sign-in', headers: cookie ? { cookie } : {} });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
  assert.ok(csrf, 'the sign-in page carries a CSRF token');
  const pre = res.cookies.find((c) => c.name.endsWith('rampart_pre'));
  return { csrf, cookie: [cookie, pre ? `${pre.name}=${pre.value}` : ''].filter(Boolean).join('; ') };
}

function postForm(app: TestApp['app'], url: string, fields: Record<string, string>, session: FormSession) {
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie: session.cookie },
    payload: new URLSearchParams({ _csrf: session.csrf, ...fields }).toString(),
  });
}

function sessionCookie(res: { cookies: { name: string; value: string }[] }) {
  return res.cookies.find((c) => c.name.endsWith('rampart_session') && c.value !== '');
}

async function signInForm(app: TestApp['app'], email: string, password: string, next?: string) {
  return postForm(app, '/sign-in', { email, password, ...(next !== undefined ? { next } : {}) }, await formSession(app));
}

test('sign up in the browser, verify from the mailed link, sign out, sign in again', async (t) => {
  if (!requireChromium(t)) return;
  const server = await startWebServer(t);
  const tp = await newPage(t, server);
  const { page } = tp;
  const email = 'new-person@example.com';

  await page.goto('/sign-up');
  await page.locator('#f-email').fill(email);
  await page.locator('#f-password').fill('short');
  await page.locator('#f-password_confirmation').fill('short');
  // The browser's own minlength check would stop this form: the server's answer is what is tested.
  await page.locator('form[action="/sign-up"]').evaluate((form) => form.setAttribute('novalidate', ''));
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByText('The password must be at least 12 characters.').waitFor();
  assert.equal(await page.locator('#f-email').inputValue(), email, 'what was typed is kept');
  await checkPage(tp, 'auth-sign-up');

  await page.locator('#f-password').fill(PASSWORD);
  await page.locator('#f-password_confirmation').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Check your mail' }).waitFor();
  await checkPage(tp, 'auth-check-mail');

  const mail = await latestMail(server, email);
  assert.ok(mail, 'a verification mail was written');
  assert.match(mail.subject, /Verify your email address/);
  const link = linkIn(mail.text, `${server.url}/verify-email?token=`);
  await page.goto(link);
  await page.waitForURL(`${server.url}/`);
  const token = (await tp.context.cookies()).find((c) => c.name === 'rampart_session')?.value;
  assert.ok(token, 'the link signed the browser in');
  const resumed = await resumeSession(server.store.db, token, POLICY);
  assert.equal(resumed?.user.email, email);
  assert.ok(resumed?.user.email_verified_at, 'the address is verified');

  // The same link again: used.
  const again = await page.goto(link);
  assert.equal(again?.status(), 422);
  await page.getByText('This link has already been used.').waitFor();
  await checkPage(tp, 'auth-verify-failed');

  // Sign out from the navigation: the session ends in the store.
  await page.goto('/sign-in');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/\/sign-in$/);
  await page.getByText('You are signed out.').waitFor();
  assert.equal(await resumeSession(server.store.db, token, POLICY), undefined, 'the old cookie no longer opens a session');

  // Wrong password, then the right one.
  await page.locator('#f-email').fill(email);
  await page.locator('#f-password').fill('not the password at all');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByText(BAD_CREDENTIALS).waitFor();
  assert.equal(await page.locator('#f-email').inputValue(), email);
  await checkPage(tp, 'auth-sign-in');
  await page.locator('#f-password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${server.url}/`);
  const fresh = (await tp.context.cookies()).find((c) => c.name === 'rampart_session')?.value;
  assert.ok(fresh && fresh !== token);
  assert.equal((await resumeSession(server.store.db, fresh, POLICY))?.user.email, email);
});

test('password reset in the browser for an account made without a password (CLI or agent registration)', async (t) => {
  if (!requireChromium(t)) return;
  const server = await startWebServer(t);
  const email = 'agent-made@example.com';
  const user = await createUser(server.store.db, { email, emailVerified: true });
  const earlier = await startSession(server.store.db, user, POLICY, {});
  const tp = await newPage(t, server);
  const { page } = tp;

  await page.goto('/sign-in');
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await page.locator('#f-email').fill(email);
  await checkPage(tp, 'auth-forgot-password');
  await page.getByRole('button', { name: 'Mail me a link' }).click();
  await page.getByRole('heading', { name: 'Check your mail' }).waitFor();
  await checkPage(tp, 'auth-reset-sent');

  const mail = await latestMail(server, email);
  assert.ok(mail);
  assert.match(mail.subject, /Reset your Rampart password/);
  await page.goto(linkIn(mail.text, `${server.url}/reset-password?token=`));
  await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
  await page.locator('#f-password').fill('password1234');
  await page.locator('#f-password_confirmation').fill('password1234');
  await page.locator('form[action="/reset-password"]').evaluate((form) => form.setAttribute('novalidate', ''));
  await page.getByRole('button', { name: 'Set the password' }).click();
  await page.getByText('This password is too common').waitFor();
  await checkPage(tp, 'auth-reset-password');

  await page.locator('#f-password').fill(NEW_PASSWORD);
  await page.locator('#f-password_confirmation').fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Set the password' }).click();
  await page.waitForURL(`${server.url}/`);
  assert.equal(await resumeSession(server.store.db, earlier.token, POLICY), undefined, 'the sessions from before the reset ended');
  const token = (await tp.context.cookies()).find((c) => c.name === 'rampart_session')?.value;
  assert.equal((await resumeSession(server.store.db, token ?? '', POLICY))?.user.id, user.id, 'this browser is signed in');

  const signIn = await signInForm(server.app, email, NEW_PASSWORD);
  assert.equal(signIn.statusCode, 303, 'the new password signs in');
});

test('sign-up never reveals a taken email: the same answer, and a note with a reset link to its owner', async (t) => {
  const mailer = memoryMailer();
  const ctx = await buildTestApp(t, { mailer });
  await createUser(ctx.store.db, { email: 'taken@example.com', password: PASSWORD, emailVerified: true });
  const fields = (email: string) => ({ email, name: '', password: PASSWORD, password_confirmation: PASSWORD });

  const fresh = await postForm(ctx.app, '/sign-up', fields('fresh@example.com'), await formSession(ctx.app));
  const taken = await postForm(ctx.app, '/sign-up', fields('TAKEN@example.com'), await formSession(ctx.app));
  assert.equal(fresh.statusCode, 200);
  assert.equal(taken.statusCode, 200);
  const normalise = (body: string, email: string) => body.split(email).join('EMAIL').replace(/name="_csrf" value="[^"]+"/g, '');
  assert.equal(normalise(taken.body, 'TAKEN@example.com'), normalise(fresh.body, 'fresh@example.com'));
  assert.equal(sessionCookie(fresh), undefined, 'no session before verification');

  assert.match(mailer.to('fresh@example.com')[0]?.text ?? '', /\/verify-email\?token=/);
  const note = mailer.to('taken@example.com')[0];
  assert.match(note?.subject ?? '', /Someone tried to sign up/);
  assert.match(note?.text ?? '', /\/reset-password\?token=/);

  // Field errors come back with what was typed (the password is never sent back).
  const bad = await postForm(ctx.app, '/sign-up', { email: 'not-an-email', name: 'Ann', password: PASSWORD, password_confirmation: 'different' }, await formSession(ctx.app));
  assert.equal(bad.statusCode, 422);
  assert.match(bad.body, /The email field must be a valid email address/);
  assert.match(bad.body, /The password confirmation does not match/);
  assert.match(bad.body, /value="not-an-email"/);
  assert.doesNotMatch(bad.body, new RegExp(PASSWORD));
});

test('without required verification sign-up signs in at once; without sign-up the page is a 404 and not linked; the OIDC button', async (t) => {
  const open = await buildTestApp(t, { mailer: memoryMailer(), env: { RAMPART_REQUIRE_EMAIL_VERIFICATION: 'false' } });
  const res = await postForm(open.app, '/sign-up', { email: 'quick@example.com', password: PASSWORD, password_confirmation: PASSWORD }, await formSession(open.app));
  assert.equal(res.statusCode, 303);
  assert.equal(res.headers.location, '/');
  const cookie = sessionCookie(res);
  assert.ok(cookie);
  assert.equal((await resumeSession(open.store.db, cookie.value, POLICY))?.user.email, 'quick@example.com');

  const closed = await buildTestApp(t, {
    env: { RAMPART_SIGN_UP: 'false', RAMPART_OIDC_ISSUER: 'http://127.0.0.1:9', RAMPART_OIDC_CLIENT_ID: 'rampart', RAMPART_OIDC_NAME: 'Acme SSO' },
  });
  const page = await closed.app.inject({ method: 'GET', url: '/sign-up', headers: { accept: 'text/html' } });
  assert.equal(page.statusCode, 404);
  const post = await postForm(closed.app, '/sign-up', { email: 'x@example.com', password: PASSWORD, password_confirmation: PASSWORD }, await formSession(closed.app));
  assert.equal(post.statusCode, 404);
  const signIn = await closed.app.inject({ method: 'GET', url: '/sign-in?next=%2Fscans' });
  assert.doesNotMatch(signIn.body, /href="\/sign-up"/);
  assert.match(signIn.body, /<a class="button secondary" href="\/auth\/oidc\?next=%2Fscans">Sign in with Acme SSO<\/a>/, 'the identity provider\'s button keeps next');
  const withSignUp = await open.app.inject({ method: 'GET', url: '/sign-in' });
  assert.match(withSignUp.body, /href="\/sign-up"/);
  assert.doesNotMatch(withSignUp.body, /\/auth\/oidc/, 'no provider configured, no button');
});

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

test('verification links: expired, used and unknown ones are a 422 page that says which, with the resend form', async (t) => {
  const ctx = await buildTestApp(t);
  const user = await createUser(ctx.store.db, { email: 'late@example.com', password: PASSWORD });
  const expired = await issueEmailToken(ctx.store.db, user.id, 'verify-email', user.email, new Date(Date.now() - 25 * 3_600_000));
  const good = await issueEmailToken(ctx.store.db, user.id, 'verify-email', user.email);
  const get = (token: string) => ctx.app.inject({ method: 'GET', url: `/verify-email?token=${token}` });

  const late = await get(expired);
  assert.equal(late.statusCode, 422);
  assert.match(late.body, /This link has expired/);
  assert.match(late.body, /action="\/verify-email\/resend"/);
  assert.equal((await findUserByEmail(ctx.store.db, user.email))?.email_verified_at, null);

  const ok = await get(good);
  assert.equal(ok.statusCode, 303);
  assert.equal(ok.headers.location, '/');
  assert.ok(sessionCookie(ok));
  assert.ok((await findUserByEmail(ctx.store.db, user.email))?.email_verified_at);

  const used = await get(good);
  assert.equal(used.statusCode, 422);
  assert.match(used.body, /already been used/);
  const unknown = await get('x'.repeat(43));
  assert.equal(unknown.statusCode, 422);
  assert.match(unknown.body, /This link is not valid/);
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

test('password reset for a CLI account with a password: the form does not spend the link, the old password stops working', async (t) => {
  const mailer = memoryMailer();
  const ctx = await buildTestApp(t, { mailer });
  const email = 'cli-made@example.com';
  const user = await createUser(ctx.store.db, { email, password: PASSWORD, role: 'admin', emailVerified: true });

  const asked = await postForm(ctx.app, '/forgot-password', { email }, await formSession(ctx.app));
  const other = await issueEmailToken(ctx.store.db, user.id, 'reset-password', email);
  const unknown = await postForm(ctx.app, '/forgot-password', { email: 'who@example.com' }, await formSession(ctx.app));
  assert.equal(asked.statusCode, 200);
  assert.equal(unknown.statusCode, 200);
  assert.match(asked.body, /If an account uses/);
  assert.equal(mailer.to('who@example.com').length, 0);
  const token = new URL(linkIn(mailer.to(email)[0]?.text ?? '', 'http://rampart.test/reset-password?token=')).searchParams.get('token') ?? '';

  for (let i = 0; i < 2; i += 1) {
    const form = await ctx.app.inject({ method: 'GET', url: `/reset-password?token=${token}` });
    assert.equal(form.statusCode, 200, 'showing the form does not spend the link');
    assert.match(form.body, /Choose a new password/);
  }
  const weak = await postForm(ctx.app, '/reset-password', { token, password: 'short', password_confirmation: 'short' }, await formSession(ctx.app));
  assert.equal(weak.statusCode, 422);
  assert.match(weak.body, /at least 12 characters/);

  const done = await postForm(ctx.app, '/reset-password', { token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD }, await formSession(ctx.app));
  assert.equal(done.statusCode, 303);
  assert.equal(done.headers.location, '/');
  assert.ok(sessionCookie(done));
  assert.equal((await signInForm(ctx.app, email, PASSWORD)).statusCode, 422, 'the old password no longer works');
  assert.equal((await signInForm(ctx.app, email, NEW_PASSWORD)).statusCode, 303);

  const reused = await ctx.app.inject({ method: 'GET', url: `/reset-password?token=${token}` });
  assert.equal(reused.statusCode, 422);
  assert.match(reused.body, /already been used/);
  const voided = await ctx.app.inject({ method: 'GET', url: `/reset-password?token=${other}` });
  assert.equal(voided.statusCode, 422, 'the account\'s other reset links are void');
});

test('a mail server that cannot be reached is a 503 page that says so', async (t) => {
  const ctx = await buildTestApp(t, { mailer: memoryMailer({ fail: true }) });
  await createUser(ctx.store.db, { email: 'mailless@example.com', password: PASSWORD, emailVerified: true });
  const res = await postForm(ctx.app, '/forgot-password', { email: 'mailless@example.com' }, await formSession(ctx.app));
  assert.equal(res.statusCode, 503);
  assert.match(res.headers['content-type'] as string, /text\/html/);
  assert.match(res.body, /The mail server could not be reached/);
});

test('the CLI service refuses passwords under the policy', async (t) => {
  const ctx = await buildTestApp(t);
  await assert.rejects(createUser(ctx.store.db, { email: 'short@example.com', password: 'elevenchars' }), /at least 12 characters/);
  await assert.rejects(createUser(ctx.store.db, { email: 'common@example.com', password: 'password123456' }), /too common/);
  assert.ok(await createUser(ctx.store.db, { email: 'fine@example.com', password: 'correct horse battery' }));
});

test('a signed-in browser sees who it is on the sign-in page', async (t) => {
  if (!requireChromium(t)) return;
  const server = await startWebServer(t);
  const tp = await newPage(t, server);
  const user = await signInAs(server, tp);
  await tp.page.goto('/sign-in');
  await tp.page.getByText(`You are signed in as ${user.email}`).waitFor();
});
