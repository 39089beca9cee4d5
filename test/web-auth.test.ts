/**
 * The account entry of the web application (issue 17): sign-up, email verification and password
 * reset. Flows in Chromium (mail read from the data directory's .eml files); bad paths through
 * app.inject. Sign-in, lock-out and cookies: web-auth-sign-in.test.ts.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from './helpers/app.js';
import { checkPage, closeBrowser, latestMail, linkIn, newPage, requireChromium, signInAs, startWebServer } from './helpers/browser.js';
import { BAD_CREDENTIALS, formSession, memoryMailer, NEW_PASSWORD, PASSWORD, POLICY, postForm, sessionCookie, signInForm } from './helpers/web-forms.js';
import { createUser, findUserByEmail } from '../src/accounts/users.service.js';
import { assertSquatterGone, leaveSquattersThings } from './helpers/account-claims.js';
import { issueEmailToken } from '../src/accounts/email-tokens.service.js';
import { resumeSession, startSession } from '../src/accounts/sessions.service.js';

after(closeBrowser);

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
  // Opening the link changes nothing (a mail scanner, or a link an attacker sends): the button does.
  await page.goto(link);
  await page.getByRole('heading', { name: 'Confirm your email address' }).waitFor();
  await page.getByText(email).waitFor();
  assert.equal((await tp.context.cookies()).find((c) => c.name === 'rampart_session'), undefined, 'opening the link signs nobody in');
  await checkPage(tp, 'auth-verify-confirm');
  await page.getByRole('button', { name: 'Confirm my email address' }).click();
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

test('verification links: the GET shows a button and spends nothing; the POST (CSRF) verifies and signs in; expired, used and unknown ones are a 422 page that says which', async (t) => {
  const ctx = await buildTestApp(t);
  const user = await createUser(ctx.store.db, { email: 'late@example.com', password: PASSWORD });
  const expired = await issueEmailToken(ctx.store.db, user.id, 'verify-email', user.email, new Date(Date.now() - 25 * 3_600_000));
  const good = await issueEmailToken(ctx.store.db, user.id, 'verify-email', user.email);
  const get = (token: string) => ctx.app.inject({ method: 'GET', url: `/verify-email?token=${token}` });
  const confirm = async (token: string) => postForm(ctx.app, '/verify-email', { token }, await formSession(ctx.app));

  const late = await get(expired);
  assert.equal(late.statusCode, 422);
  assert.match(late.body, /This link has expired/);
  assert.match(late.body, /action="\/verify-email\/resend"/);
  assert.equal((await findUserByEmail(ctx.store.db, user.email))?.email_verified_at, null);
  assert.equal((await confirm(expired)).statusCode, 422, 'posting an expired link is refused too');

  // Opened twice (a mail scanner, then the person): a page with the address and a button, nothing spent.
  for (let i = 0; i < 2; i += 1) {
    const shown = await get(good);
    assert.equal(shown.statusCode, 200);
    assert.match(shown.body, /Confirm your email address/);
    assert.match(shown.body, /late@example\.com/);
    assert.match(shown.body, /<form method="post" action="\/verify-email"/);
    assert.match(shown.body, new RegExp(`name="token" value="${good}"`));
    assert.equal(sessionCookie(shown), undefined, 'the GET signs nobody in');
  }
  assert.equal((await findUserByEmail(ctx.store.db, user.email))?.email_verified_at, null, 'the GET verifies nothing');

  // The button's POST without the page's CSRF token (a cross-site form): refused, nothing spent.
  const forged = await ctx.app.inject({
    method: 'POST',
    url: '/verify-email',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    payload: new URLSearchParams({ token: good }).toString(),
  });
  assert.equal(forged.statusCode, 403);
  assert.equal(sessionCookie(forged), undefined);
  assert.equal((await findUserByEmail(ctx.store.db, user.email))?.email_verified_at, null);

  const ok = await confirm(good);
  assert.equal(ok.statusCode, 303);
  assert.equal(ok.headers.location, '/');
  assert.ok(sessionCookie(ok));
  assert.ok((await findUserByEmail(ctx.store.db, user.email))?.email_verified_at);

  const used = await get(good);
  assert.equal(used.statusCode, 422);
  assert.match(used.body, /already been used/);
  assert.equal((await confirm(good)).statusCode, 422);
  const unknown = await get('x'.repeat(43));
  assert.equal(unknown.statusCode, 422);
  assert.match(unknown.body, /This link is not valid/);
});

test('a password reset of an unverified account claims it: the squatter\'s sessions, keys, webhooks and pending links go', async (t) => {
  const mailer = memoryMailer();
  const ctx = await buildTestApp(t, { mailer, env: { RAMPART_REQUIRE_EMAIL_VERIFICATION: 'false' } });
  const email = 'squatted-reset@example.com';
  const squatted = await createUser(ctx.store.db, { email, password: PASSWORD });
  const left = await leaveSquattersThings(ctx.store.db, squatted);

  assert.equal((await postForm(ctx.app, '/forgot-password', { email }, await formSession(ctx.app))).statusCode, 200);
  const token = new URL(linkIn(mailer.to(email)[0]?.text ?? '', 'http://rampart.test/reset-password?token=')).searchParams.get('token') ?? '';
  const done = await postForm(ctx.app, '/reset-password', { token, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD }, await formSession(ctx.app));
  assert.equal(done.statusCode, 303);
  await assertSquatterGone(ctx.store.db, squatted.id, left);
  assert.equal((await signInForm(ctx.app, email, PASSWORD)).statusCode, 422, "the squatter's password no longer works");
  assert.equal((await signInForm(ctx.app, email, NEW_PASSWORD)).statusCode, 303, 'the new one does');
});

test('sign-up notes to a taken address stay within the reset links\' limit; an unverified account\'s verification links are voided', async (t) => {
  const mailer = memoryMailer();
  const ctx = await buildTestApp(t, { mailer });
  const fields = (email: string) => ({ email, name: '', password: PASSWORD, password_confirmation: PASSWORD });
  await createUser(ctx.store.db, { email: 'noted@example.com', password: PASSWORD, emailVerified: true });
  for (let i = 0; i < 3; i += 1) {
    const res = await postForm(ctx.app, '/sign-up', fields('noted@example.com'), await formSession(ctx.app));
    assert.equal(res.statusCode, 200, 'each sign-up answers the same');
  }
  // One link a minute per account: the second and third sign-ups send nothing.
  assert.equal(mailer.to('noted@example.com').length, 1, 'one note, not one per sign-up');
  const resets = await ctx.store.db.selectFrom('email_tokens').select('token_hash').where('email', '=', 'noted@example.com').where('purpose', '=', 'reset-password').execute();
  assert.equal(resets.length, 1, 'the note is counted as the reset link it carries');

  // Whoever signed up first with this address gets a verification link; its owner signing up later
  // voids it (the owner is sent the reset link instead, which claims the account).
  const squatted = await createUser(ctx.store.db, { email: 'unverified-noted@example.com', password: PASSWORD });
  const pending = await issueEmailToken(ctx.store.db, squatted.id, 'verify-email', squatted.email);
  await postForm(ctx.app, '/sign-up', fields('unverified-noted@example.com'), await formSession(ctx.app));
  const voided = await ctx.app.inject({ method: 'GET', url: `/verify-email?token=${pending}` });
  assert.equal(voided.statusCode, 422);
  assert.match(voided.body, /already been used/);
  assert.match(mailer.to('unverified-noted@example.com')[0]?.text ?? '', /\/reset-password\?token=/);
});

test('password reset for a CLI account with a password: the form does not spend the link, the old password stops working', async (t) => {
  const mailer = memoryMailer();
  const ctx = await buildTestApp(t, { mailer });
  const email = 'cli-made@example.com';
  const user = await createUser(ctx.store.db, { email, password: PASSWORD, role: 'admin', emailVerified: true });

  const asked = await postForm(ctx.app, '/forgot-password', { email }, await formSession(ctx.app));
  const other = await issueEmailToken(ctx.store.db, user.id, 'reset-password', email);
  const emailChange = await issueEmailToken(ctx.store.db, user.id, 'change-email', 'elsewhere@example.com');
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
  const moved = await ctx.app.inject({ method: 'GET', url: `/settings/email/confirm?token=${emailChange}` });
  assert.equal(moved.statusCode, 422, 'a pending address change is void too');
  assert.equal((await findUserByEmail(ctx.store.db, email))?.id, user.id, 'the account keeps its address');
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
