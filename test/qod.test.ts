/**
 * Quality of detection through the public surface (issue 14): a run through the real worker with
 * a scripted engine stores findings of QoD 95 (absent: proved), 80 (an upstream version) and 30
 * (a distribution's package); the API shows `qod` and filters by `min_qod`; reports and the CSV
 * export hide findings below the deployment threshold and state it with the count they hid.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QOD } from '../src/shared/finding.js';
import { STORE_KIND } from './helpers/app.js';
import { completedRun, createScan, finding, startScripted, type Harness } from './helpers/scripted-engines.js';

async function get(h: Harness, url: string) {
  const res = await h.ctx.app.inject({ method: 'GET', url, headers: h.auth });
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  return res;
}

const FINDINGS = [
  finding('rampart:redis-noauth', { name: 'Redis without authentication', threat: 'High', cvssBase: 7.5 }),
  finding('rampart:known-vulnerability', { name: 'CVE-2024-6387: OpenSSH 9.6p1', cve: ['CVE-2024-6387'], threat: 'High', cvssBase: 8.1, port: 22, qod: QOD.version }),
  finding('rampart:known-vulnerability', { name: 'CVE-2023-38408: OpenSSH 9.2p1', cve: ['CVE-2023-38408'], threat: 'Critical', cvssBase: 9.8, port: 2222, qod: QOD.packaged }),
  finding('rampart:known-vulnerability', { name: 'CVE-2023-28531: OpenSSH 9.2p1', cve: ['CVE-2023-28531'], threat: 'Critical', cvssBase: 9.8, port: 2223, qod: QOD.packaged }),
];

test(`QoD: stored, shown, filtered; reports and the export hide below the threshold and say so (${STORE_KIND})`, async (t) => {
  const h = await startScripted(t);
  h.scripts.rampart.next = { findings: FINDINGS };
  const uuid = await createScan(h, 'Rampart');
  await completedRun(h, uuid, 0);

  const all = (await get(h, '/api/vulnerabilities?per_page=100')).json();
  assert.equal(all.meta.total, 4, 'the list shows every quality unless asked');
  const qodOf = Object.fromEntries(all.data.map((v: { name: string; qod: number }) => [v.name, v.qod]));
  assert.deepEqual(qodOf, {
    'Redis without authentication': 95,
    'CVE-2024-6387: OpenSSH 9.6p1': 80,
    'CVE-2023-38408: OpenSSH 9.2p1': 30,
    'CVE-2023-28531: OpenSSH 9.2p1': 30,
  });
  const shown = (await get(h, '/api/vulnerabilities?min_qod=70')).json();
  assert.equal(shown.meta.total, 2);
  assert.deepEqual(shown.data.map((v: { name: string }) => v.name).sort(), ['CVE-2024-6387: OpenSSH 9.6p1', 'Redis without authentication']);
  assert.equal((await get(h, '/api/vulnerabilities?min_qod=81')).json().meta.total, 1);
  const invalid = await h.ctx.app.inject({ method: 'GET', url: '/api/vulnerabilities?min_qod=101', headers: h.auth });
  assert.equal(invalid.statusCode, 422);

  await t.test('the CSV export applies the deployment threshold, has a qod column and names what it hid', async () => {
    const res = await get(h, '/api/vulnerabilities/export');
    assert.equal(res.headers['x-rampart-min-qod'], '70');
    assert.equal(res.headers['x-rampart-hidden-findings'], '2');
    const lines = res.body.trim().split('\r\n');
    assert.equal(lines.length, 3, 'a header and two rows');
    assert.equal(lines[0]!.split(',').at(-1), 'qod', 'the new column is last');
    assert.ok(!res.body.includes('CVE-2023-38408'));
    const everything = await get(h, '/api/vulnerabilities/export?min_qod=0');
    assert.equal(everything.headers['x-rampart-hidden-findings'], '0');
    assert.equal(everything.body.trim().split('\r\n').length, 5);
  });

  await t.test('txt, html and xml reports hide the two Debian-packaged matches and state the threshold and count', async () => {
    const txt = (await get(h, `/api/scans/txt/${uuid}`)).body;
    assert.match(txt, /Findings with a quality of detection \(QoD\) below 70 are hidden: 2 findings\s+of this run\./);
    assert.ok(!txt.includes('CVE-2023-38408'), 'the hidden finding is not in the report');
    assert.match(txt, /CVE-2024-6387/);
    assert.match(txt, /QoD:\s+80/);
    const html = (await get(h, `/api/scans/html/${uuid}`)).body;
    assert.match(html, /below 70 are hidden: 2 findings/);
    assert.ok(!html.includes('CVE-2023-28531'));
    const xml = (await get(h, `/api/scans/xml/${uuid}`)).body;
    assert.match(xml, /<quality min-qod="70" hidden="2"\/>/);
    assert.match(xml, /<count threat="Critical">0<\/count>/, 'the hidden Criticals are in no count');
    const csv = await get(h, `/api/scans/csv/${uuid}`);
    assert.equal(csv.headers['x-rampart-hidden-findings'], '2');
  });

  await t.test('min_qod per request shows them again, Criticals counted', async () => {
    const txt = (await get(h, `/api/scans/txt/${uuid}?min_qod=0`)).body;
    assert.match(txt, /All findings are shown, whatever their quality of detection/);
    assert.match(txt, /CVE-2023-38408/);
    const xml = (await get(h, `/api/scans/xml/${uuid}?min_qod=0`)).body;
    assert.match(xml, /<quality min-qod="0" hidden="0"\/>/);
    assert.match(xml, /<count threat="Critical">2<\/count>/);
    assert.match(xml, /qod="30"/);
  });
});

test(`RAMPART_MIN_QOD sets the deployment's threshold (${STORE_KIND})`, async (t) => {
  const h = await startScripted(t, { env: { RAMPART_MIN_QOD: '90' } });
  h.scripts.rampart.next = { findings: FINDINGS };
  const uuid = await createScan(h, 'Rampart');
  await completedRun(h, uuid, 0);
  const txt = (await get(h, `/api/scans/txt/${uuid}`)).body;
  assert.match(txt, /below 90 are hidden: 3 findings/);
  const res = await get(h, '/api/vulnerabilities/export');
  assert.equal(res.headers['x-rampart-min-qod'], '90');
  assert.equal(res.headers['x-rampart-hidden-findings'], '3');
});
