/**
 * The vulnerability endpoints through the API: list (filters, sorts, paging, validation), show,
 * triage, CSV export, and the ownership rule. Findings are seeded straight into the store.
 *
 * Seeded names and host names start with distinct letters (ties are meant ones), so their order
 * is the same under any database collation.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { buildTestApp, signUp, STORE_KIND, type TestApp } from './helpers/app.js';
import { exportVulnerabilities, resolveFilters } from '../src/findings/vulnerabilities.service.js';
import * as vulnerabilityQueries from '../src/findings/vulnerabilities.queries.js';
import { csvCell } from '../src/findings/csv.js';

type Threat = 'Critical' | 'High' | 'Medium' | 'Low' | 'Informational';
type Status = 'Unresolved' | 'Accepted' | 'False Positive';

interface SeedScan {
  id: number;
  uuid: string;
  name: string;
  type: 'Rampart' | 'ZAP';
}

interface Seed {
  name: string;
  threat: Threat;
  cvss_base: number | null;
  hostname: string;
  host_ip: string;
  port: number | null;
  protocol?: string | null;
  service?: string | null;
  cve?: string[];
  cwe?: string | null;
  status?: Status;
  description?: string;
  solution?: string;
  evidence?: string;
  references?: string[];
  kev?: boolean;
  epss?: number | null;
}

/** A stored finding as the test knows it: what was inserted, with its id, scan and dates. */
interface Stored extends Required<Seed> {
  id: number;
  scan: SeedScan;
  cvss_vector: string | null;
  rule_id: string;
  engine: string;
  created_at: Date;
  updated_at: Date;
}

const BASE_TIME = Date.parse('2026-02-01T08:00:00Z');
const RATE = { RAMPART_RATE_LIMITS: 'trial=100000' };

async function insertScan(ctx: TestApp, userId: number, name: string, type: SeedScan['type']): Promise<SeedScan> {
  const uuid = randomUUID();
  const row = await ctx.store.db
    .insertInto('scans')
    .values({
      uuid,
      user_id: userId,
      scan_name: name,
      scan_type: type,
      scan_target: 'example.com',
      targets: JSON.stringify([{ kind: 'host', value: 'example.com' }]),
      scan_frequency: 'Weekly',
      scan_time_zone: 'UTC',
      scan_email: 'secops@example.com',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, uuid, name, type };
}

/** Inserts findings in order (ids ascending); `createdOrder[i]` spreads created_at apart from id order. */
async function insertFindings(ctx: TestApp, userId: number, scanOf: (i: number) => SeedScan, seeds: Seed[]): Promise<Stored[]> {
  const stored: Stored[] = [];
  for (const [i, seed] of seeds.entries()) {
    const scan = scanOf(i);
    const createdAt = new Date(BASE_TIME + ((i * 7) % seeds.length) * 60_000);
    const full: Omit<Stored, 'id'> = {
      protocol: 'tcp',
      service: null,
      cve: [],
      cwe: null,
      status: 'Unresolved',
      description: `${seed.name} was detected on ${seed.hostname}.`,
      solution: 'Upgrade to a fixed version.',
      evidence: '',
      references: [],
      kev: false,
      epss: null,
      ...seed,
      scan,
      cvss_vector: seed.cvss_base === null ? null : 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      rule_id: `rule-${i + 1}`,
      engine: scan.type === 'ZAP' ? 'zap' : 'rampart',
      created_at: createdAt,
      updated_at: createdAt,
    };
    const row = await ctx.store.db
      .insertInto('findings')
      .values({
        user_id: userId,
        scan_id: scan.id,
        run_index: 0,
        fingerprint: randomUUID(),
        name: full.name,
        description: full.description,
        solution: full.solution,
        threat: full.threat,
        cvss_base: full.cvss_base,
        cvss_vector: full.cvss_vector,
        cve: full.cve,
        cwe: full.cwe,
        hostname: full.hostname,
        host_ip: full.host_ip,
        port: full.port,
        protocol: full.protocol,
        service: full.service,
        scan_type: scan.type,
        engine: full.engine,
        rule_id: full.rule_id,
        evidence: full.evidence,
        engines: [full.engine],
        engine_evidence: JSON.stringify({ [full.engine]: full.evidence }),
        lifecycle: 'new',
        references: full.references,
        kev: full.kev,
        epss: full.epss,
        status: full.status,
        first_seen_at: createdAt,
        last_seen_at: createdAt,
        created_at: createdAt,
        updated_at: createdAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    stored.push({ ...full, id: row.id });
  }
  return stored;
}

const FORMULA = "=cmd|'/c calc'!A1";
const AWKWARD = 'Certificate "CN=api.example.com", issued by "R3",\r\nexpires in 12 days.\nRenew it.';

/** Twelve findings of the first account, across a network scan and a web scan. */
const OWNER_SEEDS: Seed[] = [
  { name: 'Apache HTTP Server 2.4.49 path traversal', threat: 'Critical', cvss_base: 9.8, hostname: 'www.example.com', host_ip: '203.0.113.10', port: 443, service: 'https', cve: ['CVE-2021-41773'], cwe: 'CWE-22', kev: true, epss: 0.97, references: ['https://nvd.nist.gov/vuln/detail/CVE-2021-41773', 'https://httpd.apache.org/security/vulnerabilities_24.html'] },
  { name: 'BIND 9 named crash via crafted query', threat: 'High', cvss_base: 7.5, hostname: 'mail.example.com', host_ip: '198.51.100.7', port: 53, protocol: 'udp', service: 'domain', cve: ['CVE-2023-3341'], epss: 0.012 },
  { name: 'Cleartext SMTP authentication', threat: 'Medium', cvss_base: 4.8, hostname: 'mail.example.com', host_ip: '198.51.100.7', port: 25, service: 'smtp', cwe: 'CWE-319', status: 'Accepted' },
  { name: 'Directory listing enabled', threat: 'Low', cvss_base: 3.7, hostname: 'www.example.com', host_ip: '203.0.113.10', port: 443, service: 'https', cwe: 'CWE-548' },
  { name: 'Elasticsearch without authentication', threat: 'Critical', cvss_base: 9.8, hostname: 'api.example.com', host_ip: '192.0.2.44', port: 9200, service: 'elasticsearch', cwe: 'CWE-306' },
  { name: 'FTP anonymous login allowed', threat: 'Medium', cvss_base: 5.3, hostname: 'mail.example.com', host_ip: '198.51.100.7', port: 21, service: 'ftp', status: 'False Positive' },
  { name: 'HTTP TRACE method enabled', threat: 'Low', cvss_base: 2.6, hostname: 'www.example.com', host_ip: '203.0.113.10', port: 80, service: 'http' },
  { name: 'Memcached reachable over UDP', threat: 'High', cvss_base: 7.5, hostname: 'api.example.com', host_ip: '192.0.2.44', port: 11211, protocol: 'udp', service: 'memcached' },
  { name: 'OpenSSH regreSSHion race condition', threat: 'High', cvss_base: 8.1, hostname: 'db.example.com', host_ip: '2001:db8::25', port: 22, service: 'ssh', cve: ['CVE-2024-6387'], epss: 0.35 },
  { name: 'Robots.txt lists private paths', threat: 'Informational', cvss_base: null, hostname: 'www.example.com', host_ip: '203.0.113.10', port: 443, service: 'https' },
  { name: 'SSH server version disclosed', threat: 'Informational', cvss_base: null, hostname: 'db.example.com', host_ip: '2001:db8::25', port: 22, service: 'ssh' },
  { name: 'TLS certificate expires soon', threat: 'Low', cvss_base: 3.7, hostname: 'api.example.com', host_ip: '192.0.2.44', port: 443, service: 'https', description: AWKWARD, evidence: FORMULA, solution: '@SUM(1+1) renew the certificate' },
];
/** Indexes of OWNER_SEEDS in the web scan; the rest are in the network scan. */
const WEB_SCAN = new Set([3, 6, 9]);

/** The API's Vulnerability for a stored finding. */
function resourceOf(f: Stored) {
  return {
    id: f.id,
    scan_uuid: f.scan.uuid,
    scan_name: f.scan.name,
    run_index: 0,
    target_id: null,
    name: f.name,
    description: f.description,
    solution: f.solution,
    threat: f.threat,
    cvss_base: f.cvss_base,
    cvss_vector: f.cvss_vector,
    cve: f.cve,
    cwe: f.cwe,
    hostname: f.hostname,
    host_ip: f.host_ip,
    port: f.port,
    protocol: f.protocol,
    service: f.service,
    scan_type: f.scan.type,
    engine: f.engine,
    engines: [f.engine],
    rule_id: f.rule_id,
    evidence: f.evidence,
    evidence_by_engine: { [f.engine]: f.evidence },
    references: f.references,
    kev: f.kev,
    epss: f.epss,
    status: f.status,
    lifecycle: 'new',
    first_seen_at: f.created_at.toISOString(),
    last_seen_at: f.created_at.toISOString(),
    created_at: f.created_at.toISOString(),
    updated_at: f.updated_at.toISOString(),
    url: null,
    method: null,
    parameter: null,
    qod: 95,
  };
}

const RANK: Record<Threat, number> = { Critical: 4, High: 3, Medium: 2, Low: 1, Informational: 0 };
const SORTS = ['name', 'threat', 'cvss_base', 'hostname', 'host_ip', 'scan_type', 'status', 'created_at'] as const;

/**
 * The documented order: the key, then id, both in `direction`; `threat` is the rank, then the
 * CVSS score; unscored findings last in both directions.
 */
function expectedOrder(rows: Stored[], sort: (typeof SORTS)[number], direction: 'asc' | 'desc'): number[] {
  const sign = direction === 'asc' ? 1 : -1;
  const key = (f: Stored): string | number | null =>
    sort === 'threat' ? RANK[f.threat] : sort === 'created_at' ? f.created_at.getTime() : sort === 'scan_type' ? f.scan.type : f[sort];
  const compare = (ka: string | number | null, kb: string | number | null) => {
    if (ka === kb) return 0;
    if (ka === null) return 1;
    if (kb === null) return -1;
    return (ka < kb ? -1 : 1) * sign;
  };
  return [...rows]
    .sort((a, b) => compare(key(a), key(b)) || (sort === 'threat' ? compare(a.cvss_base, b.cvss_base) : 0) || (a.id - b.id) * sign)
    .map((f) => f.id);
}

/** A strict RFC 4180 reader: quoted fields, doubled quotes, CRLF records; a bare LF outside quotes is an error. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
          } else {
            i++;
            break;
          }
        } else field += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
        if (text[i] === '"') throw new Error(`quote inside an unquoted field at ${i}`);
        field += text[i++];
      }
    }
    record.push(field);
    if (text[i] === ',') i++;
    else if (text.startsWith('\r\n', i)) {
      records.push(record);
      record = [];
      i += 2;
    } else throw new Error(`expected , or CRLF at ${i}, found ${JSON.stringify(text[i] ?? 'end of input')}`);
  }
  if (record.length > 0) throw new Error('last record without CRLF');
  return records;
}

const EXPORT_HEADER = [
  'id', 'name', 'threat', 'cvss_base', 'cvss_vector', 'cve', 'cwe', 'hostname', 'host_ip', 'port', 'protocol', 'service',
  'scan_name', 'scan_uuid', 'scan_type', 'engine', 'engines', 'rule_id', 'status', 'lifecycle', 'kev', 'epss', 'first_seen_at', 'last_seen_at',
  'description', 'solution', 'evidence', 'references', 'url', 'method', 'parameter', 'qod',
];

/** The cells the export should hold for a finding, after parsing (formula cells quoted). */
function exportedCells(f: Stored): string[] {
  const text = (v: string | number | boolean | null) => (v === null ? '' : String(v));
  const guard = (v: string) => (/^[=+\-@\t\r]/.test(v) ? `'${v}` : v);
  return [
    f.id, f.name, f.threat, f.cvss_base, f.cvss_vector, f.cve.join(' '), f.cwe, f.hostname, f.host_ip, f.port, f.protocol, f.service,
    f.scan.name, f.scan.uuid, f.scan.type, f.engine, f.engine, f.rule_id, f.status, 'new', f.kev, f.epss, f.created_at.toISOString(), f.created_at.toISOString(),
    f.description, f.solution, f.evidence, f.references.join(' '), null, null, null, 95,
  ].map((v) => guard(text(v)));
}

test(`vulnerabilities through the API (${STORE_KIND})`, async (t) => {
  // 2026-03-01 23:30 in New York is already 2026-03-02 in UTC: the export's file name uses UTC.
  const now = new Date('2026-03-02T04:30:00Z');
  const ctx = await buildTestApp(t, { env: RATE, clock: () => now });
  const owner = await signUp(ctx);
  const other = await signUp(ctx);

  const network = await insertScan(ctx, owner.userId, 'Perimeter weekly', 'Rampart');
  const web = await insertScan(ctx, owner.userId, 'Staging web app', 'ZAP');
  const mine = await insertFindings(ctx, owner.userId, (i) => (WEB_SCAN.has(i) ? web : network), OWNER_SEEDS);
  const otherScan = await insertScan(ctx, other.userId, 'Other perimeter', 'Rampart');
  const theirs = await insertFindings(ctx, other.userId, () => otherScan, [
    { name: 'Apache HTTP Server outdated', threat: 'Medium', cvss_base: 5.3, hostname: 'www.example.com', host_ip: '203.0.113.10', port: 443 },
    { name: 'Redis without authentication', threat: 'Critical', cvss_base: 9.8, hostname: 'cache.other.example', host_ip: '198.51.100.99', port: 6379 },
  ]);
  const byId = new Map(mine.map((f) => [f.id, f]));
  const idsOf = (indexes: number[]) => indexes.map((i) => mine[i]!.id);

  const get = (url: string, auth: Record<string, string> = owner.auth) => ctx.app.inject({ method: 'GET', url, headers: auth });
  const list = async (query: string, auth: Record<string, string> = owner.auth) => {
    const res = await get(`/api/vulnerabilities${query}`, auth);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { data: { id: number }[]; links: Record<string, string | null>; meta: Record<string, unknown> };
  };
  const listedIds = async (query: string) => (await list(query)).data.map((v) => v.id);
  const sortedIds = (ids: number[]) => [...ids].sort((a, b) => a - b);

  await t.test('list with the defaults: threat desc (then CVSS, unscored last), 10 a page, the Laravel envelope', async () => {
    const body = await list('');
    assert.deepEqual(body.data.map((v) => v.id), expectedOrder(mine, 'threat', 'desc').slice(0, 10));
    assert.deepEqual(body.data[0], resourceOf(byId.get(body.data[0]!.id)!), 'the Vulnerability shape, scan uuid and name from the scan');
    const first = body.data[0] as ReturnType<typeof resourceOf>;
    assert.equal(first.name, 'Elasticsearch without authentication', 'of two 9.8s, the higher id first');
    const { links: _links, ...meta } = body.meta;
    assert.deepEqual(meta, { current_page: 1, from: 1, last_page: 2, path: 'http://rampart.test/api/vulnerabilities', per_page: 10, to: 10, total: 12 });
    assert.equal(body.links.prev, null);
    assert.match(body.links.next!, /^http:\/\/rampart\.test\/api\/vulnerabilities\?.*page=2/);
    assert.match(body.links.first!, /page=1/);
    assert.match(body.links.last!, /page=2/);
  });

  await t.test('filters: severity, status, target (host name or IP), search (name, host, IP, scan name)', async () => {
    const cases: [string, number[]][] = [
      ['severity=Critical', [0, 4]],
      ['severity=Informational', [9, 10]],
      ['status=Accepted', [2]],
      ['status=False%20Positive', [5]],
      ['status=False+Positive', [5]],
      ['status=Unresolved', [0, 1, 3, 4, 6, 7, 8, 9, 10, 11]],
      ['target=mail.example.com', [1, 2, 5]],
      ['target=MAIL.Example.COM', [1, 2, 5]],
      ['target=198.51.100.7', [1, 2, 5]],
      ['target=2001:DB8::25', [8, 10]],
      ['target=example.com', []],
      ['target=198.51.100', []],
      ['search=REGRESSHION', [8]],
      ['search=api.exam', [4, 7, 11]],
      ['search=198.51', [1, 2, 5]],
      ['search=2001:db8', [8, 10]],
      ['search=staging%20WEB', [3, 6, 9]],
      ['search=perimeter', [0, 1, 2, 4, 5, 7, 8, 10, 11]],
      ['search=%25', []],
      ['search=_', []],
      ['search=%20%20', [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]],
      ['severity=High&search=api', [7]],
      ['severity=Medium&status=Accepted&target=198.51.100.7&search=smtp', [2]],
    ];
    for (const [query, indexes] of cases) {
      const body = await list(`?${query}&per_page=100`);
      assert.deepEqual(sortedIds(body.data.map((v) => v.id)), sortedIds(idsOf(indexes)), query);
      assert.equal(body.meta.total, indexes.length, `${query}: total counts the same filters`);
    }
    const paged = await list('?status=Unresolved&per_page=4');
    assert.match(paged.links.next!, /status=Unresolved/, 'links keep the filters');
    assert.match(paged.links.next!, /per_page=4/);
  });

  await t.test('every sort key, both directions', async () => {
    for (const sort of SORTS) {
      for (const direction of ['asc', 'desc'] as const) {
        assert.deepEqual(await listedIds(`?sort=${sort}&direction=${direction}&per_page=100`), expectedOrder(mine, sort, direction), `${sort} ${direction}`);
      }
    }
    assert.deepEqual(await listedIds('?sort=name&per_page=100'), expectedOrder(mine, 'name', 'desc'), 'direction defaults to desc');
  });

  await t.test('a search orders its page the same whether it is chosen among the matches or by walking the sort index', async () => {
    // The service picks the first way for searches with few matches and the second for many.
    for (const search of ['perimeter', 'staging', '198.51', 'api.exam']) {
      const filters = await resolveFilters(ctx.store.db, owner.userId, { search });
      const matches = new Set((await listedIds(`?search=${search}&per_page=100`)));
      assert.ok(matches.size > 2 && matches.size < mine.length, `${search} matches some findings`);
      for (const sort of SORTS) {
        for (const direction of ['asc', 'desc'] as const) {
          const expected = expectedOrder(mine, sort, direction).filter((id) => matches.has(id));
          for (const fewMatches of [true, false]) {
            const page = async (offset: number) =>
              (await vulnerabilityQueries.listVulnerabilities(ctx.store.db, owner.userId, filters, { sort, direction }, { limit: 2, offset, fewMatches })).map((r) => r.id);
            assert.deepEqual([...(await page(0)), ...(await page(2))], expected.slice(0, 4), `${search} ${sort} ${direction} fewMatches=${fewMatches}`);
          }
        }
      }
    }
  });

  await t.test('threat sorts by severity rank, then CVSS, ties by id in the same direction', async () => {
    const threats = async (query: string) => (await list(query)).data.map((v) => (v as unknown as { threat: Threat }).threat);
    assert.deepEqual(await threats('?sort=threat&per_page=100'), ['Critical', 'Critical', 'High', 'High', 'High', 'Medium', 'Medium', 'Low', 'Low', 'Low', 'Informational', 'Informational']);
    assert.deepEqual(await threats('?sort=threat&direction=asc&per_page=2'), ['Informational', 'Informational']);
    const critical = idsOf([0, 4]);
    assert.deepEqual((await listedIds('?sort=threat&direction=desc&per_page=2')), [...critical].reverse());
    assert.deepEqual((await listedIds('?severity=Critical&sort=threat&direction=asc')), critical);
    // cvss_base: the two 9.8s and the two 3.7s tie; unscored findings last in both directions.
    const asc = await listedIds('?sort=cvss_base&direction=asc&per_page=100');
    assert.deepEqual(asc.slice(-2), idsOf([9, 10]), 'nulls last ascending');
    const desc = await listedIds('?sort=cvss_base&per_page=100');
    assert.deepEqual(desc.slice(-2), idsOf([10, 9]), 'nulls last descending, ties by id desc');
    // Within Low: 3.7 (two, by id), then 2.6, whichever way ids run.
    assert.deepEqual((await listedIds('?severity=Low')), idsOf([11, 3, 6]));
    assert.deepEqual((await listedIds('?severity=Low&direction=asc')), idsOf([6, 3, 11]));
  });

  await t.test('paging: last page, a page past the end, per_page 1 and 100, no overlap', async () => {
    const all = expectedOrder(mine, 'threat', 'desc');
    const last = await list('?page=2');
    assert.deepEqual(last.data.map((v) => v.id), all.slice(10));
    assert.equal(last.meta.from, 11);
    assert.equal(last.meta.to, 12);
    assert.equal(last.links.next, null);
    assert.match(last.links.prev!, /page=1/);

    const beyond = await list('?page=3');
    assert.deepEqual(beyond.data, []);
    assert.equal(beyond.meta.from, null);
    assert.equal(beyond.meta.to, null);
    assert.equal(beyond.meta.current_page, 3);
    assert.equal(beyond.meta.last_page, 2);
    assert.equal(beyond.meta.total, 12);
    assert.equal((await list('?page=10000000')).data.length, 0, 'the largest page allowed is empty, not an error');
    const absurd = await ctx.app.inject({ method: 'GET', url: '/api/vulnerabilities?page=900719925474099', headers: owner.auth });
    assert.equal(absurd.statusCode, 422, 'a page beyond 10,000,000 is refused by name');
    assert.deepEqual(Object.keys(absurd.json().errors), ['page']);

    const one = await list('?per_page=1&page=12');
    assert.deepEqual(one.data.map((v) => v.id), [all[11]]);
    assert.equal(one.meta.last_page, 12);
    assert.equal(one.meta.per_page, 1);

    const hundred = await list('?per_page=100');
    assert.deepEqual(hundred.data.map((v) => v.id), all);
    assert.equal(hundred.meta.last_page, 1);
    assert.equal(hundred.links.next, null);

    const pages: number[] = [];
    for (let page = 1; page <= 3; page++) pages.push(...(await listedIds(`?sort=status&direction=asc&per_page=5&page=${page}`)));
    assert.deepEqual(pages, expectedOrder(mine, 'status', 'asc'), 'pages over many ties neither overlap nor skip');

    const empty = await list('', other.auth);
    assert.equal(empty.meta.total, 2);
  });

  await t.test('422 names each bad parameter', async () => {
    const cases: [string, string, string][] = [
      ['severity=Bogus', 'severity', 'The selected severity is invalid. Valid: Critical, High, Medium, Low, Informational.'],
      ['severity=critical', 'severity', 'The selected severity is invalid. Valid: Critical, High, Medium, Low, Informational.'],
      ['status=x', 'status', 'The selected status is invalid. Valid: Unresolved, Accepted, False Positive.'],
      ['sort=nope', 'sort', 'The selected sort is invalid. Valid: name, threat, cvss_base, hostname, host_ip, scan_type, status, created_at.'],
      ['sort=id', 'sort', 'The selected sort is invalid. Valid: name, threat, cvss_base, hostname, host_ip, scan_type, status, created_at.'],
      ['direction=up', 'direction', 'The selected direction is invalid. Valid: asc, desc.'],
      ['per_page=0', 'per_page', 'The per page field must be at least 1.'],
      ['per_page=101', 'per_page', 'The per page field must not be greater than 100.'],
      ['per_page=ten', 'per_page', 'The per page field must be an integer.'],
      ['page=0', 'page', 'The page field must be at least 1.'],
      [`search=${'a'.repeat(256)}`, 'search', 'The search field must not be greater than 255 characters.'],
    ];
    for (const [query, field, message] of cases) {
      const res = await get(`/api/vulnerabilities?${query}`);
      assert.equal(res.statusCode, 422, query);
      const body = res.json();
      assert.deepEqual(Object.keys(body.errors), [field], query);
      assert.deepEqual(body.errors[field], [message], query);
      assert.equal(body.message, message);
    }
    const two = await get('/api/vulnerabilities?severity=Bogus&direction=up');
    assert.equal(two.json().message, 'The selected severity is invalid. Valid: Critical, High, Medium, Low, Informational. (and 1 more error)');
    for (const query of ['severity=Bogus', 'status=x']) {
      const res = await get(`/api/vulnerabilities/export?${query}`);
      assert.equal(res.statusCode, 422, `export ${query}`);
      assert.deepEqual(Object.keys(res.json().errors), [query.split('=')[0]]);
    }
  });

  await t.test('401 without a token on every endpoint', async () => {
    const id = mine[0]!.id;
    const requests = [
      { method: 'GET', url: '/api/vulnerabilities' },
      { method: 'GET', url: `/api/vulnerabilities/${id}` },
      { method: 'GET', url: '/api/vulnerabilities/export' },
      { method: 'POST', url: `/api/vulnerabilities/${id}/accept`, payload: {} },
      { method: 'POST', url: `/api/vulnerabilities/${id}/false-positive`, payload: {} },
      { method: 'POST', url: `/api/vulnerabilities/${id}/undo`, payload: {} },
    ] as const;
    for (const request of requests) {
      for (const headers of [{}, { authorization: 'Bearer not.a.token' }]) {
        const res = await ctx.app.inject({ ...request, headers });
        assert.equal(res.statusCode, 401, `${request.method} ${request.url}`);
        assert.deepEqual(res.json(), { message: 'Unauthenticated.' });
        assert.equal(res.headers['www-authenticate'], 'Bearer resource_metadata="http://rampart.test/.well-known/oauth-protected-resource"');
      }
    }
    assert.equal((await ctx.store.db.selectFrom('findings').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status, 'Unresolved');
  });

  await t.test('show: 200 with the resource, 404 for unknown, non-integer or out-of-range ids', async () => {
    const f = mine[11]!;
    const res = await get(`/api/vulnerabilities/${f.id}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { data: resourceOf(f) });
    for (const id of ['999999', 'abc', '1.5', '-1', '0', '1e3', '99999999999999999999', `${f.id}abc`]) {
      const missing = await get(`/api/vulnerabilities/${id}`);
      assert.equal(missing.statusCode, 404, id);
      assert.deepEqual(missing.json(), { message: 'Vulnerability not found.' });
    }
  });

  await t.test('export: CSV by id, header, every column, quoting, formula neutralised, file name in UTC', async () => {
    const res = await get('/api/vulnerabilities/export');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(res.headers['content-disposition'], 'attachment; filename="rampart-vulnerabilities-2026-03-02.csv"');
    const records = parseCsv(res.body);
    assert.deepEqual(records[0], EXPORT_HEADER);
    assert.deepEqual(records.slice(1), mine.map(exportedCells));

    const tls = records.find((r) => r[1] === 'TLS certificate expires soon')!;
    assert.equal(tls[EXPORT_HEADER.indexOf('description')], AWKWARD, 'comma, quotes, CRLF and LF round-trip');
    assert.equal(tls[EXPORT_HEADER.indexOf('evidence')], `'${FORMULA}`);
    assert.equal(tls[EXPORT_HEADER.indexOf('solution')], "'@SUM(1+1) renew the certificate");
    assert.ok(res.body.includes(`"Certificate ""CN=api.example.com"", issued by ""R3"",\r\n`), 'quoted, quotes doubled');
    const apache = records.find((r) => r[1]?.startsWith('Apache'))!;
    assert.equal(apache[5], 'CVE-2021-41773');
    assert.equal(apache[EXPORT_HEADER.indexOf('kev')], 'true');
    assert.equal(apache[EXPORT_HEADER.indexOf('references')], 'https://nvd.nist.gov/vuln/detail/CVE-2021-41773 https://httpd.apache.org/security/vulnerabilities_24.html');
  });

  await t.test('export applies the filters', async () => {
    const exported = async (query: string) => parseCsv((await get(`/api/vulnerabilities/export?${query}`)).body).slice(1).map((r) => Number(r[0]));
    assert.deepEqual(await exported('severity=Critical'), idsOf([0, 4]));
    assert.deepEqual(await exported('status=False%20Positive'), idsOf([5]));
    assert.deepEqual(await exported('target=MAIL.example.com'), idsOf([1, 2, 5]));
    assert.deepEqual(await exported('search=staging'), idsOf([3, 6, 9]));
    assert.deepEqual(await exported('severity=High&target=192.0.2.44'), idsOf([7]));
    const none = await get('/api/vulnerabilities/export?search=nothing-matches-this');
    assert.equal(none.body, `${EXPORT_HEADER.join(',')}\r\n`, 'only the header');
  });

  await t.test('export reads the store a page at a time', async () => {
    const stream = await exportVulnerabilities(ctx.store.db, owner.userId, {}, 5);
    const chunks: string[] = [];
    for await (const chunk of stream) chunks.push(String(chunk));
    assert.equal(chunks.length, 1 + 3, 'the header, then one chunk per page of 5 (5, 5, 2)');
    assert.deepEqual(parseCsv(chunks.join('')).slice(1).map((r) => Number(r[0])), mine.map((f) => f.id));
  });

  await t.test('triage: accept, false positive, undo; fields in the body are ignored; no body is a 422', async () => {
    const f = mine[0]!;
    const post = (action: string, payload?: unknown, id: number | string = f.id) =>
      ctx.app.inject({ method: 'POST', url: `/api/vulnerabilities/${id}/${action}`, headers: owner.auth, ...(payload === undefined ? {} : { payload: payload as object }) });
    const row = () => ctx.store.db.selectFrom('findings').select(['status', 'updated_at']).where('id', '=', f.id).executeTakeFirstOrThrow();
    const steps = [
      ['accept', 'Accepted', 'Vulnerability marked as accepted.'],
      ['false-positive', 'False Positive', 'Vulnerability marked as false positive.'],
      ['accept', 'Accepted', 'Vulnerability marked as accepted.'],
      ['undo', 'Unresolved', 'Vulnerability status reset to unresolved.'],
      ['undo', 'Unresolved', 'Vulnerability status reset to unresolved.'],
    ] as const;
    for (const [action, status, message] of steps) {
      const before = await row();
      const res = await post(action, {});
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { message });
      const after = await row();
      assert.equal(after.status, status, action);
      assert.ok(after.updated_at.getTime() > f.updated_at.getTime() && after.updated_at >= before.updated_at, 'updated_at moves');
      assert.equal((await get(`/api/vulnerabilities/${f.id}`)).json().data.status, status);
    }

    const extra = await post('false-positive', { reason: 'scanner cannot see the WAF', status: 'Accepted' });
    assert.equal(extra.statusCode, 200);
    assert.equal((await row()).status, 'False Positive', 'the body cannot choose the status');

    for (const action of ['accept', 'false-positive', 'undo']) {
      const missing = await post(action);
      assert.equal(missing.statusCode, 422, action);
      assert.deepEqual(missing.json(), { message: 'The request body must be a JSON object.', errors: { body: ['The request body must be a JSON object.'] } });
      const array = await post(action, []);
      assert.equal(array.statusCode, 422);
      assert.deepEqual(Object.keys(array.json().errors), ['body']);
      for (const id of ['999999', 'abc', '0']) {
        const unknown = await post(action, {}, id);
        assert.equal(unknown.statusCode, 404, `${action} ${id}`);
        assert.deepEqual(unknown.json(), { message: 'Vulnerability not found.' });
      }
    }
    assert.equal((await row()).status, 'False Positive', 'rejected requests changed nothing');
    await post('undo', {});
  });

  await t.test('ownership: another account never sees, shows, triages or exports these findings', async () => {
    const otherIds = theirs.map((f) => f.id);
    const listed = await list('?per_page=100', other.auth);
    assert.deepEqual(sortedIds(listed.data.map((v) => v.id)), sortedIds(otherIds));
    const sameHost = await list('?target=www.example.com&per_page=100', other.auth);
    assert.deepEqual(sameHost.data.map((v) => v.id), [theirs[0]!.id], 'a host both accounts scanned');
    const byScanName = await list('?search=perimeter&per_page=100', other.auth);
    assert.deepEqual(sortedIds(byScanName.data.map((v) => v.id)), sortedIds(otherIds), "its own scan's findings only");
    assert.ok((await list('?per_page=100')).data.every((v) => !otherIds.includes(v.id)), 'nor the reverse');

    const victim = mine[1]!;
    const before = await ctx.store.db.selectFrom('findings').select(['status', 'updated_at']).where('id', '=', victim.id).executeTakeFirstOrThrow();
    const show = await get(`/api/vulnerabilities/${victim.id}`, other.auth);
    assert.equal(show.statusCode, 404);
    assert.deepEqual(show.json(), { message: 'Vulnerability not found.' });
    for (const action of ['accept', 'false-positive', 'undo']) {
      const res = await ctx.app.inject({ method: 'POST', url: `/api/vulnerabilities/${victim.id}/${action}`, headers: other.auth, payload: {} });
      assert.equal(res.statusCode, 404, action);
      assert.deepEqual(res.json(), { message: 'Vulnerability not found.' });
    }
    const after = await ctx.store.db.selectFrom('findings').select(['status', 'updated_at']).where('id', '=', victim.id).executeTakeFirstOrThrow();
    assert.deepEqual(after, before, 'the row is unchanged');

    const exported = parseCsv((await get('/api/vulnerabilities/export', other.auth)).body);
    assert.deepEqual(exported.slice(1).map((r) => Number(r[0])), otherIds);
    assert.ok(!exported.some((r) => r[13] === network.uuid || r[13] === web.uuid));
  });

  await t.test('the OpenAPI document lists the export columns', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const exportOp = doc.paths['/api/vulnerabilities/export'].get;
    assert.ok(exportOp.description.includes(EXPORT_HEADER.join(', ')));
    assert.ok(doc.paths['/api/vulnerabilities/{id}/false-positive'].post);
  });
});

test(`without a sort, findings come most severe first, a High one without a score before a scored Low one (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { env: RATE });
  const owner = await signUp(ctx);
  const scan = await insertScan(ctx, owner.userId, 'Estate', 'Rampart');
  const host = { hostname: 'www.example.com', host_ip: '203.0.113.10', port: 443 };
  const seeds: Seed[] = [
    { name: 'Admin panel exposed', threat: 'High', cvss_base: null, ...host },
    { name: 'Banner discloses version', threat: 'Low', cvss_base: 3.9, ...host },
    { name: 'Cookie without Secure', threat: 'Low', cvss_base: 3.9, ...host },
    { name: 'Default credentials', threat: 'Critical', cvss_base: null, ...host },
    { name: 'Exposed .git directory', threat: 'Critical', cvss_base: 9.1, ...host },
    { name: 'Form posts over HTTP', threat: 'Medium', cvss_base: 6.5, ...host },
    { name: 'Git server outdated', threat: 'High', cvss_base: 7.5, ...host },
    { name: 'Header X-Frame-Options missing', threat: 'Informational', cvss_base: null, ...host },
    { name: 'Information page', threat: 'Informational', cvss_base: 0, ...host },
  ];
  const stored = await insertFindings(ctx, owner.userId, () => scan, seeds);
  const target = await ctx.store.db.insertInto('targets').values({ user_id: owner.userId, target: 'www.example.com', type: 'Domain' }).returning('id').executeTakeFirstOrThrow();
  await ctx.store.db.updateTable('findings').set({ target_id: target.id }).where('user_id', '=', owner.userId).execute();
  const ids = (indexes: number[]) => indexes.map((i) => stored[i]!.id);
  const listed = async (path: string) => {
    const res = await ctx.app.inject({ method: 'GET', url: path, headers: owner.auth });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { data: { id: number }[] }).data.map((v) => v.id);
  };

  // Rank first; within it the worst score, unscored last; equal scores by id in the direction.
  const severeFirst = ids([4, 3, 6, 0, 5, 2, 1, 8, 7]);
  for (const path of ['/api/vulnerabilities', `/api/targets/${target.id}/vulnerabilities`]) {
    assert.deepEqual(await listed(`${path}?per_page=100`), severeFirst, path);
    assert.deepEqual(await listed(`${path}?sort=threat&direction=desc&per_page=100`), severeFirst, `${path}: the default is sort=threat`);
    assert.deepEqual([...(await listed(`${path}?per_page=4`)), ...(await listed(`${path}?per_page=4&page=2`)), ...(await listed(`${path}?per_page=4&page=3`))], severeFirst, `${path}: pages`);
    assert.deepEqual(await listed(`${path}?direction=asc&per_page=100`), ids([8, 7, 1, 2, 5, 6, 0, 4, 3]), `${path}: ascending, unscored still last in each rank`);
    // sort=cvss_base keeps its meaning: the score alone, unscored last both ways.
    assert.deepEqual(await listed(`${path}?sort=cvss_base&per_page=100`), ids([4, 6, 5, 2, 1, 8, 7, 3, 0]), `${path}: cvss_base desc`);
    assert.deepEqual(await listed(`${path}?sort=cvss_base&direction=asc&per_page=100`), ids([8, 1, 2, 5, 6, 4, 0, 3, 7]), `${path}: cvss_base asc`);
  }
  // The search path that sorts among its matches keeps the same order.
  assert.deepEqual(await listed('/api/vulnerabilities?search=example&per_page=100'), severeFirst, 'a search');

  const doc = (await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
  for (const path of ['/api/vulnerabilities', '/api/targets/{id}/vulnerabilities']) {
    const sort = doc.paths[path].get.parameters.find((p: { name: string }) => p.name === 'sort');
    assert.equal(sort.schema.default, 'threat', path);
    assert.match(sort.description ?? sort.schema.description, /severity rank .* then CVSS score \(unscored last\)/, path);
  }
});

test(`vulnerability export streams thousands of findings in keyset pages (${STORE_KIND})`, async (t) => {
  const ctx = await buildTestApp(t, { env: RATE });
  const owner = await signUp(ctx);
  const scan = await insertScan(ctx, owner.userId, 'Large estate', 'Rampart');
  // 2,000 rows: exactly two export pages, so the end is found by an empty page.
  const total = 2000;
  for (let start = 0; start < total; start += 500) {
    await ctx.store.db
      .insertInto('findings')
      .values(
        Array.from({ length: 500 }, (_, k) => {
          const n = start + k;
          return {
            user_id: owner.userId,
            scan_id: scan.id,
            run_index: 0,
            fingerprint: `fp-${n}`,
            name: `Open port ${n}`,
            description: 'A TCP port accepts connections.',
            solution: 'Close the port if it is not needed.',
            evidence: `${1024 + n}/tcp open`,
            threat: 'Informational' as const,
            hostname: `host-${n % 50}.example.com`,
            host_ip: `10.0.${Math.floor(n / 250)}.${n % 250}`,
            port: 1024 + n,
            scan_type: 'Rampart',
            engine: 'rampart',
            rule_id: 'open-port',
            cve: [],
            references: [],
          };
        }),
      )
      .execute();
  }
  const res = await ctx.app.inject({ method: 'GET', url: '/api/vulnerabilities/export', headers: owner.auth });
  assert.equal(res.statusCode, 200);
  const ids = parseCsv(res.body).slice(1).map((r) => Number(r[0]));
  assert.equal(ids.length, total);
  assert.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]!), 'ascending ids, none repeated');
  const filtered = parseCsv((await ctx.app.inject({ method: 'GET', url: '/api/vulnerabilities/export?target=host-7.example.com', headers: owner.auth })).body);
  assert.equal(filtered.length - 1, total / 50);
  const page = await ctx.app.inject({ method: 'GET', url: '/api/vulnerabilities?per_page=100&page=20&sort=host_ip&direction=asc', headers: owner.auth });
  assert.equal(page.json().meta.total, total);
  assert.equal(page.json().data.length, 100);
});

test('csvCell quotes what RFC 4180 requires and neutralises formula starts', () => {
  assert.equal(csvCell('plain'), 'plain');
  assert.equal(csvCell(null), '');
  assert.equal(csvCell(undefined), '');
  assert.equal(csvCell(9.8), '9.8');
  assert.equal(csvCell(false), 'false');
  assert.equal(csvCell('a,b'), '"a,b"');
  assert.equal(csvCell('say "hi"'), '"say ""hi"""');
  assert.equal(csvCell('line\nbreak'), '"line\nbreak"');
  assert.equal(csvCell('cr\rhere'), '"cr\rhere"');
  for (const start of ['=', '+', '-', '@']) assert.equal(csvCell(`${start}1+1`), `'${start}1+1`);
  assert.equal(csvCell('\t=1'), "'\t=1");
  assert.equal(csvCell('\r=1'), `"'\r=1"`, 'neutralised, then quoted for the CR');
  assert.equal(csvCell('=HYPERLINK("http://x","y")'), `"'=HYPERLINK(""http://x"",""y"")"`);
  assert.equal(csvCell('a=b'), 'a=b', 'only a leading character matters');
});
