/**
 * The vulnerability database, end to end: a local HTTP server plays NVD (paged CVE API 2.0 built
 * from the real records in /work/shared/vulndb/nvd), CISA KEV and FIRST EPSS (gzipped once); the
 * sync fills a real store; lookups are checked against what the records say.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Db } from '../src/db/database.js';
import { compareVersions, parseCpe } from '../src/vulndb/cpe.js';
import { countVulnDbRows } from '../src/vulndb/vulndb.queries.js';
import { createVulnerabilityLookup, syncVulnDb } from '../src/vulndb/vulndb.service.js';
import { openTestStore } from './helpers/app.js';
import { freePort } from './helpers/cli.js';
import { fast, nvdTime, records, skip, startSources } from './helpers/vulndb-sources.js';

/** The 13 CVEs of nvd/ that the KEV catalog (2025.08.25) lists, per SOURCE.md. */
const KEV_CVES = [
  'CVE-2012-1823', 'CVE-2014-0160', 'CVE-2015-1427', 'CVE-2017-5638', 'CVE-2019-10149', 'CVE-2019-11043', 'CVE-2020-1938',
  'CVE-2021-3156', 'CVE-2021-41773', 'CVE-2021-42013', 'CVE-2021-44228', 'CVE-2022-0543', 'CVE-2023-44487',
];
const WITHOUT_CONFIGURATIONS = ['CVE-2023-46218', 'CVE-2024-2961', 'CVE-2024-38474', 'CVE-2024-38476', 'CVE-2024-6409'];

async function cvesFor(db: Db, cpe: string): Promise<string[]> {
  const lookup = await createVulnerabilityLookup(db);
  assert.ok(lookup, 'the lookup exists after a sync');
  return (await lookup.forCpe(cpe)).map((v) => v.cve).sort();
}

test('version comparison: numbers, p1 suffixes, pre-releases, other schemes', () => {
  const order = (a: string, b: string) => {
    const c = compareVersions(a, b);
    return c === null ? null : Math.sign(c);
  };
  assert.equal(order('2.4.9', '2.4.49'), -1, 'numeric, not textual');
  assert.equal(order('2.4.049', '2.4.49'), 0);
  assert.equal(order('1.0', '1.0.0'), 0);
  assert.equal(order('9.6', '9.6p1'), -1);
  assert.equal(order('9.6p1', '9.6p2'), -1);
  assert.equal(order('9.6p1', '9.7'), -1);
  assert.equal(order('9.6p1', '9.6.1'), -1);
  assert.equal(order('1.0rc1', '1.0'), -1);
  assert.equal(order('1.0-beta2', '1.0rc1'), -1);
  assert.equal(order('1.0.2k', '1.0.2j'), 1);
  assert.equal(order('r22', 'r27'), -1);
  assert.equal(order('1.20.0', 'r22'), null, 'NGINX Plus releases are another scheme');
  const cpe = parseCpe('cpe:2.3:a:openbsd:openssh:9.6:p1:*:*:*:*:*:*');
  assert.deepEqual([cpe?.vendor, cpe?.product, cpe?.version, cpe?.update, cpe?.targetSw], ['openbsd', 'openssh', '9.6', 'p1', '*']);
  assert.equal(parseCpe('cpe:2.3:a:vendor:prod\\:uct:1.0')?.product, 'prod:uct', 'escaped colon');
  assert.equal(parseCpe('cpe:/a:openbsd:openssh:9.6p1')?.version, '9.6p1', 'CPE 2.2 URI');
  assert.equal(parseCpe('openssh 9.6'), null);
});

test('createVulnerabilityLookup is null before any sync', async (t) => {
  const { store } = await openTestStore(t);
  assert.equal(await createVulnerabilityLookup(store.db), null);
});

test('sync downloads NVD in pages, KEV and gzipped EPSS; lookups match the records', { skip }, async (t) => {
  const { store } = await openTestStore(t);
  const db = store.db;
  const fake = await startSources(t);
  const progress: string[] = [];
  const result = await syncVulnDb(db, fast(fake.sources, { onProgress: (m) => progress.push(m) }));

  assert.deepEqual(result, { cves: 46, kev: 1404, epss: 24 });
  const nvdRequests = fake.requests.filter((u) => u.pathname === '/nvd');
  assert.deepEqual(nvdRequests.map((u) => u.searchParams.get('startIndex')), ['0', '20', '40']);
  assert.equal(nvdRequests[0]?.searchParams.get('resultsPerPage'), '2000');
  assert.equal(nvdRequests[0]?.searchParams.has('lastModStartDate'), false, 'the first sync is a full one');
  for (const line of ['NVD: page 1 of 3, 20/46 records (43%)', 'NVD: page 3 of 3, 46/46 records (100%)', 'KEV: 1404 entries (catalog 2025.08.25)']) {
    assert.ok(progress.includes(line), `${line} in:\n${progress.join('\n')}`);
  }
  const counts = await countVulnDbRows(db);
  assert.equal(counts.cves, 46);
  assert.equal(counts.kev, 1404);
  assert.equal(counts.epss, 24);

  await t.test('KEV flags the 13 listed CVEs of the set', async () => {
    const flagged = await db
      .selectFrom('vulndb_cves as c')
      .innerJoin('vulndb_kev as k', 'k.cve', 'c.cve')
      .select('c.cve')
      .orderBy('c.cve')
      .execute();
    assert.deepEqual(flagged.map((r) => r.cve), [...KEV_CVES].sort());
  });

  await t.test('records without configurations are stored and have no criteria', async () => {
    const rows = await db
      .selectFrom('vulndb_cves as c')
      .leftJoin('vulndb_cpe_matches as m', 'm.cve', 'c.cve')
      .select((eb) => ['c.cve', 'c.description', eb.fn.count<number>('m.id').as('criteria')])
      .where('c.cve', 'in', WITHOUT_CONFIGURATIONS)
      .groupBy(['c.cve', 'c.description'])
      .execute();
    assert.equal(rows.length, 5);
    for (const row of rows) {
      assert.equal(Number(row.criteria), 0, row.cve);
      assert.ok(row.description.length > 0, row.cve);
    }
  });

  await t.test('OpenSSH 9.6p1: regreSSHion [8.6, 9.8) and CVE-2025-26465 [6.9, 9.8]; Terrapin (< 9.6) fixed', async () => {
    const expected = ['CVE-2024-6387', 'CVE-2025-26465'];
    assert.deepEqual(await cvesFor(db, 'cpe:2.3:a:openbsd:openssh:9.6:p1:*:*:*:*:*:*'), expected);
    // The portable suffix written into the version field is read as the update.
    assert.deepEqual(await cvesFor(db, 'cpe:2.3:a:openbsd:openssh:9.6p1:*:*:*:*:*:*:*'), expected);
  });

  await t.test('OpenSSH 9.5p1 also has Terrapin (CVE-2023-48795) and CVE-2023-51385 (< 9.6)', async () => {
    assert.deepEqual(await cvesFor(db, 'cpe:2.3:a:openbsd:openssh:9.5:p1:*:*:*:*:*:*'), [
      'CVE-2023-48795', 'CVE-2023-51385', 'CVE-2024-6387', 'CVE-2025-26465',
    ]);
  });

  await t.test('OpenSSH 9.2p1 (Debian 12): six CVEs by version, two of them for a server; configurations stored and evaluated', async () => {
    const all = ['CVE-2023-28531', 'CVE-2023-38408', 'CVE-2023-48795', 'CVE-2023-51385', 'CVE-2024-6387', 'CVE-2025-26465'];
    assert.deepEqual(await cvesFor(db, 'cpe:2.3:a:openbsd:openssh:9.2:p1:*:*:*:*:*:*'), all);
    const lookup = await createVulnerabilityLookup(db);
    const debian12 = 'cpe:2.3:o:debian:debian_linux:12:*:*:*:*:*:*:*';
    const server = await lookup!.forCpe('cpe:2.3:a:openbsd:openssh:9.2p1:*:*:*:*:*:*:*', { server: true, platforms: [debian12] });
    // ssh-add, ssh-agent, the ssh client and its VerifyHostKeyDNS option are client programs only.
    assert.deepEqual(server.map((v) => v.cve).sort(), ['CVE-2023-48795', 'CVE-2024-6387']);
    assert.ok(server.every((v) => v.conditions.length === 0), 'plain OR configurations: no condition');
    const row = await db.selectFrom('vulndb_cves').select('configurations').where('cve', '=', 'CVE-2023-48795').executeTakeFirstOrThrow();
    assert.equal((row.configurations as unknown[]).length, 70, 'every configuration of the record is kept');
  });

  await t.test('"running on" configurations: Terrapin in Transmit 5 applies on macOS only', async () => {
    const lookup = await createVulnerabilityLookup(db);
    const transmit = 'cpe:2.3:a:panic:transmit_5:5.10.0:*:*:*:*:*:*:*';
    const unknownPlatform = await lookup!.forCpe(transmit);
    assert.deepEqual(unknownPlatform.map((v) => [v.cve, v.conditions]), [['CVE-2023-48795', ['cpe:2.3:o:apple:macos:-:*:*:*:*:*:*:*']]]);
    assert.deepEqual(await lookup!.forCpe(transmit, { platforms: ['cpe:2.3:o:debian:debian_linux:12:*:*:*:*:*:*:*'] }), [], 'another operating system: not reported');
  });

  await t.test('regreSSHion: exact update-field entries 8.5:p1, 4.4:- and 9.8:- are honoured', async () => {
    assert.ok((await cvesFor(db, 'cpe:2.3:a:openbsd:openssh:8.5:p1:*:*:*:*:*:*')).includes('CVE-2024-6387'));
    assert.ok(!(await cvesFor(db, 'cpe:2.3:a:openbsd:openssh:8.5:p2:*:*:*:*:*:*')).includes('CVE-2024-6387'));
    assert.ok((await cvesFor(db, 'cpe:2.3:a:openbsd:openssh:4.3:p2:*:*:*:*:*:*')).includes('CVE-2024-6387'), '< 4.4');
    assert.ok(!(await cvesFor(db, 'cpe:2.3:a:openbsd:openssh:4.4:p1:*:*:*:*:*:*')).includes('CVE-2024-6387'));
    assert.ok((await cvesFor(db, 'cpe:2.3:a:openbsd:openssh:9.8:-:*:*:*:*:*:*')).includes('CVE-2024-6387'));
    assert.deepEqual(await cvesFor(db, 'cpe:2.3:a:openbsd:openssh:9.8:p1:*:*:*:*:*:*'), ['CVE-2025-26465']);
    assert.deepEqual(await cvesFor(db, 'cpe:2.3:a:openbsd:openssh:9.9:p2:*:*:*:*:*:*'), []);
  });

  await t.test('CVE-2016-6210 (openssh:*:p2, versionEndIncluding 7.2) covers 7.2p2 only among 7.2 builds', async () => {
    assert.ok((await cvesFor(db, 'cpe:2.3:a:openbsd:openssh:7.2:p2:*:*:*:*:*:*')).includes('CVE-2016-6210'));
    assert.ok((await cvesFor(db, 'cpe:2.3:a:openbsd:openssh:7.1:p2:*:*:*:*:*:*')).includes('CVE-2016-6210'));
    assert.ok(!(await cvesFor(db, 'cpe:2.3:a:openbsd:openssh:7.2:p1:*:*:*:*:*:*')).includes('CVE-2016-6210'));
    assert.ok(!(await cvesFor(db, 'cpe:2.3:a:openbsd:openssh:7.3:p2:*:*:*:*:*:*')).includes('CVE-2016-6210'));
  });

  await t.test('Apache httpd: exact versions of CVE-2021-41773 (2.4.49) and CVE-2021-42013 (2.4.49, 2.4.50)', async () => {
    const v49 = await cvesFor(db, 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*');
    assert.ok(v49.includes('CVE-2021-41773') && v49.includes('CVE-2021-42013'), v49.join());
    const v50 = await cvesFor(db, 'cpe:2.3:a:apache:http_server:2.4.50:*:*:*:*:*:*:*');
    assert.ok(v50.includes('CVE-2021-42013') && !v50.includes('CVE-2021-41773'), v50.join());
    assert.deepEqual(await cvesFor(db, 'cpe:2.3:a:apache:http_server:2.4.51:*:*:*:*:*:*:*'), [
      'CVE-2022-22720', 'CVE-2023-25690', 'CVE-2023-27522', 'CVE-2023-31122', 'CVE-2023-45802',
    ]);
    // CVE-2024-38474/38476 have no configurations yet: never matched.
    assert.deepEqual(await cvesFor(db, 'cpe:2.3:a:apache:http_server:2.4.59:*:*:*:*:*:*:*'), []);
  });

  await t.test('nginx: CVE-2021-23017 [0.6.18, 1.20.1); target_sw open_source / plus / unknown', async () => {
    assert.deepEqual(await cvesFor(db, 'cpe:2.3:a:f5:nginx:1.20.0:*:*:*:*:*:*:*'), [
      'CVE-2021-23017', 'CVE-2021-3618', 'CVE-2022-41741', 'CVE-2022-41742',
    ]);
    assert.ok(!(await cvesFor(db, 'cpe:2.3:a:f5:nginx:1.20.1:*:*:*:*:*:*:*')).includes('CVE-2021-23017'));
    assert.deepEqual(await cvesFor(db, 'cpe:2.3:a:f5:nginx:1.23.1:*:*:*:open_source:*:*:*'), ['CVE-2022-41741', 'CVE-2022-41742']);
    assert.deepEqual(await cvesFor(db, 'cpe:2.3:a:f5:nginx:1.23.2:*:*:*:*:*:*:*'), []);
    // NGINX Plus R25 meets the `plus` range r22-r27 only, never the open-source version ranges.
    assert.deepEqual(await cvesFor(db, 'cpe:2.3:a:f5:nginx:r25:*:*:*:plus:*:*:*'), ['CVE-2022-41741', 'CVE-2022-41742']);
    assert.deepEqual(await cvesFor(db, 'cpe:2.3:a:f5:nginx:r28:*:*:*:plus:*:*:*'), []);
  });

  await t.test('results carry the record, KEV and EPSS', async () => {
    const lookup = await createVulnerabilityLookup(db);
    assert.ok(lookup);
    assert.ok(lookup.syncedAt instanceof Date);
    const [v41773] = (await lookup.forCpe('cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*')).filter((v) => v.cve === 'CVE-2021-41773');
    assert.ok(v41773);
    assert.equal(v41773.kev, true);
    assert.equal(v41773.epss, 0.99992);
    assert.equal(v41773.cvssBase, 7.5);
    assert.match(v41773.description, /^A flaw was found in a change made to path normalization in Apache HTTP Server 2\.4\.49/);
    const ssh = await lookup.forCpe('cpe:2.3:a:openbsd:openssh:9.6:p1:*:*:*:*:*:*');
    const regre = ssh.find((v) => v.cve === 'CVE-2024-6387');
    assert.deepEqual(
      { cvss: regre?.cvssBase, vector: regre?.cvssVector, cwe: regre?.cwe, kev: regre?.kev, epss: regre?.epss },
      { cvss: 8.1, vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H', cwe: 'CWE-362', kev: false, epss: 0.99506 },
    );
    assert.ok(regre && regre.references.includes('http://www.openwall.com/lists/oss-security/2024/07/01/12'));
    assert.equal(ssh.find((v) => v.cve === 'CVE-2025-26465')?.epss, null, 'not in the EPSS excerpt');
    await assert.rejects(lookup.forCpe('openssh 9.6p1'), /Not a CPE 2\.3 name/);
  });

  await t.test('a second full sync is idempotent', async () => {
    const before = await countVulnDbRows(db);
    const again = await syncVulnDb(db, fast({ ...fake.sources, epssUrl: `${fake.base}/epss.csv` }, { full: true }));
    assert.deepEqual(again, { cves: 46, kev: 1404, epss: 24 });
    assert.deepEqual(await countVulnDbRows(db), before);
    assert.deepEqual(await cvesFor(db, 'cpe:2.3:a:openbsd:openssh:9.6:p1:*:*:*:*:*:*'), ['CVE-2024-6387', 'CVE-2025-26465']);
  });

  await t.test('later syncs are incremental, in windows of at most 120 days', async () => {
    const previous = await createVulnerabilityLookup(db);
    fake.requests.length = 0;
    const next = await syncVulnDb(db, fast({ ...fake.sources, epssUrl: `${fake.base}/epss.csv` }));
    const [first] = fake.requests.filter((u) => u.pathname === '/nvd');
    assert.equal(new Date(first?.searchParams.get('lastModStartDate') ?? '').getTime(), previous?.syncedAt.getTime());
    assert.match(first?.searchParams.get('lastModEndDate') ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    assert.equal(next.cves, 0, 'nothing was modified since the last sync');

    fake.requests.length = 0;
    const since = new Date('2025-10-01T00:00:00Z');
    const windowed = await syncVulnDb(db, fast({ ...fake.sources, epssUrl: `${fake.base}/epss.csv` }, { since }));
    const expected = records.filter((r) => nvdTime(r.lastModified) >= since.getTime()).length;
    assert.equal(windowed.cves, expected);
    const windows = fake.requests
      .filter((u) => u.pathname === '/nvd' && u.searchParams.get('startIndex') === '0')
      .map((u) => [nvdTime(u.searchParams.get('lastModStartDate')!), nvdTime(u.searchParams.get('lastModEndDate')!)] as const);
    assert.ok(windows.length >= 4, `${windows.length} windows`);
    assert.equal(windows[0]?.[0], since.getTime());
    windows.forEach(([start, end], i) => {
      assert.ok(end - start <= 120 * 24 * 3600 * 1000);
      if (i > 0) assert.equal(start, windows[i - 1]?.[1], 'windows are contiguous');
    });
    assert.equal((await countVulnDbRows(db)).cves, 46);
  });
});

test('an NVD 5xx is retried and the sync then succeeds; the API key is sent as a header', { skip }, async (t) => {
  const { store } = await openTestStore(t);
  const fake = await startSources(t);
  fake.failNvd = 2;
  const progress: string[] = [];
  const result = await syncVulnDb(store.db, fast({ ...fake.sources, nvdApiKey: 'k-123' }, { retries: 2, onProgress: (m) => progress.push(m) }));
  assert.deepEqual(result, { cves: 46, kev: 1404, epss: 24 });
  assert.equal(fake.requests.filter((u) => u.pathname === '/nvd').length, 5, '2 failures + 3 pages');
  assert.ok(progress.some((m) => /HTTP 503 .*retrying \(attempt 2 of 3\)/.test(m)), progress.join('\n'));
  const nvdHeaders = fake.headers.filter((_, i) => fake.requests[i]?.pathname === '/nvd');
  assert.ok(nvdHeaders.every((h) => h.apikey === 'k-123'));
});

test('failures: retries are bounded, a 404 is not retried, a hanging endpoint times out', { skip }, async (t) => {
  const { store } = await openTestStore(t);
  const fake = await startSources(t);

  fake.failNvd = 10;
  await assert.rejects(syncVulnDb(store.db, fast(fake.sources, { retries: 2 })), (error: Error) => {
    assert.match(error.message, /^NVD download failed: HTTP 503 from http:\/\/127\.0\.0\.1:\d+\/nvd\?.* \(after 3 attempts\)$/);
    return true;
  });
  assert.equal(fake.requests.length, 3);
  assert.equal(await createVulnerabilityLookup(store.db), null, 'a failed sync records nothing');
  fake.failNvd = 0;

  fake.requests.length = 0;
  await assert.rejects(syncVulnDb(store.db, fast({ ...fake.sources, kevUrl: `${fake.base}/missing.json` }, { retries: 2 })), (error: Error) => {
    assert.match(error.message, /^KEV download failed: HTTP 404 from http:\/\/127\.0\.0\.1:\d+\/missing\.json$/);
    return true;
  });
  assert.equal(fake.requests.filter((u) => u.pathname === '/missing.json').length, 1);

  await assert.rejects(
    syncVulnDb(store.db, fast({ ...fake.sources, nvdBaseUrl: `${fake.base}/hang` }, { timeoutMs: 100, retries: 1 })),
    (error: Error) => {
      assert.match(error.message, /^NVD download timed out: no response from http:\/\/127\.0\.0\.1:\d+\/hang\?.* within 100 ms \(after 2 attempts\)$/);
      return true;
    },
  );
  assert.equal(fake.requests.filter((u) => u.pathname === '/hang').length, 2);

  await assert.rejects(syncVulnDb(store.db, fast({ ...fake.sources, kevUrl: `${fake.base}/stall` }, { timeoutMs: 300, retries: 0 })), (error: Error) => {
    assert.match(error.message, /^KEV download stalled: nothing received from http:\/\/127\.0\.0\.1:\d+\/stall for 300 ms \(after \d+ bytes\)$/);
    return true;
  });

  const closed = await freePort();
  await assert.rejects(syncVulnDb(store.db, fast({ ...fake.sources, epssUrl: `http://127.0.0.1:${closed}/epss.csv` }, { retries: 0 })), (error: Error) => {
    assert.equal(error.message, `EPSS download failed: connection refused by 127.0.0.1:${closed} (ECONNREFUSED) (http://127.0.0.1:${closed}/epss.csv)`);
    return true;
  });
});

test('the time limit is per wait, not per download: a slow but steady download completes', { skip }, async (t) => {
  const { store } = await openTestStore(t);
  const fake = await startSources(t);
  // 40 pieces 20 ms apart take 800 ms or more, past the 500 ms limit, which no single wait reaches.
  const result = await syncVulnDb(store.db, fast({ ...fake.sources, kevUrl: `${fake.base}/trickle` }, { timeoutMs: 500, retries: 0 }));
  assert.equal(result.kev, 1404);
});
