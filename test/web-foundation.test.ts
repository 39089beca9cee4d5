/**
 * The web application's frame: HTML error pages beside the API's JSON ones, the security headers
 * (a CSP without inline code), CSRF refusal of a state-changing request, the static assets, and the
 * 404 page in a real browser (axe-core, no console error).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from './helpers/app.js';
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
