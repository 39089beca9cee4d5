/**
 * The CSRF check against the test application through a real web client on loopback: the email
 * form without a token is reported once (the forged post stored its marker), its twin with a
 * per-session token is not; forms that need no session, login and search forms are left alone.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type net from 'node:net';
import { test, type TestContext } from 'node:test';
import { CHECKS } from '../src/engines/web/checks/csrf.js';
import { startVulnApp } from './helpers/vuln-app/app.js';
import { CANARY_HOST, formEndpoint, startCheckRun } from './helpers/web-checks.js';
import { listenOnLoopback } from './helpers/servers.js';

const [check] = CHECKS;

test('csrf: the email form without a token is reported with its proof; the twin that checks its token is not', async (t) => {
  const app = await startVulnApp(t);
  const run = startCheckRun(t, app.url);
  await run.visit('/account/email');
  await run.visit('/safe/account/email');
  await check!.testEndpoint!(formEndpoint(app.url, '/account/email', [{ name: 'email', type: 'email', value: 'user@example.com' }]), run.ctx);
  await check!.testEndpoint!(
    formEndpoint(app.url, '/safe/account/email', [
      { name: 'csrf_token', type: 'hidden', value: 'whatever-the-page-said' },
      { name: 'email', type: 'email', value: 'user@example.com' },
    ]),
    run.ctx,
  );
  assert.equal(run.drafts.length, 1, run.drafts.map((d) => d.url).join(', '));
  const [draft] = run.drafts;
  assert.equal(draft!.ruleId, 'rampart:web-csrf');
  assert.equal(draft!.url, `${app.url}account/email`);
  assert.equal(draft!.method, 'POST');
  assert.equal(draft!.parameter, null);
  assert.equal(draft!.qod, undefined);
  const [forged, , anonymous] = draft!.proof.length === 3 ? draft!.proof : [draft!.proof[0], undefined, draft!.proof[1]];
  assert.equal(forged!.request.headers.origin, `https://${CANARY_HOST}`);
  assert.match(forged!.request.headers.cookie ?? '', /acct=/);
  assert.equal(anonymous!.status, 401);
  assert.equal(anonymous!.request.headers.cookie, undefined);
  // The state really changed: the page now shows the marker as the account's email.
  const now = await run.visit('/account/email');
  assert.ok(now.body.includes(draft!.highlight!), 'the marker is the stored email');
  // The twin refused the forged post (no token) with 403.
  assert.ok(run.responses.some((r) => r.request.method === 'POST' && r.request.url.endsWith('/safe/account/email') && r.status === 403));
});

test('csrf: login, search and destructive forms are not submitted, nor any form without a session', async (t) => {
  const app = await startVulnApp(t);
  const run = startCheckRun(t, app.url);
  const forms = [
    formEndpoint(app.url, '/login', [{ name: 'username', type: 'text', value: 'a' }, { name: 'password', type: 'password', value: 'b' }]),
    formEndpoint(app.url, '/search', [{ name: 'q', type: 'text', value: 'a' }]),
    formEndpoint(app.url, '/account/delete', [{ name: 'reason', type: 'text', value: 'a' }]),
  ];
  for (const form of forms) await check!.testEndpoint!(form, run.ctx);
  assert.equal(run.responses.length, 0);
  // No cookie at all for the site: the form page is fetched, nothing is posted.
  await check!.testEndpoint!(formEndpoint(app.url, '/passive/about', [{ name: 'comment', type: 'textarea', value: '' }]), run.ctx);
  assert.deepEqual(run.responses.map((r) => r.request.method), ['GET']);
  assert.deepEqual(run.drafts, []);
});

/** A site with a guestbook anyone may post to (no session needed) and a profile form bound to a SameSite=Lax session. */
async function startForumSite(t: TestContext): Promise<string> {
  const entries: string[] = [];
  let nickname = 'alice';
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const html = (status: number, content: string, headers: Record<string, string> = {}): void => void response.writeHead(status, { 'content-type': 'text/html', ...headers }).end(`<html><body>${content}</body></html>`);
      const session = /(?:^|;\s*)sess=ok/.test(request.headers.cookie ?? '');
      if (request.url === '/guestbook' && request.method === 'POST') {
        entries.push(new URLSearchParams(body).get('message') ?? '');
        return html(200, `<p>Thanks!</p><ul>${entries.map((e) => `<li>${e.replace(/</g, '&lt;')}</li>`).join('')}</ul>`);
      }
      if (request.url === '/guestbook') return html(200, '<form method="post" action="/guestbook"><textarea name="message"></textarea></form>', { 'set-cookie': 'theme=dark; Path=/' });
      if (request.url === '/profile' && request.method === 'POST') {
        if (!session) return html(401, '<p>Please sign in.</p>');
        nickname = new URLSearchParams(body).get('nickname') ?? nickname;
        return html(200, `<p>Saved: ${nickname}</p>`);
      }
      if (request.url === '/profile') return html(200, `<p>${nickname}</p><form method="post" action="/profile"><input name="nickname"></form>`, { 'set-cookie': 'sess=ok; Path=/; HttpOnly; SameSite=Lax' });
      // A form that refuses every value with a validation error, the value refilled: nothing is saved.
      if (request.url === '/phone' && request.method === 'POST') {
        if (!session) return html(401, '<p>Please sign in.</p>');
        const phone = new URLSearchParams(body).get('phone') ?? '';
        return html(200, `<p>Please enter a valid phone number.</p><form method="post" action="/phone"><input name="phone" value="${phone.replace(/"/g, '&quot;')}"></form>`);
      }
      if (request.url === '/phone') return html(200, '<form method="post" action="/phone"><input name="phone"></form>', { 'set-cookie': 'sess=ok; Path=/; HttpOnly' });
      return html(404, 'Not found');
    });
  });
  await listenOnLoopback(t, server);
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`;
}

test('csrf: a form anyone may post without a session is not reported; one behind a SameSite=Lax session is, with a lower quality of detection', async (t) => {
  const base = await startForumSite(t);
  const run = startCheckRun(t, base);
  await run.visit('/guestbook');
  await run.visit('/profile');
  await check!.testEndpoint!(formEndpoint(base, '/guestbook', [{ name: 'message', type: 'textarea', value: '' }]), run.ctx);
  await check!.testEndpoint!(formEndpoint(base, '/profile', [{ name: 'nickname', type: 'text', value: '' }]), run.ctx);
  assert.deepEqual(run.drafts.map((d) => [new URL(d.url).pathname, d.qod]), [['/profile', 50]]);
  assert.match(run.drafts[0]!.summary, /sess is SameSite=Lax or Strict/);
  // The guestbook accepted the anonymous post, so the check stopped there: one POST, without cookies.
  assert.deepEqual(run.responses.filter((r) => r.request.url.endsWith('/guestbook') && r.request.method === 'POST').map((r) => r.request.headers.cookie), [undefined]);
});

test('csrf: a post whose answer only refills the form (a validation error) stored nothing and is not reported', async (t) => {
  const base = await startForumSite(t);
  const run = startCheckRun(t, base);
  await run.visit('/phone');
  await check!.testEndpoint!(formEndpoint(base, '/phone', [{ name: 'phone', type: 'text', value: '' }]), run.ctx);
  assert.deepEqual(run.drafts, []);
  // It did post with the session, then looked for the marker on the form's page fetched again.
  assert.ok(run.responses.some((r) => r.request.url.endsWith('/phone') && r.request.method === 'POST' && r.request.headers.cookie?.includes('sess=ok')));
  assert.ok(run.responses.filter((r) => r.request.url.endsWith('/phone') && r.request.method === 'GET').length >= 2);
});
