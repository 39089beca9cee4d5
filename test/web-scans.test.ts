/**
 * The scan pages (issue 17, "Scans"): the status codes and bad paths through app.inject, and the
 * flows in Chromium against a listening Rampart whose in-process worker runs stand-in engines. A
 * gated engine holds each run until the test lets it go, so the live regions are seen moving from
 * queued or running to completed without a reload.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test, type TestContext } from 'node:test';
import type { Engine, EngineJob } from '../src/engines/engine.js';
import { createUser } from '../src/accounts/users.service.js';
import { startSession } from '../src/accounts/sessions.service.js';
import { showScan } from '../src/scans/scans.service.js';
import { cookieNames } from '../src/web/web-context.js';
import { checkPage, closeBrowser, newPage, requireChromium, signInAs, startWebServer, type TestPage, type WebServer } from './helpers/browser.js';
import { finding, HOST, scriptedEngine } from './helpers/scripted-engines.js';
import { SAMPLES_DIR, SAMPLES_SKIP } from './helpers/scan-samples.js';

after(closeBrowser);

const here = path.dirname(new URL(import.meta.url).pathname);
const LOGIN_FIXTURE = path.resolve(here, here.includes(`${path.sep}dist${path.sep}`) ? '../../test/fixtures/login' : 'fixtures/login', 'selenium-ide.py');

/** Holds runs at a gate until released (or until the run is cancelled). */
function runGate() {
  let open: () => void = () => {};
  let opened = Promise.resolve();
  return {
    hold(): void {
      opened = new Promise((resolve) => (open = resolve));
    },
    release(): void {
      open();
    },
    wait(signal: AbortSignal): Promise<void> {
      const waiting = opened;
      return new Promise((resolve) => {
        void waiting.then(resolve);
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    },
  };
}

/** A stand-in engine: one host up, 40 % progress, then (once the gate opens) two findings. */
function gatedEngine(name: string, gate: ReturnType<typeof runGate>): Engine {
  return {
    name,
    version: '1.0.0-test',
    async *run(job: EngineJob) {
      yield { type: 'host', hostname: HOST, address: HOST, state: 'up' };
      yield { type: 'progress', percent: 40 };
      await gate.wait(job.signal);
      yield { type: 'finding', finding: finding('test:open-port', { threat: 'High', cvssBase: 7.5 }) };
      yield { type: 'finding', finding: finding('test:weak-tls', { port: 8443 }) };
    },
  };
}

/** A listening Rampart with a worker; `nuclei: false` leaves Nuclei to the registry (no templates: not available). */
async function scanServer(t: TestContext, options: { nuclei?: boolean; agentBundle?: string } = {}): Promise<{ server: WebServer; gate: ReturnType<typeof runGate> }> {
  const gate = runGate();
  const rampart = gatedEngine('rampart', gate);
  const nuclei = options.nuclei === false ? {} : { Nuclei: scriptedEngine('nuclei', { next: { findings: [] } }) };
  const server = await startWebServer(t, {
    background: {},
    env: { RAMPART_WORKER_POLL_MS: '20' },
    engines: { Rampart: rampart, OpenVas: rampart, ZAP: scriptedEngine('zap', { next: { findings: [] } }), ...nuclei },
    ...(options.agentBundle ? { config: { localAgent: { credentialDays: 30, leaseSeconds: 120, bundlePath: options.agentBundle } } } : {}),
  });
  // A held run must not keep the worker from stopping.
  t.after(() => gate.release());
  return { server, gate };
}

/** A signed-in account for app.inject: its session cookie and CSRF token. */
async function injectSession(server: WebServer, role = 'premium') {
  const user = await createUser(server.store.db, { email: `inject-${Math.random().toString(16).slice(2, 10)}@example.com`, password: 'a long enough password for tests', role, emailVerified: true });
  const session = await startSession(server.store.db, user, { idleMinutes: 60, maxHours: 2 }, {});
  const cookie = `${cookieNames(false).session}=${session.token}`;
  const page = await server.app.inject({ method: 'GET', url: '/scans', headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
  assert.ok(csrf, 'the page carries a CSRF token');
  return { user, cookie, csrf };
}

/** A multipart body of text fields (and files) as a browser sends it. */
function multipart(fields: Record<string, string>, files: Record<string, { name: string; content: string | Buffer }> = {}) {
  const boundary = '----rampart-test-boundary';
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  for (const [name, file] of Object.entries(files)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    chunks.push(Buffer.isBuffer(file.content) ? file.content : Buffer.from(file.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

const NEW_SCAN = { scan_name: 'Inject scan', scan_type: 'Rampart', scan_target: HOST, scan_frequency: 'One-time', scan_start_date: '', scan_start_time: '', scan_time_zone: 'UTC', scan_email: 'ops@example.com', intent: 'save' };

test('scan pages: sign-in required, CSRF required, 422 with the fields kept, another account gets 404, report formats', async (t) => {
  const { server } = await scanServer(t);
  const anonymous = await server.app.inject({ method: 'GET', url: '/scans' });
  assert.equal(anonymous.statusCode, 303);
  assert.equal(anonymous.headers.location, '/sign-in?next=%2Fscans');

  const owner = await injectSession(server);
  const empty = await server.app.inject({ method: 'GET', url: '/scans', headers: { cookie: owner.cookie } });
  assert.equal(empty.statusCode, 200);
  assert.match(empty.body, /No scans yet/);
  assert.match(empty.body, /href="\/scans\/new"/);

  const body = multipart(NEW_SCAN);
  const noToken = await server.app.inject({ method: 'POST', url: '/scans/new', headers: { cookie: owner.cookie, 'content-type': body.contentType }, payload: body.payload });
  assert.equal(noToken.statusCode, 403);
  assert.match(noToken.headers['content-type'] as string, /text\/html/);

  const bad = multipart({ ...NEW_SCAN, scan_name: '', scan_target: 'https://example.com/', scan_email: 'not-an-email' });
  const refused = await server.app.inject({ method: 'POST', url: `/scans/new?_csrf=${owner.csrf}`, headers: { cookie: owner.cookie, 'content-type': bad.contentType }, payload: bad.payload });
  assert.equal(refused.statusCode, 422);
  assert.match(refused.body, /id="f-scan_name-error"[^>]*>The scan name field is required\./);
  assert.match(refused.body, /id="f-scan_target-error"[^>]*>[^<]*has a scheme/);
  assert.match(refused.body, /id="f-scan_email-error"[^>]*>The scan email field must be a valid email address\./);
  assert.match(refused.body, /https:\/\/example\.com\/<\/textarea>/, 'the targets typed are kept');

  // A login script over the deployment's limit: refused beside the file field, the fields after it still read.
  const max = server.config.loginScriptMaxBytes;
  const big = multipart({ ...NEW_SCAN, scan_type: 'ZAP', scan_target: `http://${HOST}/`, zap_authenticated: '1' }, { zap_login_script: { name: 'login.py', content: Buffer.alloc(max + 1, 'a') } });
  const tooBig = await server.app.inject({
    method: 'POST',
    url: `/scans/new?_csrf=${owner.csrf}`,
    headers: { cookie: owner.cookie, 'content-type': big.contentType },
    payload: Buffer.concat([big.payload.subarray(0, big.payload.lastIndexOf(Buffer.from('------rampart-test-boundary--'))), Buffer.from('------rampart-test-boundary\r\nContent-Disposition: form-data; name="scan_name"\r\n\r\nNamed after the file\r\n------rampart-test-boundary--\r\n')]),
  });
  assert.equal(tooBig.statusCode, 422);
  assert.match(tooBig.body, new RegExp(`id="f-zap_login_script-error"[^>]*>The zap login script must not be larger than ${max} bytes\\.`));
  assert.match(tooBig.body, /The file you chose was not kept: choose it again\./);
  assert.match(tooBig.body, /value="Named after the file"/, 'a field after the file is read');

  const good = multipart(NEW_SCAN);
  const created = await server.app.inject({ method: 'POST', url: `/scans/new?_csrf=${owner.csrf}`, headers: { cookie: owner.cookie, 'content-type': good.contentType }, payload: good.payload });
  assert.equal(created.statusCode, 303, created.body);
  const uuid = /^\/scans\/([0-9a-f-]{36})$/.exec(created.headers.location as string)?.[1];
  assert.ok(uuid, `redirected to the scan page: ${created.headers.location}`);

  const other = await injectSession(server);
  for (const url of [`/scans/${uuid}`, `/scans/${uuid}/edit`, `/scans/${uuid}/delete`, `/scans/${uuid}/report.pdf?run_index=0`, '/scans/not-a-uuid']) {
    const res = await server.app.inject({ method: 'GET', url, headers: { cookie: other.cookie } });
    assert.equal(res.statusCode, 404, url);
    assert.match(res.headers['content-type'] as string, /text\/html/, url);
  }
  const foreignDelete = await server.app.inject({ method: 'POST', url: `/scans/${uuid}/delete`, headers: { cookie: other.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: `_csrf=${other.csrf}` });
  assert.equal(foreignDelete.statusCode, 404);
  assert.ok(await showScan(server.store.db, owner.user.id, uuid), 'the scan is still there');

  const unknownFormat = await server.app.inject({ method: 'GET', url: `/scans/${uuid}/report.docx`, headers: { cookie: owner.cookie } });
  assert.equal(unknownFormat.statusCode, 404);

  // Preview: the form again with the next runs, nothing stored.
  const preview = multipart({ ...NEW_SCAN, intent: 'preview', scan_frequency: 'Weekly', scan_start_date: '2099-01-05', scan_start_time: '09:30', scan_time_zone: 'Europe/Berlin' });
  const previewed = await server.app.inject({ method: 'POST', url: `/scans/new?_csrf=${owner.csrf}`, headers: { cookie: owner.cookie, 'content-type': preview.contentType }, payload: preview.payload });
  assert.equal(previewed.statusCode, 200);
  assert.match(previewed.body, /2099-01-05 09:30 GMT\+1/);
  assert.match(previewed.body, /2099-01-12 09:30 GMT\+1/);
  const list = await server.app.inject({ method: 'GET', url: '/scans', headers: { cookie: owner.cookie } });
  assert.equal((list.body.match(/href="\/scans\/[0-9a-f-]{36}"/g) ?? []).length, 1, 'the preview stored no scan');

  // Saved, the same schedule is on the scan page, server-rendered in the scan's zone.
  const weekly = multipart({ ...NEW_SCAN, scan_name: 'Weekly', scan_frequency: 'Weekly', scan_start_date: 'Jan 5, 2099', scan_start_time: '9:30 AM', scan_time_zone: 'Europe/Berlin' });
  const saved = await server.app.inject({ method: 'POST', url: `/scans/new?_csrf=${owner.csrf}`, headers: { cookie: owner.cookie, 'content-type': weekly.contentType }, payload: weekly.payload });
  assert.equal(saved.statusCode, 303, saved.body);
  const weeklyPage = await server.app.inject({ method: 'GET', url: saved.headers.location as string, headers: { cookie: owner.cookie } });
  assert.match(weeklyPage.body, /<ol class="upcoming">.*2099-01-05 09:30 GMT\+1.*2099-01-12 09:30 GMT\+1.*2099-02-02 09:30 GMT\+1/s);
  assert.match(weeklyPage.body, /The first run starts at the scheduled time\./);
  assert.doesNotMatch(weeklyPage.body, /data-live=/, 'nothing moves: no live region');

  // Its edit form shows the API's free-form start in the date and time inputs' forms; saving a new name keeps the schedule.
  const weeklyUuid = (saved.headers.location as string).split('/').pop()!;
  const edit = await server.app.inject({ method: 'GET', url: `/scans/${weeklyUuid}/edit`, headers: { cookie: owner.cookie } });
  assert.match(edit.body, /name="scan_start_date"[^>]*value="2099-01-05"|value="2099-01-05"[^>]*name="scan_start_date"/);
  assert.match(edit.body, /name="scan_start_time"[^>]*value="09:30"|value="09:30"[^>]*name="scan_start_time"/);
  const renamed = multipart({ ...NEW_SCAN, scan_name: 'Weekly, renamed', scan_frequency: 'Weekly', scan_start_date: '2099-01-05', scan_start_time: '09:30', scan_time_zone: 'Europe/Berlin' });
  const update = await server.app.inject({ method: 'POST', url: `/scans/${weeklyUuid}/edit?_csrf=${owner.csrf}`, headers: { cookie: owner.cookie, 'content-type': renamed.contentType }, payload: renamed.payload });
  assert.equal(update.statusCode, 303, update.body);
  const renamedScan = await showScan(server.store.db, owner.user.id, weeklyUuid);
  assert.equal(renamedScan.scan_name, 'Weekly, renamed');
  assert.equal(renamedScan.scan_start_date, 'Jan 5, 2099', 'an unchanged start is not sent');
  assert.equal(renamedScan.next_run_at, '2099-01-05T08:30:00.000Z');
});

/** Fills the new-scan form and submits it; returns the new scan's uuid from the page it lands on. */
async function createThroughForm(tp: TestPage, fields: { name: string; type: string; targets: string; frequency?: string; script?: string }): Promise<string> {
  const { page } = tp;
  await page.goto('/scans/new');
  await page.getByLabel('Name').fill(fields.name);
  await page.locator(`#f-scan_type-${fields.type}`).check();
  await page.getByLabel('Targets').fill(fields.targets);
  if (fields.frequency) await page.getByLabel('Frequency').selectOption(fields.frequency);
  if (fields.script) {
    await page.getByLabel('Log in before scanning').check();
    await page.getByLabel('Login script').setInputFiles(fields.script);
  }
  // Enter in a field saves, as the button does (the form's first submit button is the schedule preview).
  if (fields.type === 'Nuclei') await page.getByLabel('Name').press('Enter');
  else await page.getByRole('button', { name: 'Create scan' }).click();
  await page.waitForURL(/\/scans\/[0-9a-f-]{36}$/);
  await page.getByText(`Scan “${fields.name}” created.`).waitFor();
  return /\/scans\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
}

test('scan pages in a browser: create each type, watch runs finish live, reports, rerun, edit, delete, 404 for another account', async (t) => {
  if (!requireChromium(t)) return;
  const { server, gate } = await scanServer(t);
  const tp = await newPage(t, server);
  const user = await signInAs(server, tp, { role: 'premium' });
  const { page } = tp;

  await page.goto('/scans');
  await page.getByText('No scans yet').waitFor();

  // A Rampart scan, held at its gate: the list shows it moving, then completed without a reload.
  gate.hold();
  const uuid = await createThroughForm(tp, { name: 'Loopback network', type: 'Rampart', targets: HOST });
  await page.goto('/scans');
  const table = page.locator('#scans-table');
  await table.getByText(/Queued|Running 40%/).waitFor();
  assert.equal(await table.getAttribute('data-live'), '2000');
  await page.evaluate(() => ((globalThis as { notReloaded?: boolean }).notReloaded = true));
  gate.release();
  await page.locator('#scans-table').getByText('Completed').waitFor();
  assert.equal(await page.locator('#scans-table').getAttribute('data-live'), null, 'the list stops refreshing once nothing moves');
  assert.equal(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded), true, 'the page was not reloaded');
  await checkPage(tp, 'scans-list');

  // The scan page: the run with its lifecycle counts; reports in the five formats.
  await page.goto(`/scans/${uuid}`);
  const runs = page.locator('#runs');
  await runs.getByText('2 new · 0 still open · 0 fixed · 0 regressed').waitFor();
  await page.getByText(user.email).first().waitFor();
  await checkPage(tp, 'scan-detail');
  const expected: Record<string, { type: RegExp; starts: string }> = {
    pdf: { type: /^application\/pdf/, starts: '%PDF' },
    csv: { type: /^text\/csv/, starts: '' },
    html: { type: /^text\/html/, starts: '<' },
    txt: { type: /^text\/plain/, starts: '' },
    xml: { type: /^application\/xml/, starts: '<?xml' },
  };
  for (const [format, want] of Object.entries(expected)) {
    const [download] = await Promise.all([page.waitForEvent('download'), runs.getByRole('link', { name: `${format.toUpperCase()} report of run 0` }).click()]);
    assert.equal(download.suggestedFilename(), `rampart-loopback-network-run-0.${format}`);
    const bytes = await readFile((await download.path())!);
    const text = bytes.subarray(0, 200).toString('latin1');
    assert.ok(text.startsWith(want.starts), `${format} starts with ${want.starts}: ${text.slice(0, 40)}`);
    if (format === 'csv') assert.match(text.split('\n')[0]!, /name/i);
    if (format === 'html') assert.match(text, /<html/i);
    if (format === 'txt') assert.match(bytes.toString('utf8'), /Loopback network/);
    const response = await page.request.get(`/scans/${uuid}/report.${format}?run_index=0`);
    assert.match(response.headers()['content-type'] ?? '', want.type, format);
    assert.match(response.headers()['content-disposition'] ?? '', new RegExp(`attachment; filename="rampart-loopback-network-run-0\\.${format}"`));
  }

  // Rerun: queued (held), and a second rerun while it runs is refused with the 409's sentence.
  gate.hold();
  await page.getByRole('button', { name: 'Run now' }).click();
  await page.getByText('Run 1 queued.').waitFor();
  assert.equal(await runs.getAttribute('data-live'), '2000');
  await page.getByRole('button', { name: 'Run now' }).click();
  await page.getByRole('alert').getByText(/already has a run in progress \(run 1\)/).waitFor();
  await page.evaluate(() => ((globalThis as { notReloaded?: boolean }).notReloaded = true));
  gate.release();
  await page.locator('#runs').getByText('0 new · 2 still open · 0 fixed · 0 regressed').waitFor();
  assert.equal(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded), true, 'the runs refreshed in place');

  // Edit the name.
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.getByRole('heading', { name: 'Edit Loopback network' }).waitFor();
  await checkPage(tp, 'scan-edit');
  await page.getByLabel('Name').fill('Loopback network, renamed');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Scan updated.').waitFor();
  await page.getByRole('heading', { name: 'Loopback network, renamed', level: 1 }).waitFor();

  // Every other type this deployment serves; the ZAP one authenticated with an uploaded script.
  const zap = await createThroughForm(tp, { name: 'Web app', type: 'ZAP', targets: `http://${HOST}:8080/`, script: LOGIN_FIXTURE });
  await page.getByText('Yes (login script stored)').waitFor();
  const stored = await showScan(server.store.db, user.id, zap);
  assert.equal(stored.zap_authenticated, true);
  assert.ok(stored.zap_login_script);
  // Edit: the stored login script removed turns authentication off.
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.getByLabel('Remove the stored login script').check();
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Scan updated.').waitFor();
  await page.getByText('Authenticated').waitFor();
  assert.equal((await showScan(server.store.db, user.id, zap)).zap_authenticated, false);

  // Another account's browser: the scan's URL is the 404 page.
  const intruder = await newPage(t, server);
  await signInAs(server, intruder, { role: 'premium' });
  const foreign = await intruder.page.goto(`/scans/${zap}`);
  assert.equal(foreign?.status(), 404);
  await intruder.page.getByRole('heading', { name: /not found/i }).waitFor();
  assert.equal(await intruder.page.getByText('Web app').count(), 0);

  await createThroughForm(tp, { name: 'Templates', type: 'Nuclei', targets: HOST });
  await page.locator('#runs .status-completed').waitFor();
  await createThroughForm(tp, { name: 'Greenbone', type: 'OpenVas', targets: HOST });
  await page.locator('#runs .status-completed').waitFor();

  // Delete with confirmation.
  await page.goto(`/scans/${uuid}`);
  await page.getByRole('link', { name: 'Delete' }).click();
  await page.getByText('its 2 runs and their reports;').waitFor();
  await checkPage(tp, 'scan-delete');
  await page.getByRole('button', { name: 'Delete scan' }).click();
  await page.waitForURL(/\/scans$/);
  await page.getByText('Scan “Loopback network, renamed” deleted.').waitFor();
  assert.equal(await page.locator('#scans-table').getByText('Loopback network').count(), 0);
  await assert.rejects(showScan(server.store.db, user.id, uuid), /not found/i);
});

test('scan form in a browser: errors beside their fields with the input kept; trial plan limits and unavailable types shown', async (t) => {
  if (!requireChromium(t)) return;
  const { server } = await scanServer(t, { nuclei: false });
  const tp = await newPage(t, server);
  await signInAs(server, tp, { role: 'trial' });
  const { page } = tp;
  await page.goto('/scans/new');

  // Nuclei without templates: offered disabled, with the registry's reason.
  const nuclei = server.app.ctx.engines.forScanType('Nuclei');
  assert.equal(nuclei.available, false, 'a fresh data directory has no nuclei templates');
  assert.equal(await page.locator('#f-scan_type-Nuclei').isDisabled(), true);
  await page.getByText(`Not available on this deployment: ${nuclei.available ? '' : nuclei.reason}`).waitFor();
  assert.equal(await page.locator('#f-scan_type-ZAP').isDisabled(), false);

  // Trial: the narrative and Unmanaged are there, disabled, saying which plan they need.
  assert.equal(await page.getByLabel('Attack narrative in the report').isDisabled(), true);
  await page.getByText('Attack narratives need the premium, pro or admin plan (your plan: trial).').waitFor();
  assert.equal(await page.locator('#f-scan_frequency option[value="Unmanaged"]').isDisabled(), true);
  await page.getByText('Unmanaged (internal network) scans need the pro or admin plan (your plan: trial).').waitFor();

  // The help of the chosen type only (the script hides the others).
  await page.locator('#f-scan_type-ZAP').check();
  await page.getByText('ZAP: full http(s) URLs').waitFor();
  assert.equal(await page.getByText('Rampart and OpenVAS: host names').isVisible(), false);
  await page.locator('#f-scan_type-Rampart').check();
  await page.getByText('Rampart and OpenVAS: host names').waitFor();

  // The schedule preview, in place.
  await page.getByLabel('Frequency').selectOption('Daily');
  await page.getByLabel('Start date').fill('2099-03-01');
  await page.getByLabel('Start time').fill('21:30');
  await page.getByLabel('Time zone').selectOption('America/New_York');
  await page.getByRole('button', { name: 'Preview schedule' }).click();
  await page.locator('#schedule-preview').getByText('2099-03-02 21:30 EST').waitFor();

  // An empty name and a URL for a Rampart scan: 422, each message beside its field, input kept.
  await page.getByLabel('Frequency').selectOption('One-time');
  await page.getByLabel('Start date').fill('');
  await page.getByLabel('Start time').fill('');
  await page.getByLabel('Targets').fill('https://example.com/login');
  const [response] = await Promise.all([page.waitForResponse((r) => r.url().includes('/scans/new') && r.request().method() === 'POST'), page.getByRole('button', { name: 'Create scan' }).click()]);
  assert.equal(response.status(), 422);
  await page.locator('#f-scan_name-error').getByText('The scan name field is required.').waitFor();
  await page.locator('#f-scan_target-error').getByText(/has a scheme/).waitFor();
  assert.equal(await page.getByLabel('Targets').inputValue(), 'https://example.com/login');
  assert.equal(await page.getByLabel('Time zone').inputValue(), 'America/New_York');
  assert.equal(await page.getByLabel('Name').getAttribute('aria-invalid'), 'true');
  await checkPage(tp, 'scans-new');
});

test('Unmanaged scan (pro): the agent downloaded by a form, a results upload records a run with its findings', async (t) => {
  if (!requireChromium(t)) return;
  if (SAMPLES_SKIP) return t.skip(SAMPLES_SKIP);
  const bundleDir = await mkdtemp(path.join(tmpdir(), 'rampart-agent-'));
  t.after(() => rm(bundleDir, { recursive: true, force: true }));
  const bundle = path.join(bundleDir, 'agent.cjs');
  await writeFile(bundle, 'console.log("stub agent");\n');
  const { server } = await scanServer(t, { agentBundle: bundle });
  const tp = await newPage(t, server);
  await signInAs(server, tp, { role: 'pro' });
  const { page } = tp;
  await createThroughForm(tp, { name: 'Office network', type: 'OpenVas', targets: '10.20.0.0/24', frequency: 'Unmanaged' });
  await page.getByText("A new download revokes the previous agent of this scan. The agent's credential expires 30 days after the download.").waitFor();
  // A POST form (a download revokes the previous agent): no link a browser could prefetch.
  assert.equal(await page.locator('a[href$="/agent"]').count(), 0, 'no link to the agent endpoint');
  assert.equal(await page.getByRole('button', { name: 'Run now' }).count(), 0);
  assert.equal(await page.getByRole('button', { name: 'Queue a run for the agent' }).count(), 1);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the agent' }).click()]);
  assert.match(download.suggestedFilename(), /^rampart-agent-[0-9a-f]{8}\.js$/);
  const script = await readFile((await download.path())!, 'utf8');
  assert.match(script, /^globalThis\.RAMPART_AGENT = \{"baseUrl":"http:\/\/127\.0\.0\.1:\d+","scanUuid":"[0-9a-f-]{36}","scanName":"Office network","credential":"ragt_/m);
  assert.ok(script.endsWith('console.log("stub agent");\n'));

  // A file the importers cannot read: the error beside the file field.
  await page.getByLabel('Results file').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('just some words\n') });
  await page.getByRole('button', { name: 'Upload results' }).click();
  await page.locator('#f-file-error').getByText(/no format Rampart reads/).waitFor();

  await page.getByLabel('Results file').setInputFiles(path.join(SAMPLES_DIR, 'nmap', 'nmap_multiple_port.xml'));
  await page.getByRole('button', { name: 'Upload results' }).click();
  await page.getByText(/Results imported: 13 findings from nmap 7\.12, recorded as run 0\./).waitFor();
  await page.locator('#runs').getByRole('cell', { name: '13', exact: true }).waitFor();
  await checkPage(tp, 'scan-unmanaged');
});
