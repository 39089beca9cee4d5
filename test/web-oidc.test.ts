/**
 * Sign-in through an OpenID Connect provider, against a real one on loopback (oidc-provider, its
 * development login and consent pages driven by Chromium): a first sign-in creates the account,
 * a second finds it (whatever the case of the email), an unverified email or a disabled account is
 * refused, the login is single use and bound to the browser, and a provider that is down, slow or
 * refuses the code gives a page that says so.
 */
import { after, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import Provider from 'oidc-provider';
import { buildTestApp } from './helpers/app.js';
import { assertSquatterGone, leaveSquattersThings } from './helpers/account-claims.js';
import { checkPage, closeBrowser, newPage, requireChromium, startWebServer, type TestPage, type WebServer } from './helpers/browser.js';
import { resumeSession, startSession } from '../src/accounts/sessions.service.js';
import { createUser } from '../src/accounts/users.service.js';
import { beginOidcSignIn, issuerProblem, localReturnPath, OidcSignInError } from '../src/accounts/oidc.service.js';
import { cookieNames } from '../src/web/web-context.js';
import type { Db } from '../src/db/database.js';
import { closedPort, listenOnLoopback } from './helpers/servers.js';

after(closeBrowser);

const CLIENT_ID = 'rampart-test';
const CLIENT_SECRET = 'a-client-secret-that-must-never-be-logged';

interface AccountClaims {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

interface LoopbackProvider {
  issuer: string;
  /** Mounts the provider, with Rampart's callback URLs registered for its client. */
  attach(redirectUris: string[]): void;
}

/**
 * A node:http server on 127.0.0.1:0, listening before Rampart starts (Rampart needs the issuer,
 * the provider needs Rampart's callback URL); the provider is mounted by `attach`.
 */
async function startProvider(t: TestContext, accounts: Record<string, AccountClaims>): Promise<LoopbackProvider> {
  let handler: http.RequestListener | undefined;
  const server = http.createServer((req, res) => {
    if (handler) return handler(req, res);
    res.statusCode = 503;
    res.end();
  });
  await listenOnLoopback(t, server);
  const issuer = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    issuer,
    attach(redirectUris) {
      const provider = new Provider(issuer, {
        clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: redirectUris, response_types: ['code'], grant_types: ['authorization_code'] }],
        claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
        // The login typed on the development login page is the account id (the `sub`).
        findAccount: (_ctx, id) => ({
          accountId: id,
          claims: () => ({ sub: id, ...(accounts[id] ?? { email: `${id}@example.com`, email_verified: true }) }),
        }),
        cookies: { keys: ['oidc-provider-test-cookie-key'] },
        features: { devInteractions: { enabled: true } },
        pkce: { required: () => true },
        // Set, so that the provider does not print a notice for each default it uses.
        ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
      });
      handler = provider.callback();
    },
  };
}

function oidcEnv(issuer: string): Record<string, string> {
  return { RAMPART_OIDC_ISSUER: issuer, RAMPART_OIDC_CLIENT_ID: CLIENT_ID, RAMPART_OIDC_CLIENT_SECRET: CLIENT_SECRET, RAMPART_OIDC_NAME: 'Loopback ID' };
}

/** Rampart and the provider, each knowing the other. */
async function startBoth(t: TestContext, accounts: Record<string, AccountClaims> = {}): Promise<{ server: WebServer; provider: LoopbackProvider }> {
  const provider = await startProvider(t, accounts);
  const server = await startWebServer(t, { env: oidcEnv(provider.issuer) });
  provider.attach([`${server.url}/auth/oidc/callback`]);
  return { server, provider };
}

/** The development login and consent pages of oidc-provider. */
async function signInAtProvider(tp: TestPage, login: string): Promise<void> {
  await tp.page.getByPlaceholder('Enter any login').fill(login);
  await tp.page.getByPlaceholder('and password').fill('anything');
  await tp.page.getByRole('button', { name: 'Sign-in' }).click();
  await tp.page.getByRole('button', { name: 'Continue' }).click();
}

/** The account the browser's Rampart session cookie belongs to, from the store. */
async function sessionEmail(tp: TestPage, server: WebServer): Promise<string | undefined> {
  const cookie = (await tp.context.cookies(server.url)).find((c) => c.name === cookieNames(false).session);
  if (!cookie) return undefined;
  const resumed = await resumeSession(server.store.db, cookie.value, { idleMinutes: 60, maxHours: 2 });
  return resumed?.user.email;
}

async function usersWithEmail(db: Db, email: string) {
  return db.selectFrom('users').selectAll().where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase())).execute();
}

test('first sign-in creates a trial account without a password, a second finds it whatever the case (and proves an unverified one), and a callback URL works once', async (t) => {
  if (!requireChromium(t)) return;
  const { server } = await startBoth(t, {
    alice: { email: 'alice@example.com', email_verified: true, name: 'Alice Example' },
    'alice-again': { email: 'Alice@Example.COM', email_verified: true, name: 'Someone Else' },
    bob: { email: 'bob@example.com', email_verified: true },
  });
  const first = await newPage(t, server);
  const callbacks: string[] = [];
  first.page.on('request', (request) => {
    if (request.url().startsWith(`${server.url}/auth/oidc/callback`)) callbacks.push(request.url());
  });
  await first.page.goto('/auth/oidc?next=%2Fscans%3Fpage%3D2');
  await signInAtProvider(first, 'alice');
  await first.page.waitForURL(`${server.url}/scans?page=2`);
  assert.equal(await sessionEmail(first, server), 'alice@example.com');

  const [created, ...others] = await usersWithEmail(server.store.db, 'alice@example.com');
  assert.equal(others.length, 0);
  assert.ok(created);
  assert.equal(created.role, 'trial');
  assert.equal(created.name, 'Alice Example');
  assert.equal(created.password_hash, null);
  assert.ok(created.email_verified_at);

  // The callback URL replayed (same browser, same cookie): the login was spent.
  assert.equal(callbacks.length, 1);
  const replay = await first.page.goto(callbacks[0]!);
  assert.equal(replay?.status(), 400);
  await first.page.getByRole('heading', { name: 'Sign-in link not valid' }).waitFor();
  await first.page.getByRole('link', { name: 'Try again' }).waitFor();
  // Its state changed: unknown.
  const tampered = new URL(callbacks[0]!);
  tampered.searchParams.set('state', `${tampered.searchParams.get('state')}x`);
  assert.equal((await first.page.goto(tampered.href))?.status(), 400);

  // Another browser, another provider account whose email differs only in case: the same account.
  const second = await newPage(t, server);
  await second.page.goto('/auth/oidc');
  await signInAtProvider(second, 'alice-again');
  await second.page.waitForURL(`${server.url}/`);
  assert.equal(await sessionEmail(second, server), 'alice@example.com');
  const after = await usersWithEmail(server.store.db, 'alice@example.com');
  assert.deepEqual(
    after.map((u) => u.id),
    [created.id],
  );
  assert.equal(after[0]!.name, 'Alice Example');

  // An account that never verified its address: the provider proves it, the password whoever signed
  // up first set is removed (they may not own the address), and sessions started before end, as
  // do the API keys, webhooks and pending links they may have made meanwhile.
  const bob = await createUser(server.store.db, { email: 'bob@example.com', password: 'a password set before verification' });
  const early = await startSession(server.store.db, bob, { idleMinutes: 60, maxHours: 2 }, {});
  const left = await leaveSquattersThings(server.store.db, bob);
  const third = await newPage(t, server);
  await third.page.goto('/auth/oidc');
  await signInAtProvider(third, 'bob');
  await third.page.waitForURL(`${server.url}/`);
  assert.equal(await sessionEmail(third, server), 'bob@example.com');
  const [verified] = await usersWithEmail(server.store.db, 'bob@example.com');
  assert.equal(verified?.id, bob.id);
  assert.ok(verified?.email_verified_at);
  assert.equal(verified?.password_hash, null);
  assert.equal(await resumeSession(server.store.db, early.token, { idleMinutes: 60, maxHours: 2 }), undefined);
  await assertSquatterGone(server.store.db, bob.id, left);
});

test('an unverified email, a disabled account and a cancelled sign-in are refused with a page that says why', async (t) => {
  if (!requireChromium(t)) return;
  const { server } = await startBoth(t, {
    eve: { email: 'eve@example.com', email_verified: false },
    dora: { email: 'dora@example.com', email_verified: true },
  });
  const tp = await newPage(t, server);
  await tp.page.goto('/auth/oidc?next=/targets');
  await signInAtProvider(tp, 'eve');
  await tp.page.getByRole('heading', { name: 'Email not verified' }).waitFor();
  assert.match(await tp.page.locator('main').innerText(), /Loopback ID has not verified the email address eve@example\.com/);
  assert.equal(await tp.page.getByRole('link', { name: 'Try again' }).getAttribute('href'), '/auth/oidc?next=%2Ftargets');
  assert.equal(await sessionEmail(tp, server), undefined);
  assert.equal((await usersWithEmail(server.store.db, 'eve@example.com')).length, 0);
  await checkPage(tp, 'oidc-refused');

  // A disabled account: found, but not let in.
  const disabledContext = await newPage(t, server);
  await disabledContext.page.goto('/auth/oidc');
  await signInAtProvider(disabledContext, 'dora');
  await disabledContext.page.waitForURL(`${server.url}/`);
  await server.store.db.updateTable('users').set({ disabled_at: new Date() }).where('email', '=', 'dora@example.com').execute();
  const again = await newPage(t, server);
  await again.page.goto('/auth/oidc');
  await signInAtProvider(again, 'dora');
  await again.page.getByRole('heading', { name: 'Account disabled' }).waitFor();
  assert.equal(await sessionEmail(again, server), undefined);
  assert.equal(await again.page.getByRole('link', { name: 'Try again' }).count(), 0);

  // Cancelled at the provider: error=access_denied comes back.
  const cancelled = await newPage(t, server);
  await cancelled.page.goto('/auth/oidc');
  await cancelled.page.getByRole('link', { name: '[ Cancel ]' }).click();
  await cancelled.page.getByRole('heading', { name: 'Sign-in cancelled' }).waitFor();
  assert.match(await cancelled.page.locator('main').innerText(), /cancelled at Loopback ID/);
});

/** The provider's redirect of /auth/oidc, and the browser binding cookie it set. */
async function begin(app: FastifyInstance, next = '/'): Promise<{ location: URL; cookie: string; state: string }> {
  const res = await app.inject({ method: 'GET', url: `/auth/oidc?next=${encodeURIComponent(next)}` });
  assert.equal(res.statusCode, 303, res.body);
  const location = new URL(res.headers.location as string);
  const set = res.cookies.find((c) => c.name === 'rampart_oidc');
  assert.ok(set, 'binding cookie set');
  assert.equal(set.httpOnly, true);
  assert.equal(set.sameSite, 'Lax');
  return { location, cookie: `rampart_oidc=${set.value}`, state: location.searchParams.get('state') ?? '' };
}

test('the authorisation request carries PKCE S256, state, nonce and the scopes; the login is bound to the browser, expires, and a refused code is a 502 that logs no secret', async (t) => {
  const provider = await startProvider(t, {});
  let now = new Date();
  const lines: string[] = [];
  const { app } = await buildTestApp(t, { env: oidcEnv(provider.issuer), clock: () => now, logStream: { write: (line: string) => void lines.push(line) } });
  provider.attach(['http://rampart.test/auth/oidc/callback']);

  const started = await begin(app, '//evil.example/');
  const query = started.location.searchParams;
  assert.equal(started.location.origin, provider.issuer);
  assert.equal(query.get('client_id'), CLIENT_ID);
  assert.equal(query.get('redirect_uri'), 'http://rampart.test/auth/oidc/callback');
  assert.equal(query.get('scope'), 'openid email profile');
  assert.equal(query.get('code_challenge_method'), 'S256');
  assert.match(query.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
  assert.ok((query.get('nonce') ?? '').length >= 32);
  assert.ok(started.state.length >= 32);

  // Without this browser's cookie, or with another state: not found (login CSRF is refused).
  const foreign = await app.inject({ method: 'GET', url: `/auth/oidc/callback?code=abc&state=${started.state}` });
  assert.equal(foreign.statusCode, 400);
  assert.match(foreign.body, /not valid/);
  const otherBrowser = await begin(app);
  const crossed = await app.inject({ method: 'GET', url: `/auth/oidc/callback?code=abc&state=${started.state}`, headers: { cookie: otherBrowser.cookie } });
  assert.equal(crossed.statusCode, 400);

  // The right browser, but a code the provider never issued: the exchange fails, 502.
  const refused = await app.inject({ method: 'GET', url: `/auth/oidc/callback?code=forged-code&state=${started.state}&iss=${encodeURIComponent(provider.issuer)}`, headers: { cookie: started.cookie } });
  assert.equal(refused.statusCode, 502);
  assert.match(refused.body, /Loopback ID did not confirm the sign-in/);
  // `next` was another site: "try again" returns to the dashboard.
  assert.match(refused.body, /href="\/auth\/oidc"/);
  const log = lines.join('\n');
  assert.match(log, /invalid_grant/);
  assert.doesNotMatch(log, new RegExp(CLIENT_SECRET));
  assert.doesNotMatch(log, /forged-code/);

  // A login older than ten minutes has expired (and is gone).
  const late = await begin(app, '/scans');
  now = new Date(now.getTime() + 11 * 60_000);
  const expired = await app.inject({ method: 'GET', url: `/auth/oidc/callback?code=abc&state=${late.state}`, headers: { cookie: late.cookie } });
  assert.equal(expired.statusCode, 400);
  assert.match(expired.body, /has expired/);
  assert.match(expired.body, /href="\/auth\/oidc\?next=%2Fscans"/);
  const remaining = await app.inject({ method: 'GET', url: `/auth/oidc/callback?code=abc&state=${late.state}`, headers: { cookie: late.cookie } });
  assert.match(remaining.body, /not valid/);
});

test('a provider that is down answers 503 at once, a slow one is abandoned, and without configuration /auth/oidc is a 404 page', async (t) => {
  const issuer = `http://127.0.0.1:${await closedPort()}`;
  const { app } = await buildTestApp(t, { env: oidcEnv(issuer) });
  const down = await app.inject({ method: 'GET', url: '/auth/oidc?next=/scans' });
  assert.equal(down.statusCode, 503);
  assert.match(down.headers['content-type'] as string, /^text\/html/);
  assert.match(down.body, /Loopback ID cannot be reached right now/);
  assert.match(down.body, /href="\/auth\/oidc\?next=%2Fscans"/);

  // A provider that accepts the connection and never answers.
  const silent = http.createServer(() => undefined);
  await listenOnLoopback(t, silent);
  const slowIssuer = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
  const settings = { issuer: slowIssuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: 'http://rampart.test/auth/oidc/callback', timeoutSeconds: 0.5 };
  await assert.rejects(beginOidcSignIn(app.ctx.db, settings, { binding: 'b'.repeat(43), returnTo: '/', provider: 'Slow ID' }), (error: unknown) => {
    assert.ok(error instanceof OidcSignInError);
    assert.equal(error.kind, 'unavailable');
    assert.equal(error.context.code, 'OAUTH_TIMEOUT');
    return true;
  });

  const { app: plain } = await buildTestApp(t);
  for (const url of ['/auth/oidc', '/auth/oidc/callback?code=a&state=b']) {
    const res = await plain.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
    assert.equal(res.statusCode, 404);
    assert.match(res.body, /Page not found/);
  }
});

test('an http issuer off loopback is refused at start-up; `next` is only ever a local path', async (t) => {
  assert.equal(issuerProblem('https://idp.example.com'), undefined);
  for (const loopback of ['http://127.0.0.1:8080', 'http://127.9.9.9', 'http://localhost:9000/realms/x', 'http://[::1]:4000']) assert.equal(issuerProblem(loopback), undefined, loopback);
  for (const remote of ['http://idp.example.com', 'http://10.0.0.5', 'http://128.0.0.1']) assert.match(issuerProblem(remote) ?? '', /must be an https/, remote);
  await assert.rejects(buildTestApp(t, { env: oidcEnv('http://idp.example.com') }), /RAMPART_OIDC_ISSUER must be an https:\/\/ URL/);

  for (const [next, expected] of [
    ['/scans?page=2', '/scans?page=2'],
    ['//evil.example/x', '/'],
    ['/\\evil.example', '/'],
    ['https://evil.example/', '/'],
    ['scans', '/'],
    ['/a\r\nSet-Cookie: x=1', '/'],
    [undefined, '/'],
    [['/a', '/b'], '/'],
  ] as const) {
    assert.equal(localReturnPath(next), expected, String(next));
  }
});
