/**
 * POST /api/scans/{uuid}/results through the public surface: every sample file of
 * ../shared/third_party/scan-samples imported with its stored count asserted, the same file twice
 * (same records, labelled still_open), each bad input (empty, garbage, XXE, wrong content type,
 * over the limit by Content-Length and chunked), ownership, authentication, multipart, and a parse
 * error half-way that leaves nothing behind. One app for the file.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { buildTestApp, signUp, STORE_KIND, type TestApp } from './helpers/app.js';
import { SAMPLES, SAMPLES_DIR, SAMPLES_SKIP } from './helpers/scan-samples.js';

const LIMIT = 400_000; // above the largest sample (nuclei/issue_14071.json, 384,621 bytes)

type User = Awaited<ReturnType<typeof signUp>>;

async function newScan(ctx: TestApp, user: User): Promise<string> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/new-scan',
    headers: user.auth,
    payload: { scan_name: 'Imported', scan_type: 'OpenVas', scan_frequency: 'Unmanaged', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: '10.0.0.0/24' },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().uuid;
}

const upload = (ctx: TestApp, user: User | null, uuid: string, body: string | Buffer, contentType = 'application/xml') =>
  ctx.app.inject({ method: 'POST', url: `/api/scans/${uuid}/results`, headers: { ...(user ? user.auth : {}), 'content-type': contentType }, payload: body });

async function total(ctx: TestApp, user: User, query = ''): Promise<number> {
  const res = await ctx.app.inject({ method: 'GET', url: `/api/vulnerabilities?per_page=1${query}`, headers: user.auth });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().meta.total;
}

/**
 * Records stored per sample: findings with the same identity are one record. Counted in Python
 * from each file: distinct (host, port, protocol, first CVE else rule id) and, for ZAP, the
 * instance's web location as the store identifies it (ElementTree over each alertitem's
 * instances: alertRef or pluginid, the uri split by urllib with its query and fragment dropped,
 * the method upper-cased, the param). Files whose query strings differ only by value collapse:
 * dvwa_baseline_dojo 98 locations with queries, 96 without; zap-results-first-scan 129 / 86;
 * zap-results-second-scan 125 / 78.
 */
const STORED: Record<string, { stored: number }> = {
  'nuclei/multiple_v3.json': { stored: 5 }, // two results of one template and matcher at one location
  'openvas/report_combine_v2.csv': { stored: 1 }, // the same OID twice on the same host, no port
  'zap/0_zap_sample.xml': { stored: 10 },
  'zap/0_zap_sample_without_zap3.xml': { stored: 9 },
  'zap/1_zap_sample_0_and_new_absent.xml': { stored: 10 },
  'zap/2_zap_sample_0_and_new_endpoint.xml': { stored: 11 },
  'zap/3_zap_sampl_0_and_different_severities.xml': { stored: 10 },
  'zap/5_zap_sample_one.xml': { stored: 3 },
  'zap/dvwa_baseline_dojo.xml': { stored: 96 },
  'zap/dvwa_baseline_dojo_fabricated_internal_duplicates.xml': { stored: 71 },
  'zap/dvwa_baseline_dojo_fabricated_internal_duplicates_subset.xml': { stored: 45 },
  'zap/dvwa_baseline_dojo_subset.xml': { stored: 71 },
  'zap/juicy2.xml': { stored: 71 },
  'zap/some_2.9.0.xml': { stored: 14 },
  'zap/zap-results-first-scan.xml': { stored: 86 },
  'zap/zap-results-second-scan.xml': { stored: 78 },
  'zap/zap_2.16.1_with_req_resp.xml': { stored: 13 },
};

test(`POST /api/scans/{uuid}/results (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { env: { RAMPART_UPLOAD_MAX_BYTES: String(LIMIT) } });
  const owner = await signUp(ctx, { role: 'pro' });
  const uuid = await newScan(ctx, owner);
  const nmap = `<?xml version="1.0"?>\n<!DOCTYPE nmaprun>\n<nmaprun scanner="nmap" version="7.93"><host><status state="up"/><address addr="10.0.0.5" addrtype="ipv4"/><ports>` +
    `<port protocol="tcp" portid="22"><state state="open"/><service name="ssh" product="OpenSSH" version="9.2"/></port>` +
    `<port protocol="tcp" portid="80"><state state="open"/><service name="http"/></port></ports></host></nmaprun>`;

  let firstRun = -1;
  await t.test('a raw file becomes a completed run; the same file again is the same records, still open', async () => {
    const first = await upload(ctx, owner, uuid, nmap);
    assert.equal(first.statusCode, 201, first.body);
    // The import completes the run the Unmanaged scan created awaiting its agent.
    firstRun = first.json().run_index;
    assert.match(first.json().message, /2 findings from nmap 7\.93/);
    assert.equal(await total(ctx, owner), 2);
    const second = await upload(ctx, owner, uuid, nmap, 'text/plain');
    assert.equal(second.statusCode, 201, second.body);
    assert.equal(second.json().run_index, firstRun + 1);
    assert.equal(await total(ctx, owner), 2, 'no duplicates');
    assert.equal(await total(ctx, owner, '&lifecycle=still_open'), 2);
    const runs = await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: owner.auth });
    assert.equal(runs.statusCode, 200, runs.body);
    const last = runs.json().runs.at(-1);
    assert.equal(`${last.engine} ${last.engine_version}`, 'nmap 7.93');
    assert.equal(last.trigger, 'import');
    assert.deepEqual(last.lifecycle, { new: 0, still_open: 2, fixed: 0, regressed: 0 });
  });

  await t.test('multipart/form-data with the field "file"', async () => {
    const boundary = '----rampart-test-boundary';
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="scan.xml"\r\nContent-Type: application/octet-stream\r\n\r\n${nmap}\r\n--${boundary}--\r\n`,
    );
    const res = await upload(ctx, owner, uuid, body, `multipart/form-data; boundary=${boundary}`);
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().run_index, firstRun + 2);
    const wrongField = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="upload"; filename="a.xml"\r\n\r\n${nmap}\r\n--${boundary}--\r\n`);
    const refused = await upload(ctx, owner, uuid, wrongField, `multipart/form-data; boundary=${boundary}`);
    assert.equal(refused.statusCode, 422, refused.body);
    assert.match(refused.json().message, /"file"/);
  });

  await t.test('bad input: empty, garbage, XXE, wrong content type, a parse error half-way', async () => {
    const empty = await upload(ctx, owner, uuid, '');
    assert.equal(empty.statusCode, 422, empty.body);
    assert.match(empty.json().message, /empty/);
    const garbage = await upload(ctx, owner, uuid, 'hello world', 'text/plain');
    assert.equal(garbage.statusCode, 422, garbage.body);
    assert.match(garbage.json().message, /Accepted formats: nmap XML .*OpenVAS.*ZAP.*nuclei/);
    const xxe = await upload(ctx, owner, uuid, `<?xml version="1.0"?><!DOCTYPE nmaprun [<!ENTITY x SYSTEM "file:///etc/passwd">]><nmaprun version="1">&x;</nmaprun>`);
    assert.equal(xxe.statusCode, 422, xxe.body);
    assert.match(xxe.json().message, /DOCTYPE/);
    const pdf = await upload(ctx, owner, uuid, '%PDF-1.4', 'application/pdf');
    assert.equal(pdf.statusCode, 415, pdf.body);
    assert.match(pdf.json().message, /multipart\/form-data/);
    // Valid hosts first, then broken XML: the whole import is rolled back.
    const broken = nmap.replace('</ports></host></nmaprun>', '</ports></host><host><status state="up"/><address addr="10.0.0.6" addrtype="ipv4"/>');
    const before = await total(ctx, owner);
    const half = await upload(ctx, owner, uuid, broken);
    assert.equal(half.statusCode, 422, half.body);
    assert.equal(await total(ctx, owner), before);
    const next = await upload(ctx, owner, uuid, nmap);
    assert.equal(next.json().run_index, firstRun + 3, 'the failed import left no run');
  });

  await t.test('over RAMPART_UPLOAD_MAX_BYTES: 413 from Content-Length, and while streaming a chunked body', async () => {
    const big = `<nmaprun version="7.93">${'<!-- padding -->'.repeat(LIMIT / 8)}</nmaprun>`;
    const res = await upload(ctx, owner, uuid, big);
    assert.equal(res.statusCode, 413, res.body);
    assert.match(res.json().message, /RAMPART_UPLOAD_MAX_BYTES/);
    await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = ctx.app.server.address() as AddressInfo;
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({ agent: false, host: '127.0.0.1', port, method: 'POST', path: `/api/scans/${uuid}/results`, headers: { ...owner.auth, 'content-type': 'application/xml', 'transfer-encoding': 'chunked' }, timeout: 10_000 }, (response) => {
        let body = '';
        response.on('data', (c: Buffer) => (body += c.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.on('timeout', () => req.destroy(new Error('timeout')));
      const chunk = Buffer.from('<!-- padding -->'.repeat(4096));
      req.write('<nmaprun version="7.93">');
      let sent = 0;
      const pump = (): void => {
        while (sent <= LIMIT + chunk.length) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end('</nmaprun>');
      };
      pump();
    });
    assert.equal(answer.status, 413, answer.body);
    assert.match(answer.body, /RAMPART_UPLOAD_MAX_BYTES/);
  });

  await t.test('401 without a token, 404 for another account\'s scan or an unknown one', async () => {
    assert.equal((await upload(ctx, null, uuid, nmap)).statusCode, 401);
    const other = await signUp(ctx, { role: 'pro' });
    const theirs = await upload(ctx, other, uuid, nmap);
    assert.equal(theirs.statusCode, 404, theirs.body);
    assert.equal((await upload(ctx, other, '00000000-0000-4000-8000-000000000000', nmap)).statusCode, 404);
  });

  await t.test('every sample file imports with its stored count', { skip: SAMPLES_SKIP }, async () => {
    // One account, one scan per file: the run counts the records that file stored.
    const user = await signUp(ctx, { role: 'pro' });
    for (const sample of SAMPLES) {
      const scan = await newScan(ctx, user);
      const body = await readFile(path.join(SAMPLES_DIR, sample.file));
      const res = await upload(ctx, user, scan, body, sample.file.endsWith('.csv') ? 'text/csv' : sample.file.endsWith('.xml') ? 'application/xml' : 'application/x-ndjson');
      if (body.length === 0) {
        assert.equal(res.statusCode, 422, `${sample.file}: an empty file is refused`);
        continue;
      }
      assert.equal(res.statusCode, 201, `${sample.file}: ${res.body}`);
      const figures = STORED[sample.file];
      const expected = figures ? figures.stored : sample.findings;
      assert.match(res.json().message, new RegExp(`^Results imported: ${expected} findings? from ${sample.engine} `), sample.file);
      const runs = await ctx.app.inject({ method: 'GET', url: `/api/scans/${scan}/runs`, headers: user.auth });
      const run = runs.json().runs.at(-1);
      assert.equal(run.hosts_up, sample.hosts, `${sample.file}: hosts`);
      assert.equal(run.findings_count, expected, `${sample.file}: stored findings`);
    }
  });
});
