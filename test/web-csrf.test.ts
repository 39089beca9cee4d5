/**
 * The CSRF check against the test application through a real web client on loopback: the email
 * form without a token is reported once (the forged post stored its marker), its twin with a
 * per-session token is not; forms that need no session, login and search forms are left alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECKS } from '../src/engines/web/checks/csrf.js';
import { startVulnApp } from './helpers/vuln-app/app.js';
import { formEndpoint, startCheckRun } from './helpers/web-check-run.js';

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
  assert.equal(forged!.request.headers.origin, 'https://rampart-redirect-check.example');
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
