/**
 * Signed report links, read from the real report email (the mailer writes .eml files when no SMTP
 * server is configured): they download without a bearer token until they expire, and only the
 * scan, run and format they were made for.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { completedRun, createScan, finding, rerun, startScripted, type Harness } from './helpers/scripted-engines.js';
import { waitFor } from './helpers/servers.js';

/** A raw message with its quoted-printable soft line breaks and escapes undone. */
function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The report links, by format, of the email about run `runIndex` of the scan. */
async function mailedLinks(h: Harness, uuid: string, runIndex: number): Promise<Record<string, string>> {
  const dir = path.join(h.ctx.dataDir, 'mail');
  return waitFor(`the email of run ${runIndex}`, async () => {
    const files = await fs.readdir(dir).catch(() => [] as string[]);
    for (const file of files) {
      const text = decodeQuotedPrintable(await fs.readFile(path.join(dir, file), 'utf8'));
      const links = [...text.matchAll(/http:\/\/rampart\.test\/api\/reports\/[^\s]+/g)].map((m) => m[0]);
      if (links.some((l) => l.includes(`/${uuid}/${runIndex}/`))) {
        return Object.fromEntries(links.map((l) => [/\/(pdf|csv|html|txt|xml)\?/.exec(l)![1]!, l]));
      }
    }
    return undefined;
  });
}

/** Waits until the outbox has sent every email, so none is being written as the test's data directory goes. */
async function allMailSent(h: Harness): Promise<void> {
  await waitFor('every email sent', async () => {
    const rows = await h.ctx.store.db.selectFrom('mail_outbox').select('status').execute();
    return rows.every((r) => r.status === 'sent') ? true : undefined;
  });
}

test('report email links: download without a bearer until they expire; another run, format or scan, or an altered link is refused', async (t) => {
  let offsetMs = 0;
  const h = await startScripted(t, { mail: true, clock: () => new Date(Date.now() + offsetMs) });
  const get = (url: string) => h.ctx.app.inject({ method: 'GET', url: url.replace('http://rampart.test', '') });
  h.scripts.rampart.next = { findings: [finding('rule-a', { name: 'Redis without authentication', threat: 'High', cvssBase: 7.5 })] };
  const uuid = await createScan(h, 'Rampart', { scan_name: 'Linked scan', scan_email: 'lead@example.com' });
  await completedRun(h, uuid, 0);

  const links = await mailedLinks(h, uuid, 0);
  assert.deepEqual(Object.keys(links).sort(), ['csv', 'html', 'pdf', 'txt', 'xml']);
  const pdfUrl = new URL(links.pdf!);
  assert.equal(pdfUrl.pathname, `/api/reports/${uuid}/0/pdf`);
  assert.match(pdfUrl.searchParams.get('signature')!, /^[A-Za-z0-9_-]{43}$/);
  const ttl = Number(pdfUrl.searchParams.get('expires')) - Date.now() / 1000;
  assert.ok(ttl > 7 * 86400 - 600 && ttl <= 7 * 86400, `valid for 7 days by default (${ttl} s left)`);

  const pdf = await get(links.pdf!);
  assert.equal(pdf.statusCode, 200, pdf.body);
  assert.equal(pdf.headers['content-type'], 'application/pdf');
  assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');
  assert.equal(pdf.headers['referrer-policy'], 'no-referrer', 'the link never leaks through a Referer');
  const csv = await get(links.csv!);
  assert.equal(csv.statusCode, 200);
  assert.match(csv.body, /Redis without authentication/);
  assert.equal((await get(`/api/scans/pdf/${uuid}?run_index=0`)).statusCode, 401, 'the bearer path still needs a bearer');

  // A second run and a second scan exist, so each refusal below is the link's, not missing data.
  await rerun(h, uuid, 1);
  const other = await createScan(h, 'Rampart', { scan_name: 'Other scan' });
  await completedRun(h, other, 0);
  const signature = pdfUrl.searchParams.get('signature')!;
  const altered: Record<string, string> = {
    'another run': links.pdf!.replace(`/${uuid}/0/pdf`, `/${uuid}/1/pdf`),
    'another format': links.pdf!.replace('/0/pdf?', '/0/csv?'),
    'another scan': links.pdf!.replace(uuid, other),
    'a later expiry': links.pdf!.replace(/expires=(\d+)/, (_, e: string) => `expires=${Number(e) + 86400}`),
    'an altered signature': links.pdf!.replace(signature, (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1)),
    'a signature of another link': links.pdf!.replace(signature, new URL(links.csv!).searchParams.get('signature')!),
  };
  for (const [what, url] of Object.entries(altered)) {
    const res = await get(url);
    assert.equal(res.statusCode, 403, what);
    assert.deepEqual(res.json(), { message: 'Invalid signature.' }, what);
  }
  assert.equal((await get(links.pdf!.replace(/&signature=.*/, ''))).statusCode, 422, 'a link without its signature');

  offsetMs = 7 * 86400 * 1000 + 1000;
  const expired = await get(links.pdf!);
  assert.equal(expired.statusCode, 403);
  assert.deepEqual(expired.json(), { message: 'This report link has expired.' });
  offsetMs = 0;

  const deleted = await h.ctx.app.inject({ method: 'DELETE', url: `/api/scans/${uuid}`, headers: h.auth });
  assert.equal(deleted.statusCode, 200, deleted.body);
  const gone = await get(links.pdf!);
  assert.equal(gone.statusCode, 404);
  assert.deepEqual(gone.json(), { message: 'Scan not found.' });
  await allMailSent(h);
});

test('RAMPART_REPORT_LINK_TTL sets how long the emailed links last', async (t) => {
  const h = await startScripted(t, { mail: true, env: { RAMPART_REPORT_LINK_TTL: '3600' } });
  const uuid = await createScan(h, 'Rampart', { scan_name: 'Short-lived links' });
  await completedRun(h, uuid, 0);
  const links = await mailedLinks(h, uuid, 0);
  const ttl = Number(new URL(links.html!).searchParams.get('expires')) - Date.now() / 1000;
  assert.ok(ttl > 3000 && ttl <= 3600, `${ttl} s left`);
  const html = await h.ctx.app.inject({ method: 'GET', url: links.html!.replace('http://rampart.test', '') });
  assert.equal(html.statusCode, 200);
  assert.match(html.body, /Short-lived links/);
  await allMailSent(h);
});
