/**
 * The vulnerability and target pages, black-box: findings seeded through the public surface (an
 * Unmanaged scan of a pro account and real scan outputs uploaded to POST /api/scans/{uuid}/results),
 * status codes and headers with app.inject, and the flows in Chromium: filter, search, sort, page
 * size, detail, triage one by one and in bulk, CSV export of the current filter, targets list,
 * target detail and deletion; another account's pages are 404 pages; a bad filter is a message.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, test, type TestContext } from 'node:test';
import { signUp, STORE_KIND } from './helpers/app.js';
import { checkPage, closeBrowser, newPage, requireChromium, signInAs, startWebServer, type TestPage, type WebServer } from './helpers/browser.js';
import { SAMPLES_DIR, SAMPLES_SKIP } from './helpers/scan-samples.js';
import { findUserById } from '../src/accounts/users.service.js';
import { startSession } from '../src/accounts/sessions.service.js';
import { cookieNames } from '../src/web/web-context.js';

after(closeBrowser);

type Account = Awaited<ReturnType<typeof signUp>>;
interface Vuln {
  id: number;
  name: string;
  threat: string;
  status: string;
  evidence: string;
  references: string[];
  target_id: number | null;
}
interface Target {
  id: number;
  target: string;
  vulnerabilities_count: number;
}

async function api<T = any>(server: WebServer, account: Account, url: string): Promise<{ status: number; body: T; headers: Record<string, unknown>; text: string }> {
  const res = await server.app.inject({ method: 'GET', url, headers: account.auth });
  return { status: res.statusCode, body: (res.headers['content-type'] ?? '').toString().includes('json') ? (res.json() as T) : (undefined as T), headers: res.headers, text: res.body };
}

/** An Unmanaged OpenVas scan of the account with the sample files uploaded as its runs. */
async function seed(server: WebServer, account: Account, samples: string[]): Promise<void> {
  const created = await server.app.inject({
    method: 'POST',
    url: '/api/new-scan',
    headers: account.auth,
    payload: { scan_name: 'Office network', scan_type: 'OpenVas', scan_frequency: 'Unmanaged', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: '10.0.0.0/24' },
  });
  assert.equal(created.statusCode, 200, created.body);
  const uuid = created.json().uuid as string;
  for (const sample of samples) {
    const body = await readFile(path.join(SAMPLES_DIR, sample));
    const res = await server.app.inject({ method: 'POST', url: `/api/scans/${uuid}/results`, headers: { ...account.auth, 'content-type': 'application/xml' }, payload: body });
    assert.equal(res.statusCode, 201, res.body);
  }
}

/** The ids of the finding rows a page shows, in order. */
async function rowIds(tp: TestPage): Promise<number[]> {
  const hrefs = await tp.page.locator('table.findings tbody tr a[href^="/vulnerabilities/"]').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
  return hrefs.map((href) => Number(href.split('/').pop()));
}

/** What GET /api/vulnerabilities answers for the query of a page's URL. */
async function apiIdsFor(server: WebServer, account: Account, pageUrl: string): Promise<number[]> {
  const params = new URL(pageUrl).searchParams;
  for (const [key, value] of [...params]) if (value === '') params.delete(key);
  const query = params.size > 0 ? `?${params.toString()}` : '';
  const res = await api<{ data: Vuln[] }>(server, account, `/api/vulnerabilities${query}`);
  assert.equal(res.status, 200, res.text);
  return res.body.data.map((v) => v.id);
}

test(`vulnerability and target pages (${STORE_KIND})`, async (t: TestContext) => {
  if (SAMPLES_SKIP) return t.skip(SAMPLES_SKIP);
  // Pages are limited like unauthenticated API calls (per address at the trial rate, assets
  // included): a browser test makes more requests in a minute than that allows.
  const server = await startWebServer(t);
  const owner = await signUp(server, { role: 'pro' });
  const other = await signUp(server, { role: 'pro' });
  // 44 OpenVAS findings on one host, 4 open ports on two nmap hosts; the other account one port.
  await seed(server, owner, ['openvas/many_vuln.xml', 'nmap/issue12411.xml']);
  await seed(server, other, ['nmap/nmap_1port.xml']);
  const all = (await api<{ meta: { total: number } }>(server, owner, '/api/vulnerabilities?per_page=1')).body.meta.total;
  assert.equal(all, 48);
  const otherVuln = (await api<{ data: Vuln[] }>(server, other, '/api/vulnerabilities')).body.data[0]!;
  const otherTarget = (await api<{ data: Target[] }>(server, other, '/api/targets')).body.data[0]!;
  const user = (await findUserById(server.store.db, owner.userId))!;
  const session = await startSession(server.store.db, user, { idleMinutes: 60, maxHours: 2 }, {});
  const cookie = `${cookieNames(false).session}=${session.token}`;
  const page = (url: string) => server.app.inject({ method: 'GET', url, headers: { cookie, accept: 'text/html' } });

  await t.test('status codes: sign-in first, 422 for bad filters with the API message, 404 for another account, CSRF refused', async () => {
    const anonymous = await server.app.inject({ method: 'GET', url: '/vulnerabilities?severity=High' });
    assert.equal(anonymous.statusCode, 303);
    assert.equal(anonymous.headers.location, `/sign-in?next=${encodeURIComponent('/vulnerabilities?severity=High')}`);
    const tooMany = await page('/vulnerabilities?per_page=1000&severity=Bogus');
    assert.equal(tooMany.statusCode, 422);
    assert.match(tooMany.body, /The per page field must not be greater than 100\./);
    assert.match(tooMany.body, /The selected severity is invalid\./);
    assert.match(tooMany.body, /value="1000"/, 'the typed value is kept');
    const empty = await page('/vulnerabilities?severity=&status=&search=&per_page=');
    assert.equal(empty.statusCode, 200, 'empty form fields mean no filter');
    assert.equal((await page('/targets?per_page=0')).statusCode, 422);
    assert.equal((await page('/targets?sort=nope')).statusCode, 422);
    const pastEnd = await page('/targets?page=9');
    assert.equal(pastEnd.statusCode, 200);
    assert.match(pastEnd.body, /This page is past the end of the list\./);
    assert.equal((await page(`/vulnerabilities/${otherVuln.id}`)).statusCode, 404);
    assert.equal((await page(`/targets/${otherTarget.id}`)).statusCode, 404);
    assert.equal((await page(`/targets/${otherTarget.id}/delete`)).statusCode, 404);
    assert.equal((await page('/vulnerabilities/not-a-number')).statusCode, 404);
    const noCsrf = await server.app.inject({ method: 'POST', url: '/vulnerabilities/bulk', headers: { cookie }, payload: { ids: String(otherVuln.id), action: 'accept' } });
    assert.equal(noCsrf.statusCode, 403);
    const exported = await page('/vulnerabilities/export.csv?severity=Critical');
    const apiExport = await api(server, owner, '/api/vulnerabilities/export?severity=Critical');
    assert.equal(exported.statusCode, 200);
    assert.match(String(exported.headers['content-type']), /^text\/csv/);
    assert.equal(exported.headers['x-rampart-min-qod'], apiExport.headers['x-rampart-min-qod']);
    assert.equal(exported.headers['x-rampart-hidden-findings'], apiExport.headers['x-rampart-hidden-findings']);
    assert.match(String(exported.headers['content-disposition']), /^attachment; filename="rampart-vulnerabilities-\d{4}-\d{2}-\d{2}\.csv"$/);
    assert.equal(exported.body, apiExport.text);
    assert.equal((await page('/vulnerabilities/export.csv?min_qod=101')).statusCode, 422);

    // Bulk triage: at most 1,000 ids; `back` only ever leads to the findings pages.
    const csrf = /name="_csrf" value="([^"]+)"/.exec((await page('/vulnerabilities')).body)![1]!;
    const post = (url: string, form: string) =>
      server.app.inject({ method: 'POST', url, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: `_csrf=${encodeURIComponent(csrf)}&${form}` });
    const tooLarge = await post('/vulnerabilities/bulk', `action=accept&${Array.from({ length: 1001 }, (_, i) => `ids=${i + 1}`).join('&')}`);
    assert.equal(tooLarge.statusCode, 422);
    assert.match(tooLarge.body, /Select at most 1,000 vulnerabilities at a time\./);
    const elsewhere = await post('/vulnerabilities/bulk', `action=accept&ids=${otherVuln.id}&back=${encodeURIComponent('https://evil.example/')}`);
    assert.equal(elsewhere.statusCode, 303);
    assert.equal(elsewhere.headers.location, '/vulnerabilities');
    const newline = await post('/vulnerabilities/bulk', `action=accept&ids=${otherVuln.id}&back=${encodeURIComponent('/vulnerabilities?a=1\r\nSet-Cookie: x=1')}`);
    assert.equal(newline.headers.location, '/vulnerabilities');
    const noAction = await post('/vulnerabilities/bulk', `action=delete&ids=${otherVuln.id}&back=${encodeURIComponent('/vulnerabilities?severity=High')}`);
    assert.equal(noAction.headers.location, '/vulnerabilities?severity=High');
    assert.equal((await api<{ data: Vuln }>(server, other, `/api/vulnerabilities/${otherVuln.id}`)).body.data.status, 'Unresolved', 'another account is never touched');
    assert.equal((await post(`/vulnerabilities/${otherVuln.id}/accept`, 'back=/vulnerabilities')).statusCode, 404);
    assert.equal((await post(`/targets/${otherTarget.id}/delete`, '')).statusCode, 404);
    assert.equal((await api(server, other, `/api/targets/${otherTarget.id}`)).status, 200);
  });

  if (!requireChromium(t)) return;

  await t.test('list: filter by threat and search, sort by a column, page size', async (st) => {
    const tp = await newPage(st, server);
    await signInAs(server, tp, { user });
    await tp.page.goto('/vulnerabilities');
    assert.equal((await rowIds(tp)).length, 10);
    assert.deepEqual(await rowIds(tp), await apiIdsFor(server, owner, `${server.url}/vulnerabilities`));
    await checkPage(tp, 'vulnerabilities-list');

    const critical = (await api<{ data: Vuln[] }>(server, owner, '/api/vulnerabilities?severity=Critical&per_page=100')).body.data;
    const word = critical[0]!.name.split(/\s+/).find((w) => w.length >= 5)!;
    await tp.page.getByLabel('Threat', { exact: true }).selectOption('Critical');
    await tp.page.getByLabel('Search').fill(word);
    await tp.page.getByRole('button', { name: 'Apply', exact: true }).click();
    await tp.page.waitForURL(/severity=Critical/);
    const url = new URL(tp.page.url());
    assert.equal(url.searchParams.get('search'), word, 'the URL carries the filters');
    assert.equal(url.searchParams.has('status'), false, 'and not the empty ones');
    const shown = await rowIds(tp);
    assert.ok(shown.length > 0);
    assert.deepEqual(shown, await apiIdsFor(server, owner, tp.page.url()));
    for (const badge of await tp.page.locator('table.findings tbody .badge:not(.kev)').allTextContents()) assert.equal(badge, 'Critical');

    await tp.page.goto('/vulnerabilities?severity=Medium');
    await tp.page.getByRole('link', { name: /^Name/ }).click();
    await tp.page.waitForURL(/sort=name/);
    assert.match(tp.page.url(), /direction=asc/);
    assert.equal(await tp.page.locator('th[aria-sort]').getAttribute('aria-sort'), 'ascending');
    assert.deepEqual(await rowIds(tp), await apiIdsFor(server, owner, tp.page.url()));
    const names = await tp.page.locator('table.findings tbody tr td:nth-child(4) a').allTextContents();
    assert.notDeepEqual(names, [], 'sorted rows shown');
    await tp.page.getByRole('link', { name: /^Name/ }).click();
    await tp.page.waitForURL(/direction=desc/);
    assert.equal(await tp.page.locator('th[aria-sort]').getAttribute('aria-sort'), 'descending');

    await tp.page.goto('/vulnerabilities');
    await tp.page.getByLabel('Per page').fill('25');
    await tp.page.getByRole('button', { name: 'Apply', exact: true }).click();
    await tp.page.waitForURL(/per_page=25/);
    assert.equal((await rowIds(tp)).length, 25);
    await tp.page.getByText(`1–25 of ${all}`).waitFor();
    await tp.page.getByRole('link', { name: 'Next' }).click();
    await tp.page.waitForURL(/page=2/);
    assert.equal((await rowIds(tp)).length, all - 25);

    const bad = await tp.page.goto('/vulnerabilities?per_page=1000');
    assert.equal(bad?.status(), 422);
    assert.equal(await tp.page.locator('#f-per_page-error').textContent(), 'The per page field must not be greater than 100.');
    assert.equal(await tp.page.getByLabel('Per page').inputValue(), '1000');

    await tp.page.goto('/vulnerabilities?search=no-such-finding-anywhere');
    await tp.page.getByText('No vulnerabilities match these filters.').waitFor();
    await tp.page.locator('.empty').getByRole('link', { name: 'Clear filters' }).click();
    await tp.page.waitForURL(`${server.url}/vulnerabilities`);
  });

  await t.test('detail, triage one by one, bulk false positive and undo, another account untouched', async (st) => {
    const tp = await newPage(st, server);
    await signInAs(server, tp, { user });
    const list = (await api<{ data: Vuln[] }>(server, owner, '/api/vulnerabilities?per_page=100')).body.data;
    const rich = list.find((v) => v.references.length > 0 && v.evidence)!;
    assert.ok(rich, 'a finding with evidence and references');
    await tp.page.goto(`/vulnerabilities/${rich.id}`);
    await tp.page.getByRole('heading', { level: 1, name: rich.name }).waitFor();
    assert.equal(await tp.page.locator('pre.evidence').textContent(), rich.evidence);
    const refLinks = tp.page.locator('ul.references a');
    assert.equal(await refLinks.count(), rich.references.filter((r) => /^https?:\/\//.test(r)).length);
    if ((await refLinks.count()) > 0) assert.equal(await refLinks.first().getAttribute('rel'), 'noreferrer noopener');
    await checkPage(tp, 'vulnerability-detail');

    await tp.page.getByRole('button', { name: 'Accept the risk' }).click();
    await tp.page.getByText('Vulnerability marked as accepted.').waitFor();
    assert.equal(new URL(tp.page.url()).pathname, `/vulnerabilities/${rich.id}`);
    assert.equal((await api<{ data: Vuln }>(server, owner, `/api/vulnerabilities/${rich.id}`)).body.data.status, 'Accepted');
    await tp.page.getByRole('button', { name: 'Undo (reset to unresolved)' }).click();
    await tp.page.getByText('Vulnerability status reset to unresolved.').waitFor();
    assert.equal((await api<{ data: Vuln }>(server, owner, `/api/vulnerabilities/${rich.id}`)).body.data.status, 'Unresolved');

    // A row's button on the list returns to the same list address.
    const listUrl = `${server.url}/vulnerabilities?severity=High&sort=name&direction=asc`;
    await tp.page.goto(listUrl);
    const firstId = (await rowIds(tp))[0]!;
    await tp.page.locator('table.findings tbody tr').first().getByRole('button', { name: /^Accept/ }).click();
    await tp.page.getByText('Vulnerability marked as accepted.').waitFor();
    assert.equal(tp.page.url(), listUrl);
    assert.equal((await api<{ data: Vuln }>(server, owner, `/api/vulnerabilities/${firstId}`)).body.data.status, 'Accepted');

    // Bulk: three Medium findings marked false positive.
    await tp.page.goto('/vulnerabilities?severity=Medium&per_page=5');
    const boxes = tp.page.locator('table.findings tbody input[name=ids]');
    const chosen = await rowIds(tp);
    for (let i = 0; i < 3; i++) await boxes.nth(i).check();
    await tp.page.getByLabel('With the selected vulnerabilities').selectOption('false-positive');
    await tp.page.getByRole('button', { name: 'Apply to selected' }).click();
    await tp.page.getByText('3 vulnerabilities set to False Positive.').waitFor();
    const fp = (await api<{ data: Vuln[]; meta: { total: number } }>(server, owner, '/api/vulnerabilities?status=False%20Positive')).body;
    assert.equal(fp.meta.total, 3);
    assert.deepEqual(fp.data.map((v) => v.id).sort(), chosen.slice(0, 3).sort());

    // Undo in bulk with the select-all box (the script), then a tampered id of another account.
    await tp.page.goto('/vulnerabilities?status=False+Positive');
    await tp.page.getByLabel('Select every vulnerability on this page').check();
    assert.equal(await tp.page.locator('table.findings tbody input[name=ids]:checked').count(), 3);
    await tp.page.getByLabel('With the selected vulnerabilities').selectOption('undo');
    await tp.page.getByRole('button', { name: 'Apply to selected' }).click();
    await tp.page.getByText('3 vulnerabilities set to Unresolved.').waitFor();
    assert.equal((await api<{ meta: { total: number } }>(server, owner, '/api/vulnerabilities?status=False%20Positive')).body.meta.total, 0);

    await tp.page.goto('/vulnerabilities?severity=Informational');
    await tp.page.locator('table.findings tbody input[name=ids]').first().check();
    await tp.page.evaluate((id) => {
      const box = document.createElement('input');
      Object.assign(box, { type: 'checkbox', name: 'ids', value: String(id), checked: true, hidden: true });
      document.getElementById('triage')!.append(box);
    }, otherVuln.id);
    await tp.page.getByLabel('With the selected vulnerabilities').selectOption('accept');
    await tp.page.getByRole('button', { name: 'Apply to selected' }).click();
    await tp.page.getByText('1 vulnerability set to Accepted. 1 not found.').waitFor();
    assert.equal((await api<{ data: Vuln }>(server, other, `/api/vulnerabilities/${otherVuln.id}`)).body.data.status, 'Unresolved');

    const notFound = await tp.page.goto(`/vulnerabilities/${otherVuln.id}`);
    assert.equal(notFound?.status(), 404);
    await tp.page.getByRole('heading', { level: 1 }).filter({ hasText: /not found/i }).waitFor();
  });

  await t.test('export CSV of the current filter', async (st) => {
    const tp = await newPage(st, server);
    await signInAs(server, tp, { user });
    await tp.page.goto('/vulnerabilities?severity=Medium&min_qod=0');
    const [download] = await Promise.all([tp.page.waitForEvent('download'), tp.page.getByRole('link', { name: 'Export CSV' }).click()]);
    const csv = await readFile((await download.path())!, 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    const header = lines[0]!.split(',');
    const threat = header.indexOf('threat');
    const medium = (await api<{ meta: { total: number } }>(server, owner, '/api/vulnerabilities?severity=Medium&per_page=1')).body.meta.total;
    assert.equal(lines.length - 1, medium, 'one row per Medium finding');
    // The threat column is before any free text, so a plain split finds it.
    for (const line of lines.slice(1)) assert.equal(line.split(',')[threat], 'Medium');
    assert.equal(csv, (await api(server, owner, '/api/vulnerabilities/export?severity=Medium&min_qod=0')).text);
  });

  await t.test('targets: list, detail with its vulnerabilities, delete with the count', async (st) => {
    const tp = await newPage(st, server);
    await signInAs(server, tp, { user });
    const targets = (await api<{ data: Target[] }>(server, owner, '/api/targets?sort=vulnerabilities')).body.data;
    assert.equal(targets.length, 3);
    await tp.page.goto('/targets');
    assert.equal(await tp.page.locator('tbody tr').count(), 3);
    await checkPage(tp, 'targets-list');
    await tp.page.locator('thead').getByRole('link', { name: /^Vulnerabilities/ }).click();
    await tp.page.waitForURL(/sort=vulnerabilities/);
    const names = await tp.page.locator('tbody tr td:first-child a').allTextContents();
    assert.deepEqual(names, targets.map((x) => x.target));

    const big = targets[0]!;
    await tp.page.getByRole('link', { name: big.target, exact: true }).click();
    await tp.page.getByRole('heading', { level: 1, name: big.target }).waitFor();
    const expected = (await api<{ data: Vuln[] }>(server, owner, `/api/targets/${big.id}/vulnerabilities`)).body.data.map((v) => v.id);
    assert.deepEqual(await rowIds(tp), expected);
    await checkPage(tp, 'target-detail');
    await tp.page.getByRole('link', { name: /^Name/ }).click();
    await tp.page.waitForURL(/sort=name/);
    const byName = (await api<{ data: Vuln[] }>(server, owner, `/api/targets/${big.id}/vulnerabilities?sort=name&direction=asc`)).body.data.map((v) => v.id);
    assert.deepEqual(await rowIds(tp), byName);

    await tp.page.getByRole('link', { name: 'Delete target' }).click();
    await tp.page.getByText(`Deleting ${big.target} removes its ${big.vulnerabilities_count} vulnerabilities.`).waitFor();
    await checkPage(tp, 'target-delete');
    await tp.page.getByRole('button', { name: `Delete ${big.target}` }).click();
    await tp.page.waitForURL(`${server.url}/targets`);
    await tp.page.getByText(`Target ${big.target} deleted along with ${big.vulnerabilities_count} associated vulnerabilities.`).waitFor();
    assert.equal((await api(server, owner, `/api/targets/${big.id}`)).status, 404);
    assert.equal((await api<{ meta: { total: number } }>(server, owner, '/api/vulnerabilities?per_page=1')).body.meta.total, all - big.vulnerabilities_count);

    const foreign = await tp.page.goto(`/targets/${otherTarget.id}`);
    assert.equal(foreign?.status(), 404);
  });
});
