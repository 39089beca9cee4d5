/**
 * The webhook pages and the dashboard home. Webhooks end to end in Chromium against a real HTTPS
 * receiver on loopback (a test CA trusted through RAMPART_WEBHOOK_CA_FILE), every delivery's
 * signature checked with the public `standardwebhooks` package and the secret the page showed.
 * The dashboard with findings imported from a real OpenVAS report, its counts compared with the
 * API's, and with nothing at all.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, test, type TestContext } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createApiKey } from '../src/accounts/api-keys.service.js';
import { createUser } from '../src/accounts/users.service.js';
import { startSession } from '../src/accounts/sessions.service.js';
import type { User } from '../src/db/schema.js';
import { findCurrentRun, recordProgress } from '../src/scans/runs.service.js';
import { requireScan } from '../src/scans/scans.service.js';
import { insertKev } from '../src/vulndb/vulndb.queries.js';
import { cookieNames } from '../src/web/web-context.js';
import { NODE_EXAMPLE } from '../src/web/pages/webhook-secret.views.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { checkPage, closeBrowser, newPage, requireChromium, signInAs, startWebServer, type WebServer } from './helpers/browser.js';
import { hasOpenssl, TestPki } from './helpers/pki.js';
import { SAMPLES_DIR, SAMPLES_SKIP } from './helpers/scan-samples.js';
import { SHARED_DIR } from './helpers/shared.js';
import { listenOnLoopback, waitFor } from './helpers/servers.js';

after(closeBrowser);

interface Received {
  headers: Record<string, string>;
  body: string;
}

/**
 * An HTTPS receiver (certificate from `pki`'s CA) answering 200 `answer 200`; while `hold` is
 * set, each request waits for it to settle first, so a test can see a delivery pending.
 */
async function startReceiver(t: TestContext, pki: TestPki) {
  const leaf = pki.issue({ cn: 'localhost', san: 'DNS:localhost,IP:127.0.0.1' });
  const received: Received[] = [];
  const state: { hold: Promise<void> | undefined } = { hold: undefined };
  const server = https.createServer({ key: leaf.key, cert: leaf.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      await state.hold;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('answer 200');
    });
  });
  await listenOnLoopback(t, server);
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, state };
}

/** The test CA and the environment that makes Rampart trust it; undefined without openssl. */
function webhookPki(t: TestContext) {
  if (!hasOpenssl()) return undefined;
  const pki = new TestPki();
  t.after(() => pki.cleanup());
  const caFile = path.join(pki.dir, 'ca.pem');
  writeFileSync(caFile, pki.ca.cert);
  return { pki, env: { RAMPART_WEBHOOK_CA_FILE: caFile, RAMPART_WEBHOOK_RETRY_DELAYS: '0,0,0', RAMPART_WEBHOOK_TIMEOUT_MS: '10000', RAMPART_WORKER_POLL_MS: '50' } };
}


/** A bearer token for the account, for the API calls that prepare or cross-check a page. */
async function bearer(app: TestApp['app'], db: TestApp['store']['db'], user: User): Promise<{ authorization: string }> {
  const created = await createApiKey(db, user.id, 'test');
  const res = await app.inject({ method: 'POST', url: `/api/token?key=${encodeURIComponent(created.key)}` });
  assert.equal(res.statusCode, 200, res.body);
  return { authorization: `Bearer ${(res.json() as { token: string }).token}` };
}

/** A signed-in browser for `app.inject`: the session cookie and the CSRF token its pages carry. */
async function injectSession(ctx: TestApp, role = 'trial') {
  const user = await createUser(ctx.store.db, { email: `web-${Math.random().toString(16).slice(2, 10)}@example.com`, password: 'a long enough password for tests', role, emailVerified: true });
  const session = await startSession(ctx.store.db, user, { idleMinutes: 60, maxHours: 2 }, {});
  const cookie = `${cookieNames(false).session}=${session.token}`;
  const page = await ctx.app.inject({ method: 'GET', url: '/webhooks/new', headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
  assert.ok(csrf, 'the form carries a CSRF token');
  const post = (url: string, form: Record<string, string | string[]>) => {
    const body = new URLSearchParams({ _csrf: csrf });
    for (const [key, value] of Object.entries(form)) for (const v of [value].flat()) body.append(key, v);
    return ctx.app.inject({ method: 'POST', url, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: body.toString() });
  };
  return { user, cookie, post, get: (url: string) => ctx.app.inject({ method: 'GET', url, headers: { cookie } }) };
}

test('pages: signed out goes to sign in; bad forms are 422 with the input kept; another account\'s webhook is a 404 page', async (t) => {
  const ctx = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8' } });
  const home = await ctx.app.inject({ method: 'GET', url: '/' });
  assert.equal(home.statusCode, 303);
  assert.equal(home.headers.location, '/sign-in');
  const list = await ctx.app.inject({ method: 'GET', url: '/webhooks' });
  assert.equal(list.statusCode, 303);
  assert.equal(list.headers.location, '/sign-in?next=%2Fwebhooks');

  const owner = await injectSession(ctx);
  const plain = await owner.post('/webhooks/new', { url: 'http://127.0.0.1/hook', events: 'scan.completed', description: 'kept text' });
  assert.equal(plain.statusCode, 422);
  assert.match(plain.body, /id="f-url-error">The url field must be an https:\/\/ URL\./);
  assert.match(plain.body, /value="http:\/\/127\.0\.0\.1\/hook"/, 'the URL typed is kept');
  assert.match(plain.body, /value="kept text"/, 'the description typed is kept');
  const privateAddress = await owner.post('/webhooks/new', { url: 'https://10.1.2.3/hook', events: 'scan.failed' });
  assert.equal(privateAddress.statusCode, 422);
  assert.match(privateAddress.body, /id="f-url-error">The url field is not allowed/);
  const noEvent = await owner.post('/webhooks/new', { url: 'https://127.0.0.1:9/hook' });
  assert.equal(noEvent.statusCode, 422);
  assert.match(noEvent.body, /id="f-events-error">Choose at least one event\./);
  assert.equal((await owner.post('/webhooks/new', { url: 'https://127.0.0.1:9/hook', events: 'scan.failed', _csrf: 'forged' })).statusCode, 403, 'a wrong CSRF token is refused');

  for (let i = 1; i <= 10; i++) assert.equal((await owner.post('/webhooks/new', { url: `https://127.0.0.1:9/hook${i}`, events: 'scan.failed' })).statusCode, 201);
  const eleventh = await owner.post('/webhooks/new', { url: 'https://127.0.0.1:9/hook11', events: 'scan.failed' });
  assert.equal(eleventh.statusCode, 422);
  assert.match(eleventh.body, /role="alert"><p>An account can have at most 10 webhooks; delete one first\./);
  const full = await owner.get('/webhooks');
  assert.match(full.body, /10 of 10 webhooks/);
  assert.doesNotMatch(full.body, /whsec_/, 'the list never shows a secret');
  const id = /href="\/webhooks\/(\d+)"/.exec(full.body)?.[1];
  assert.ok(id);

  const stranger = await injectSession(ctx);
  for (const url of [`/webhooks/${id}`, `/webhooks/${id}/delete`, '/webhooks/999999', '/webhooks/abc']) {
    const res = await stranger.get(url);
    assert.equal(res.statusCode, 404, url);
    assert.match(res.body, /Page not found/);
  }
  for (const url of [`/webhooks/${id}`, `/webhooks/${id}/rotate`, `/webhooks/${id}/test`, `/webhooks/${id}/delete`]) {
    const res = await stranger.post(url, { url: 'https://127.0.0.1:9/x', events: 'scan.failed' });
    assert.equal(res.statusCode, 404, `POST ${url}`);
  }
  assert.equal((await owner.get(`/webhooks/${id}`)).statusCode, 200, 'still there for its owner');
});

test('webhooks in Chromium: create (secret once), live test ping verified with it, edit, rotate, delete', async (t) => {
  if (!requireChromium(t)) return;
  const setup = webhookPki(t);
  if (!setup) return t.skip('needs openssl (Debian package openssl)');
  const receiver = await startReceiver(t, setup.pki);
  const server = await startWebServer(t, { env: setup.env, background: {} });
  const tp = await newPage(t, server);
  const { page } = tp;
  await signInAs(server, tp);

  await page.goto('/webhooks');
  await page.getByText('No webhooks yet').waitFor();
  await page.getByRole('link', { name: 'Create a webhook' }).click();

  // An http:// URL: the message beside the field, what was typed kept.
  await page.getByLabel('Payload URL').fill('http://127.0.0.1/hook');
  await page.getByLabel('Description').fill('Ops receiver');
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await page.locator('#f-url-error').waitFor();
  assert.match(await page.locator('#f-url-error').innerText(), /must be an https:\/\/ URL/);
  assert.equal(await page.getByLabel('Payload URL').getAttribute('aria-describedby'), 'f-url-hint f-url-error');
  assert.equal(await page.getByLabel('Description').inputValue(), 'Ops receiver');

  await page.getByLabel('Payload URL').fill(receiver.url);
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await page.getByRole('heading', { name: 'Webhook created' }).waitFor();
  const secret = (await page.locator('#webhook-secret').innerText()).trim();
  assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
  assert.match(await page.locator('.signing').innerText(), /webhook-signature[\s\S]*HMAC-SHA256[\s\S]*standardwebhooks/);
  await checkPage(tp, 'webhook-created');

  await page.getByRole('link', { name: 'Continue to the webhook' }).click();
  await page.getByRole('heading', { name: 'Recent deliveries' }).waitFor();
  assert.ok(!(await page.content()).includes(secret), 'the secret is not shown again');
  const detailUrl = page.url();

  // A test ping, held by the receiver: pending (live) at first, then its answer without a reload.
  let release!: () => void;
  receiver.state.hold = new Promise<void>((resolve) => (release = resolve));
  await page.getByRole('button', { name: 'Send a test ping' }).click();
  await page.getByText('Test ping queued').waitFor();
  await page.locator('#deliveries[data-live]').waitFor();
  await page.evaluate(() => ((globalThis as unknown as { stayed: boolean }).stayed = true));
  await waitFor('the ping reaches the receiver', async () => (receiver.received.length >= 1 ? true : undefined));
  release();
  receiver.state.hold = undefined;
  await page.locator('#deliveries .delivery-answer', { hasText: 'HTTP 200' }).waitFor();
  assert.equal(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed), true, 'updated in place, not reloaded');
  assert.equal(await page.locator('#deliveries[data-live]').count(), 0, 'the history stops refreshing once nothing is pending');
  const ping = receiver.received[0]!;
  const verified = new Webhook(secret).verify(ping.body, ping.headers) as { type: string };
  assert.equal(verified.type, 'ping');
  // The hand-written check the page shows works too, and refuses a changed body.
  const example = path.join(server.dataDir, 'verify-example.mjs');
  writeFileSync(example, NODE_EXAMPLE);
  process.env.RAMPART_WEBHOOK_SECRET = secret;
  const { isFromRampart } = (await import(pathToFileURL(example).href)) as { isFromRampart: (headers: Record<string, string>, body: string) => boolean };
  delete process.env.RAMPART_WEBHOOK_SECRET;
  assert.equal(isFromRampart(ping.headers, ping.body), true);
  assert.equal(isFromRampart(ping.headers, `${ping.body} `), false);
  await page.locator('#deliveries summary').first().click();
  await page.locator('#deliveries pre', { hasText: 'answer 200' }).waitFor();
  assert.match(await page.locator('#deliveries pre').first().innerText(), /"type": "ping"/);
  await checkPage(tp, 'webhook-detail');

  // Edit: scan.completed only.
  await page.getByLabel('scan.failed').uncheck();
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Webhook saved.').waitFor();
  assert.deepEqual(await page.locator('dl.details code.event').allInnerTexts(), ['scan.completed']);
  assert.equal(await page.getByLabel('scan.failed').isChecked(), false);

  // Rotate (after a confirmation): a new secret, which signs the next ping; the old one no longer verifies.
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Rotate secret' }).click();
  await page.getByRole('heading', { name: 'New signing secret' }).waitFor();
  const rotated = (await page.locator('#webhook-secret').innerText()).trim();
  assert.match(rotated, /^whsec_/);
  assert.notEqual(rotated, secret);
  await page.goto(detailUrl);
  await page.getByRole('button', { name: 'Send a test ping' }).click();
  await page.getByText('Test ping queued').waitFor();
  await waitFor('the second ping', async () => (receiver.received.length >= 2 ? true : undefined));
  const second = receiver.received[1]!;
  new Webhook(rotated).verify(second.body, second.headers);
  assert.throws(() => new Webhook(secret).verify(second.body, second.headers), /signature/i);

  // Another account's webhook: the 404 page.
  const stranger = await newPage(t, server);
  await signInAs(server, stranger);
  const foreign = await stranger.page.goto(detailUrl);
  assert.equal(foreign?.status(), 404);
  await stranger.page.getByRole('heading', { name: 'Page not found' }).waitFor();

  await page.goto('/webhooks');
  await page.getByRole('link', { name: receiver.url }).waitFor();
  assert.match(await page.locator('tbody tr').innerText(), /Active/);
  await checkPage(tp, 'webhooks-list');

  // Delete, after the confirmation page.
  await page.goto(detailUrl);
  await page.getByRole('link', { name: 'Delete' }).click();
  await page.getByRole('heading', { name: 'Delete this webhook?' }).waitFor();
  await page.getByRole('button', { name: 'Delete webhook' }).click();
  await page.getByText('Webhook deleted').waitFor();
  await page.getByText('No webhooks yet').waitFor();
  assert.equal((await page.goto(detailUrl))?.status(), 404);
});

/** A scan made through the API; returns its uuid. */
async function newScan(server: WebServer, auth: { authorization: string }, body: Record<string, unknown>): Promise<string> {
  const res = await server.app.inject({ method: 'POST', url: '/api/new-scan', headers: auth, payload: { scan_time_zone: 'UTC', scan_email: 'ops@example.com', ...body } });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { uuid: string }).uuid;
}

test('the dashboard in Chromium: counts as the API counts them, KEV-listed findings, scans due next, live runs; and empty', async (t) => {
  if (!requireChromium(t)) return;
  if (SAMPLES_SKIP) return t.skip(SAMPLES_SKIP);
  const server = await startWebServer(t);
  const { db } = server.store;

  // Empty: every box says what to do, and that no vulnerability database is loaded.
  const empty = await newPage(t, server);
  await signInAs(server, empty);
  await empty.page.goto('/');
  for (const text of ['No open findings', 'Nothing new to look at', 'No vulnerability database loaded', 'No scan scheduled', 'No run in progress']) await empty.page.getByText(text).waitFor();
  assert.match(await empty.page.locator('#known-exploited').innerText(), /rampart vulndb sync/);
  await checkPage(empty, 'dashboard-empty');

  // A pro account: an OpenVAS report uploaded to an Unmanaged scan, the KEV catalog loaded, a
  // scan scheduled next year, and a run queued now (no worker runs here, so it waits).
  const tp = await newPage(t, server);
  const user = await signInAs(server, tp, { role: 'pro' });
  const auth = await bearer(server.app, db, user);
  const kev = JSON.parse(readFileSync(path.join(SHARED_DIR, 'vulndb', 'kev', 'known_exploited_vulnerabilities.json'), 'utf8')) as { vulnerabilities: { cveID: string; vendorProject: string; product: string; vulnerabilityName: string; dateAdded: string }[] };
  await insertKev(db, kev.vulnerabilities.map((v) => ({ cve: v.cveID, vendor_project: v.vendorProject, product: v.product, vulnerability_name: v.vulnerabilityName, date_added: v.dateAdded, due_date: null, known_ransomware_campaign_use: null })));
  const imported = await newScan(server, auth, { scan_name: 'Office network', scan_type: 'OpenVas', scan_frequency: 'Unmanaged', scan_target: '10.0.0.0/24' });
  const upload = await server.app.inject({
    method: 'POST',
    url: `/api/scans/${imported}/results`,
    headers: { ...auth, 'content-type': 'application/xml' },
    payload: readFileSync(path.join(SAMPLES_DIR, 'openvas', 'many_vuln.xml')),
  });
  assert.equal(upload.statusCode, 201, upload.body);
  const nextYear = new Date().getUTCFullYear() + 1;
  const scheduled = await newScan(server, auth, { scan_name: 'Weekly perimeter', scan_type: 'Rampart', scan_frequency: 'Weekly', scan_target: '127.0.0.1', scan_start_date: `${nextYear}-03-02`, scan_start_time: '6:00 AM' });
  const queued = await newScan(server, auth, { scan_name: 'Right now', scan_type: 'Rampart', scan_frequency: 'One-time', scan_target: '127.0.0.1' });

  await tp.page.goto('/');
  await tp.page.getByRole('heading', { name: 'Open findings by threat' }).waitFor();
  for (const threat of ['Critical', 'High', 'Medium', 'Low', 'Informational']) {
    const api = await server.app.inject({ method: 'GET', url: `/api/vulnerabilities?per_page=1&status=Unresolved&severity=${threat}`, headers: auth });
    const expected = (api.json() as { meta: { total: number } }).meta.total;
    const link = tp.page.locator(`a.threat-count[href="/vulnerabilities?severity=${threat}&status=Unresolved"]`);
    assert.equal(await link.locator('.value').innerText(), String(expected), threat);
  }
  assert.equal(await tp.page.locator('a.count-critical .value').innerText(), '8', 'the sample holds 8 Critical findings');
  assert.equal(await tp.page.locator('#newest-findings li').count(), 8);
  assert.match((await tp.page.locator('#newest-findings a[href^="/vulnerabilities/"]').first().getAttribute('href')) ?? '', /^\/vulnerabilities\/\d+$/);
  assert.match(await tp.page.locator('#known-exploited').innerText(), /CVE-2012-1823/);
  await tp.page.locator(`#scans-due a[href="/scans/${scheduled}"]`, { hasText: 'Weekly perimeter' }).waitFor();
  assert.match(await tp.page.locator('#scans-due').innerText(), new RegExp(`Next run .*${nextYear}|Mar`));

  // The queued run keeps its box live: its progress appears without a reload.
  await tp.page.locator('#runs-in-progress[data-live]', { hasText: 'Right now' }).waitFor();
  await tp.page.evaluate(() => ((globalThis as unknown as { stayed: boolean }).stayed = true));
  const scan = await requireScan(db, user.id, queued);
  const run = await findCurrentRun(db, scan.id);
  assert.ok(run);
  assert.equal(await recordProgress(db, run.id, null, { percent: 40 }), true);
  await tp.page.locator('#runs-in-progress', { hasText: 'Running 40%' }).waitFor();
  assert.equal(await tp.page.locator('#runs-in-progress progress').getAttribute('value'), '40');
  assert.equal(await tp.page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed), true, 'updated in place');
  await checkPage(tp, 'dashboard');
});
