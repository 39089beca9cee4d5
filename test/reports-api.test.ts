/**
 * Report downloads through the API, from runs made by the real worker (scripted engines): each
 * format's media type, file name and content read back (CSV parsed, XML parsed, PDF text
 * extracted, HTML escaping), the 401/404/422 outcomes, `available_formats`, the attack narrative's
 * citations, and the report email received by a real SMTP server, retried after a refusal.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { signUp } from './helpers/app.js';
import { completedRun, createScan, finding, rerun, startScripted, type Harness } from './helpers/scripted-engines.js';
import { waitFor } from './helpers/servers.js';
import { startSmtpReceiver } from './helpers/smtp.js';

const XSS = '<script>alert("owned")</script>';

function pdfText(pdf: Buffer): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = execFile('pdftotext', ['-layout', '-', '-'], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => resolve(error ? undefined : stdout));
    child.stdin?.end(pdf);
  });
}

/** The Subject header of a raw message, unfolded and its RFC 2047 Q-encoded words decoded. */
function subjectOf(raw: string): string {
  const folded = /^Subject: (.*(?:\r?\n[ \t].*)*)/m.exec(raw)?.[1] ?? '';
  return folded
    .replace(/\?=\r?\n[ \t]+=\?/g, '?==?')
    .replace(/=\?UTF-8\?Q\?(.*?)\?=/gi, (_, text: string) =>
      Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'),
    );
}

/** A scan with two runs: run 0 sees A, B and C; run 1 sees A (evidence with markup) and D: B and C are fixed. */
async function twoRuns(h: Harness, extra: Record<string, unknown> = {}): Promise<string> {
  const a = finding('rampart:unauth-redis', { name: 'Redis without authentication', threat: 'High', cvssBase: 7.5, port: 6379, service: 'redis', cwe: 'CWE-306', solution: 'Require a password.' });
  h.scripts.rampart.next = {
    findings: [a, finding('rule-b', { name: 'Expired certificate' }), finding('rule-c', { name: 'TLS 1.0 accepted', threat: 'Low', cvssBase: 3 })],
  };
  const uuid = await createScan(h, 'Rampart', { scan_name: 'Perimeter <weekly>', ...extra });
  await completedRun(h, uuid, 0);
  h.scripts.rampart.next = {
    findings: [
      { ...a, evidence: `PING answered: ${XSS}` },
      finding('rampart:cve', { name: 'Apache path traversal', threat: 'Critical', cvssBase: 9.8, cve: ['CVE-2021-41773'], cwe: 'CWE-22', kev: true, port: 80, service: 'http', solution: 'Upgrade Apache.' }),
    ],
  };
  await rerun(h, uuid, 1);
  return uuid;
}

test('reports in five formats: media types, file names and content read back', async (t) => {
  const h = await startScripted(t);
  const uuid = await twoRuns(h);
  const get = (path: string, headers = h.auth) => h.ctx.app.inject({ method: 'GET', url: path, headers });

  const runs = (await get(`/api/scans/${uuid}/runs`)).json().runs;
  assert.deepEqual(runs.map((r: { available_formats: string[] }) => r.available_formats), [['pdf', 'csv', 'html', 'txt', 'xml'], ['pdf', 'csv', 'html', 'txt', 'xml']]);

  const types = { pdf: 'application/pdf', csv: 'text/csv', html: 'text/html', txt: 'text/plain', xml: 'application/xml' };
  for (const [format, type] of Object.entries(types)) {
    const res = await get(`/api/scans/${format}/${uuid}`);
    assert.equal(res.statusCode, 200, `${format}: ${res.body.slice(0, 200)}`);
    assert.equal(res.headers['content-type']!.toString().split(';')[0], type, format);
    assert.match(res.headers['content-disposition']!.toString(), new RegExp(`filename="rampart-perimeter-weekly-run-1\\.${format}"`));
  }

  // CSV: the export's columns, present findings then the fixed ones, each with its label.
  const csv = (await get(`/api/scans/csv/${uuid}`)).body.trim().split('\r\n').map((line) => line.split(','));
  const header = csv[0]!;
  const rows = csv.slice(1).map((cells) => Object.fromEntries(header.map((name, i) => [name, cells[i]])));
  assert.deepEqual(
    rows.map((r) => [r.name, r.lifecycle]),
    [['Apache path traversal', 'new'], ['Redis without authentication', 'still_open'], ['Expired certificate', 'fixed'], ['TLS 1.0 accepted', 'fixed']],
  );

  // XML: well-formed, namespaced, the same findings.
  const xml = (await get(`/api/scans/xml/${uuid}`)).body;
  assert.equal(XMLValidator.validate(xml), true);
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml).report;
  assert.equal(parsed.xmlns, 'urn:rampart:report:1.0');
  const xmlFindings = [parsed.findings.finding].flat();
  assert.deepEqual(xmlFindings.map((f: { name: string }) => f.name), ['Apache path traversal', 'Redis without authentication']);
  assert.equal(xmlFindings[1].evidence, `PING answered: ${XSS}`, 'markup round-trips as text');
  assert.equal(parsed.run.index, '1');

  // HTML: the evidence's markup is text.
  const html = (await get(`/api/scans/html/${uuid}`)).body;
  assert.ok(!html.includes(XSS));
  assert.ok(html.includes('&lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt;'));

  // TXT: every line fits a terminal.
  const txt = (await get(`/api/scans/txt/${uuid}`)).body;
  assert.ok(txt.split('\n').every((line) => [...line].length <= 100));
  assert.match(txt, /Apache path traversal/);

  // PDF: its text holds the findings.
  const pdf = (await get(`/api/scans/pdf/${uuid}`)).rawPayload;
  assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
  const text = await pdfText(pdf);
  if (text === undefined) t.diagnostic('pdftotext (Debian package poppler-utils) is absent: PDF text not checked');
  else for (const name of ['Apache path traversal', 'Redis without authentication', 'Expired certificate', 'CVE-2021-41773']) assert.ok(text.includes(name), `PDF mentions ${name}`);

  // run_index picks the run; run 0 has the three first findings, nothing fixed.
  const first = (await get(`/api/scans/csv/${uuid}?run_index=0`)).body.trim().split('\r\n');
  assert.equal(first.length, 4);
  assert.ok(first.slice(1).every((line) => line.includes(',new,')));
});

test('report outcomes: 401, 404 for another account, an unknown scan or run, 422 for a bad run_index', async (t) => {
  const h = await startScripted(t);
  h.scripts.rampart.next = { findings: [finding('rule-a')] };
  const uuid = await createScan(h, 'Rampart');
  await completedRun(h, uuid, 0);
  const other = await signUp(h.ctx);
  for (const format of ['pdf', 'csv', 'html', 'txt', 'xml']) {
    const get = (path: string, headers: Record<string, string> = h.auth) => h.ctx.app.inject({ method: 'GET', url: path, headers });
    const unauthorised = await get(`/api/scans/${format}/${uuid}`, {});
    assert.equal(unauthorised.statusCode, 401);
    assert.ok(unauthorised.headers['www-authenticate']);
    assert.equal((await get(`/api/scans/${format}/${uuid}`, other.auth)).statusCode, 404, 'another account');
    assert.equal((await get(`/api/scans/${format}/00000000-0000-4000-8000-000000000000`)).statusCode, 404, 'unknown scan');
    const missingRun = await get(`/api/scans/${format}/${uuid}?run_index=7`);
    assert.equal(missingRun.statusCode, 404);
    assert.equal(missingRun.json().message, 'This scan has no run 7.');
    const bad = await get(`/api/scans/${format}/${uuid}?run_index=-1`);
    assert.equal(bad.statusCode, 422);
    assert.ok(bad.json().errors.run_index);
    assert.equal((await get(`/api/scans/${format}/${uuid}?run_index=0`)).statusCode, 200);
  }
});

test('the attack narrative cites only findings of the run, and says who wrote it', async (t) => {
  const h = await startScripted(t, { role: 'pro' });
  const uuid = await twoRuns(h, { include_attack_narrative: true });
  const xml = (await h.ctx.app.inject({ method: 'GET', url: `/api/scans/xml/${uuid}`, headers: h.auth })).body;
  const report = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml).report;
  const ids = new Set([report.findings.finding].flat().map((f: { id: string }) => f.id));
  const narrative = report.narrative;
  assert.equal(narrative['produced-by'], 'deterministic');
  const claims = ['summary', 'entry-points', 'chains', 'fixes'].flatMap((section) => [narrative[section]?.claim ?? []].flat());
  assert.ok(claims.length >= 3, 'entry points, chains and fixes');
  for (const claim of claims) {
    const cited = String(claim.findings).split(' ');
    assert.ok(cited.length > 0 && cited.every((id) => ids.has(id)), `claim cites findings of the run: ${claim.findings}`);
  }
  const html = (await h.ctx.app.inject({ method: 'GET', url: `/api/scans/html/${uuid}`, headers: h.auth })).body;
  assert.match(html, /deterministic/i);
  // Without the option, no narrative.
  const plain = await twoRuns(h);
  const plainXml = (await h.ctx.app.inject({ method: 'GET', url: `/api/scans/xml/${plain}`, headers: h.auth })).body;
  assert.ok(!plainXml.includes('<narrative'));
});

test('a finished run mails its summary with the PDF attached, retried after a refusal', async (t) => {
  const smtp = await startSmtpReceiver(t, { refuseFirst: 1 });
  const h = await startScripted(t, { mail: true, env: { RAMPART_SMTP_URL: smtp.url, RAMPART_MAIL_RETRY_DELAYS: '0,0' } });
  h.scripts.rampart.next = { findings: [finding('rule-a', { name: 'Redis without authentication', threat: 'High', cvssBase: 7.5 })] };
  const uuid = await createScan(h, 'Rampart', { scan_name: 'Mailed scan', scan_email: 'lead@example.com' });
  await completedRun(h, uuid, 0);

  const mail = await smtp.next();
  assert.equal(smtp.refused, 1, 'the first attempt was refused and retried');
  assert.deepEqual(mail.to, ['lead@example.com']);
  assert.equal(subjectOf(mail.raw), 'Rampart: "Mailed scan" run 0 completed - 1 High');
  assert.match(mail.raw, /Findings: 1/);
  assert.match(mail.raw, /Content-Type: application\/pdf; name=rampart-mailed-scan-run-0\.pdf/);
  const base64 = /Content-Type: application\/pdf[^]*?\r?\n\r?\n([A-Za-z0-9+/=\r\n]+)/.exec(mail.raw)?.[1];
  assert.ok(base64, 'the attachment body');
  assert.equal(Buffer.from(base64.replace(/\s+/g, ''), 'base64').subarray(0, 5).toString(), '%PDF-');

  // A failed run is mailed too.
  h.scripts.rampart.next = { findings: [], fail: true };
  await rerun(h, uuid, 1);
  const failed = await smtp.next();
  assert.match(subjectOf(failed.raw), /^Rampart: "Mailed scan" run 1 failed/);
  // The outbox records both (the second is marked sent just after the server took it).
  const rows = await waitFor('both emails marked sent', async () => {
    const all = await h.ctx.store.db.selectFrom('mail_outbox').select(['status', 'attempts']).orderBy('id').execute();
    return all.every((r) => r.status === 'sent') ? all : undefined;
  });
  assert.deepEqual(rows, [{ status: 'sent', attempts: 2 }, { status: 'sent', attempts: 1 }]);
});
