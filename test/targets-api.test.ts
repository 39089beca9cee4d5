/**
 * The target endpoints through the API: list (filters, sorts, paging), show, delete and a target's
 * vulnerabilities, with targets, scans and findings seeded straight into the store.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import type { Insertable } from 'kysely';
import type { FindingsTable, TargetsTable, ThreatLevel } from '../src/db/schema.js';
import { buildTestApp, signUp, STORE_KIND, type TestApp } from './helpers/app.js';

type Auth = { authorization: string };

interface SeedTarget {
  target: string;
  type: 'Domain' | 'Ip';
  status: 'Active' | 'Inactive' | 'Unknown';
  description: string | null;
  last_scan: string | null;
  created_at: string;
}
interface SeedFinding {
  name: string;
  threat: ThreatLevel;
  cvss_base: number | null;
  scan_type: string;
  created_at: string;
  /** Index into the seeded scans. */
  scan: number;
}

/** The first account's targets: five named ones, then seven fillers (ids in this order). */
const NAMED: SeedTarget[] = [
  { target: 'alpha.example.com', type: 'Domain', status: 'Active', description: 'Public web', last_scan: '2026-03-05T10:00:00Z', created_at: '2026-01-01T00:00:00Z' },
  { target: '93.184.216.34', type: 'Ip', status: 'Inactive', description: null, last_scan: '2026-03-07T10:00:00Z', created_at: '2026-01-02T00:00:00Z' },
  { target: 'mail.example.org', type: 'Domain', status: 'Unknown', description: 'Mail relay', last_scan: null, created_at: '2026-01-03T00:00:00Z' },
  { target: '10.0.0.5', type: 'Ip', status: 'Active', description: 'Database', last_scan: '2026-03-05T10:00:00Z', created_at: '2026-01-04T00:00:00Z' },
  { target: 'zeta.example.net', type: 'Domain', status: 'Unknown', description: null, last_scan: null, created_at: '2026-01-05T00:00:00Z' },
];
const FILLERS: SeedTarget[] = Array.from({ length: 7 }, (_, i) => ({
  target: `filler-${i + 1}.test`,
  type: 'Domain' as const,
  status: 'Active' as const,
  description: null,
  last_scan: `2026-02-0${i + 1}T10:00:00Z`,
  created_at: `2026-01-1${i}T00:00:00Z`,
}));
const TARGETS = [...NAMED, ...FILLERS];

/** Findings by index into TARGETS: alpha 3, 93.184.216.34 1, 10.0.0.5 6; the others none. */
const FINDINGS: Record<number, SeedFinding[]> = {
  0: [
    { name: 'OpenSSH regreSSHion', threat: 'Critical', cvss_base: 9.8, scan_type: 'Rampart', created_at: '2026-03-05T10:00:01Z', scan: 0 },
    { name: 'Weak TLS ciphers', threat: 'High', cvss_base: 7.5, scan_type: 'Rampart', created_at: '2026-03-05T10:00:02Z', scan: 0 },
    { name: 'TCP timestamps', threat: 'Low', cvss_base: 2.6, scan_type: 'Rampart', created_at: '2026-03-05T10:00:03Z', scan: 0 },
  ],
  1: [{ name: 'Outdated nginx', threat: 'Medium', cvss_base: 5.3, scan_type: 'Nuclei', created_at: '2026-03-07T10:00:00Z', scan: 1 }],
  3: [
    { name: 'OpenSSH regreSSHion', threat: 'Critical', cvss_base: 9.1, scan_type: 'Rampart', created_at: '2026-03-05T11:00:04Z', scan: 0 },
    { name: 'Anonymous FTP', threat: 'High', cvss_base: 7.5, scan_type: 'Nuclei', created_at: '2026-03-05T11:00:02Z', scan: 1 },
    { name: 'Cleartext Telnet', threat: 'Medium', cvss_base: 4.3, scan_type: 'Nuclei', created_at: '2026-03-05T11:00:06Z', scan: 1 },
    { name: 'Self-signed certificate', threat: 'Informational', cvss_base: null, scan_type: 'Rampart', created_at: '2026-03-05T11:00:01Z', scan: 0 },
    { name: 'TCP timestamps', threat: 'Low', cvss_base: 2.6, scan_type: 'OpenVas', created_at: '2026-03-05T11:00:05Z', scan: 0 },
    { name: 'Server banner disclosed', threat: 'Informational', cvss_base: null, scan_type: 'ZAP', created_at: '2026-03-05T11:00:03Z', scan: 1 },
  ],
};

interface Seeded {
  targetIds: number[];
  /** Finding ids by target index, in FINDINGS order. */
  findingIds: Record<number, number[]>;
  scans: { id: number; uuid: string; scan_name: string }[];
}

async function insertScan(ctx: TestApp, userId: number, name: string, type: 'Rampart' | 'Nuclei') {
  return ctx.store.db
    .insertInto('scans')
    .values({
      uuid: randomUUID(),
      user_id: userId,
      scan_name: name,
      scan_type: type,
      scan_target: 'seeded',
      targets: '[]',
      scan_frequency: 'One-time',
      scan_time_zone: 'UTC',
      scan_email: 'ops@example.com',
    })
    .returning(['id', 'uuid', 'scan_name'])
    .executeTakeFirstOrThrow();
}

function findingRow(userId: number, scanId: number, targetId: number, host: string, f: SeedFinding): Insertable<FindingsTable> {
  return {
    user_id: userId,
    scan_id: scanId,
    target_id: targetId,
    run_index: 0,
    fingerprint: randomUUID(),
    name: f.name,
    description: '',
    solution: '',
    evidence: '',
    threat: f.threat,
    cvss_base: f.cvss_base,
    cve: [],
    hostname: host,
    host_ip: host,
    port: 22,
    protocol: 'tcp',
    scan_type: f.scan_type,
    engine: 'rampart',
    rule_id: f.name.toLowerCase().replace(/\W+/g, '-'),
    references: [],
    created_at: f.created_at,
  };
}

/** Seeds targets with findings for `userId`; ids follow the order of `targets`. */
async function seed(ctx: TestApp, userId: number, targets: SeedTarget[], findings: Record<number, SeedFinding[]>): Promise<Seeded> {
  const scans = [await insertScan(ctx, userId, 'Perimeter', 'Rampart'), await insertScan(ctx, userId, 'Web', 'Nuclei')];
  const targetIds: number[] = [];
  for (const t of targets) {
    const row: Insertable<TargetsTable> = { user_id: userId, ...t, last_scan: t.last_scan === null ? null : new Date(t.last_scan) };
    targetIds.push((await ctx.store.db.insertInto('targets').values(row).returning('id').executeTakeFirstOrThrow()).id);
  }
  const findingIds: Record<number, number[]> = {};
  for (const [index, list] of Object.entries(findings)) {
    const i = Number(index);
    findingIds[i] = [];
    for (const f of list) {
      const row = findingRow(userId, scans[f.scan]!.id, targetIds[i]!, targets[i]!.target, f);
      findingIds[i].push((await ctx.store.db.insertInto('findings').values(row).returning('id').executeTakeFirstOrThrow()).id);
    }
  }
  return { targetIds, findingIds, scans };
}

/** Two accounts: the owner with TARGETS, the other with a same-named target and two findings. */
async function setUp(t: import('node:test').TestContext) {
  const ctx = await buildTestApp(t);
  // The pro plan's rate limit (600 a minute) leaves room for every request of a test.
  const owner = await signUp(ctx, { role: 'pro' });
  const other = await signUp(ctx, { role: 'pro' });
  const mine = await seed(ctx, owner.userId, TARGETS, FINDINGS);
  const theirs = await seed(ctx, other.userId, [NAMED[0]!], {
    0: [
      { name: 'Other account finding', threat: 'High', cvss_base: 8.0, scan_type: 'Rampart', created_at: '2026-03-01T00:00:00Z', scan: 0 },
      { name: 'Other account finding 2', threat: 'Low', cvss_base: 1.0, scan_type: 'Rampart', created_at: '2026-03-01T00:00:00Z', scan: 0 },
    ],
  });
  return { ctx, owner, other, mine, theirs };
}

async function get(ctx: TestApp, auth: Auth, url: string) {
  return ctx.app.inject({ method: 'GET', url, headers: auth });
}

async function listIds(ctx: TestApp, auth: Auth, query: string): Promise<number[]> {
  const res = await get(ctx, auth, `/api/targets?per_page=100&${query}`);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data.map((t: { id: number }) => t.id);
}

// ---- The expected orders, computed independently of the SQL ----

type Key = string | number | null;
/** Sorted ids: by key in `direction`, nulls last either way, ties by id in `direction`. */
function expectedOrder(rows: { id: number; key: Key }[], direction: 'asc' | 'desc'): number[] {
  const sign = direction === 'asc' ? 1 : -1;
  return [...rows]
    .sort((a, b) => {
      if (a.key === null && b.key !== null) return 1;
      if (b.key === null && a.key !== null) return -1;
      if (a.key !== null && b.key !== null && a.key !== b.key) return (a.key < b.key ? -1 : 1) * sign;
      return (a.id - b.id) * sign;
    })
    .map((r) => r.id);
}

const THREAT_RANK: Record<ThreatLevel, number> = { Critical: 4, High: 3, Medium: 2, Low: 1, Informational: 0 };

test(`target list, show and vulnerabilities (${STORE_KIND})`, async (t) => {
  const { ctx, owner, mine } = await setUp(t);
  const ids = mine.targetIds;
  const [alpha, ip93, mail, db10, zeta] = ids as [number, number, number, number, number];
  const fillers = ids.slice(5);

  await t.test('defaults: last_scan desc with never-scanned targets last, 10 a page, Laravel envelope', async () => {
    const res = await get(ctx, owner.auth, '/api/targets');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    // 93.184.216.34 (03-07), then the two 03-05 ties by id desc, fillers newest first; nulls on page 2.
    const expected = [ip93, db10, alpha, ...[...fillers].reverse(), zeta, mail];
    assert.deepEqual(body.data.map((x: { id: number }) => x.id), expected.slice(0, 10));
    assert.equal(body.meta.total, 12);
    assert.equal(body.meta.per_page, 10);
    assert.equal(body.meta.current_page, 1);
    assert.equal(body.meta.last_page, 2);
    assert.equal(body.meta.from, 1);
    assert.equal(body.meta.to, 10);
    assert.equal(body.meta.path, 'http://rampart.test/api/targets');
    assert.equal(body.links.prev, null);
    assert.match(body.links.first, /^http:\/\/rampart\.test\/api\/targets\?.*page=1$/);
    assert.match(body.links.next, /[?&]page=2$/);
    assert.match(body.links.next, /sort=last_scan/);
    assert.match(body.links.last, /[?&]page=2$/);

    const page2 = (await get(ctx, owner.auth, '/api/targets?page=2')).json();
    assert.deepEqual(page2.data.map((x: { id: number }) => x.id), [zeta, mail]);
    assert.equal(page2.meta.from, 11);
    assert.equal(page2.meta.to, 12);
    assert.equal(page2.links.next, null);
  });

  await t.test('items carry the Target fields with counts by threat computed from the findings', async () => {
    const body = (await get(ctx, owner.auth, '/api/targets?per_page=100')).json();
    const item = body.data.find((x: { id: number }) => x.id === db10);
    assert.deepEqual(item, {
      id: db10,
      target: '10.0.0.5',
      type: 'Ip',
      description: 'Database',
      status: 'Active',
      last_scan: '2026-03-05T10:00:00.000Z',
      vulnerabilities_count: 6,
      critical: 1,
      high: 1,
      medium: 1,
      low: 1,
      informational: 2,
      created_at: '2026-01-04T00:00:00.000Z',
    });
    const counts = Object.fromEntries(body.data.map((x: { id: number; vulnerabilities_count: number }) => [x.id, x.vulnerabilities_count]));
    assert.deepEqual(counts, { [alpha]: 3, [ip93]: 1, [mail]: 0, [db10]: 6, [zeta]: 0, ...Object.fromEntries(fillers.map((id) => [id, 0])) });
  });

  await t.test('filters: search on target, description and type (case-insensitive, literal), type, status', async () => {
    const sorted = (list: number[]) => [...list].sort((a, b) => a - b);
    assert.deepEqual(sorted(await listIds(ctx, owner.auth, 'search=EXAMPLE')), [alpha, mail, zeta]);
    assert.deepEqual(sorted(await listIds(ctx, owner.auth, 'search=relay')), [mail], 'description');
    assert.deepEqual(sorted(await listIds(ctx, owner.auth, 'search=iP')), [ip93, db10], 'type');
    assert.deepEqual(sorted(await listIds(ctx, owner.auth, 'search=184.216')), [ip93]);
    assert.deepEqual(await listIds(ctx, owner.auth, `search=${encodeURIComponent('%')}`), [], '% is not a wildcard');
    assert.deepEqual(await listIds(ctx, owner.auth, 'search=filler_1'), [], '_ is not a wildcard');
    assert.deepEqual(await listIds(ctx, owner.auth, 'search=nothing-like-this'), []);
    assert.deepEqual(sorted(await listIds(ctx, owner.auth, 'type=Ip')), [ip93, db10]);
    assert.equal((await listIds(ctx, owner.auth, 'type=Domain')).length, 10);
    assert.deepEqual(sorted(await listIds(ctx, owner.auth, 'status=Unknown')), [mail, zeta]);
    assert.deepEqual(await listIds(ctx, owner.auth, 'status=Inactive'), [ip93]);
    assert.deepEqual(sorted(await listIds(ctx, owner.auth, 'status=Active&type=Domain')), sorted([alpha, ...fillers]));
    assert.deepEqual(await listIds(ctx, owner.auth, 'status=Active&type=Ip&search=data'), [db10]);
    const filtered = (await get(ctx, owner.auth, '/api/targets?type=Ip&per_page=1')).json();
    assert.equal(filtered.meta.total, 2, 'the total counts the filtered targets');
    assert.match(filtered.links.next, /type=Ip/, 'links keep the filters');
  });

  await t.test('every sort key in both directions, ties by id', async () => {
    const counts: Record<number, number> = { 0: 3, 1: 1, 3: 6 };
    const keys: Record<string, (s: SeedTarget, i: number) => Key> = {
      target: (s) => s.target,
      type: (s) => s.type,
      status: (s) => s.status,
      last_scan: (s) => s.last_scan,
      created_at: (s) => s.created_at,
      vulnerabilities: (_s, i) => counts[i] ?? 0,
    };
    for (const [sort, keyOf] of Object.entries(keys)) {
      for (const direction of ['asc', 'desc'] as const) {
        const rows = TARGETS.map((s, i) => ({ id: ids[i]!, key: keyOf(s, i) }));
        assert.deepEqual(await listIds(ctx, owner.auth, `sort=${sort}&direction=${direction}`), expectedOrder(rows, direction), `${sort} ${direction}`);
      }
    }
    // Spelled out for the keys whose order matters most.
    assert.deepEqual((await listIds(ctx, owner.auth, 'sort=vulnerabilities')).slice(0, 4), [db10, alpha, ip93, ...fillers.slice(-1)]);
    assert.deepEqual((await listIds(ctx, owner.auth, 'sort=vulnerabilities&direction=asc')).slice(-3), [ip93, alpha, db10]);
    assert.deepEqual(await listIds(ctx, owner.auth, 'sort=type&direction=asc'), [alpha, mail, zeta, ...fillers, ip93, db10]);
    assert.deepEqual((await listIds(ctx, owner.auth, 'sort=last_scan&direction=asc')).slice(-2), [mail, zeta], 'nulls last ascending too');
    // The default direction is desc.
    assert.deepEqual(await listIds(ctx, owner.auth, 'sort=created_at'), [...ids].reverse());
  });

  await t.test('paging edges: per_page 1 and 100, the last page, a page past the end', async () => {
    const one = (await get(ctx, owner.auth, '/api/targets?per_page=1&page=3')).json();
    assert.equal(one.data.length, 1);
    assert.equal(one.data[0].id, alpha, 'third by last_scan desc (after 93.184.216.34 and the later-id tie 10.0.0.5)');
    assert.equal(one.meta.last_page, 12);
    assert.equal(one.meta.from, 3);
    assert.equal(one.meta.to, 3);
    const all = (await get(ctx, owner.auth, '/api/targets?per_page=100')).json();
    assert.equal(all.data.length, 12);
    assert.equal(all.meta.last_page, 1);
    assert.equal(all.links.next, null);
    const last = (await get(ctx, owner.auth, '/api/targets?per_page=5&page=3')).json();
    assert.equal(last.data.length, 2);
    assert.equal(last.meta.from, 11);
    assert.equal(last.meta.to, 12);
    const past = (await get(ctx, owner.auth, '/api/targets?page=9')).json();
    assert.deepEqual(past.data, []);
    assert.equal(past.meta.total, 12);
    assert.equal(past.meta.from, null);
    assert.equal(past.meta.to, null);
    // An absurd page is refused by name rather than overflowing the SQL offset.
    const far = await get(ctx, owner.auth, '/api/targets?page=1000000000000000000000');
    assert.equal(far.statusCode, 422, far.body);
    assert.deepEqual(Object.keys(far.json().errors), ['page']);
  });

  await t.test('422 names each bad parameter', async () => {
    const cases: [string, string, string][] = [
      ['type=Host', 'type', 'The selected type is invalid. Valid: Domain, Ip.'],
      ['status=Down', 'status', 'The selected status is invalid. Valid: Active, Inactive, Unknown.'],
      ['sort=name', 'sort', 'The selected sort is invalid. Valid: target, type, status, last_scan, created_at, vulnerabilities.'],
      ['direction=up', 'direction', 'The selected direction is invalid. Valid: asc, desc.'],
      ['page=0', 'page', 'The page field must be at least 1.'],
      ['page=abc', 'page', 'The page field must be an integer.'],
      ['per_page=0', 'per_page', 'The per page field must be at least 1.'],
      ['per_page=101', 'per_page', 'The per page field must not be greater than 100.'],
      ['per_page=2.5', 'per_page', 'The per page field must be an integer.'],
      [`search=${'x'.repeat(256)}`, 'search', 'The search field must not be greater than 255 characters.'],
    ];
    for (const [query, field, message] of cases) {
      const res = await get(ctx, owner.auth, `/api/targets?${query}`);
      assert.equal(res.statusCode, 422, query);
      assert.deepEqual(res.json().errors, { [field]: [message] }, query);
      assert.equal(res.json().message, message);
    }
    const both = await get(ctx, owner.auth, '/api/targets?sort=x&per_page=500');
    assert.deepEqual(Object.keys(both.json().errors), ['sort', 'per_page']);
  });

  await t.test('show: the target with its counts by threat; 404 for unknown and non-integer ids', async () => {
    const res = await get(ctx, owner.auth, `/api/targets/${alpha}`);
    assert.equal(res.statusCode, 200);
    const { data } = res.json();
    assert.equal(data.target, 'alpha.example.com');
    assert.deepEqual(
      [data.vulnerabilities_count, data.critical, data.high, data.medium, data.low, data.informational],
      [3, 1, 1, 0, 1, 0],
    );
    const empty = (await get(ctx, owner.auth, `/api/targets/${mail}`)).json().data;
    assert.equal(empty.vulnerabilities_count, 0);
    assert.equal(empty.last_scan, null);
    assert.equal(empty.status, 'Unknown');
    for (const id of ['999999', 'abc', '1.5', '-1', '0', '99999999999999999999999']) {
      const missing = await get(ctx, owner.auth, `/api/targets/${id}`);
      assert.equal(missing.statusCode, 404, id);
      assert.deepEqual(missing.json(), { message: 'Target not found.' });
    }
  });

  await t.test("a target's vulnerabilities: default threat desc, scans joined, the target alongside", async () => {
    const res = await get(ctx, owner.auth, `/api/targets/${db10}/vulnerabilities`);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    const f = mine.findingIds[3]!;
    // Critical 9.1, High 7.5, Medium 4.3, Low 2.6, then the two Informational without a score (ties by id desc).
    assert.deepEqual(body.data.map((v: { id: number }) => v.id), [f[0], f[1], f[2], f[4], f[5], f[3]]);
    assert.deepEqual(body.target, (await get(ctx, owner.auth, `/api/targets/${db10}`)).json().data);
    assert.equal(body.meta.total, 6);
    assert.equal(body.meta.path, `http://rampart.test/api/targets/${db10}/vulnerabilities`);
    const first = body.data[0];
    assert.equal(first.scan_uuid, mine.scans[0]!.uuid);
    assert.equal(first.scan_name, 'Perimeter');
    assert.equal(first.target_id, db10);
    assert.equal(first.threat, 'Critical');
    assert.equal(first.cvss_base, 9.1);
    assert.equal(first.status, 'Unresolved');
    assert.equal(first.created_at, '2026-03-05T11:00:04.000Z');
    assert.equal(body.data[1].scan_uuid, mine.scans[1]!.uuid);
    assert.equal(body.data[1].scan_name, 'Web');

    const keys: Record<string, (s: SeedFinding) => Key> = {
      name: (s) => s.name,
      threat: (s) => THREAT_RANK[s.threat],
      cvss_base: (s) => s.cvss_base,
      scan_type: (s) => s.scan_type,
      created_at: (s) => s.created_at,
    };
    for (const [sort, keyOf] of Object.entries(keys)) {
      for (const direction of ['asc', 'desc'] as const) {
        const rows = FINDINGS[3]!.map((s, i) => ({ id: f[i]!, key: keyOf(s) }));
        const res = await get(ctx, owner.auth, `/api/targets/${db10}/vulnerabilities?sort=${sort}&direction=${direction}`);
        assert.equal(res.statusCode, 200, res.body);
        const got = res.json();
        assert.deepEqual(got.data.map((v: { id: number }) => v.id), expectedOrder(rows, direction), `${sort} ${direction}`);
      }
    }
    const byThreat = (await get(ctx, owner.auth, `/api/targets/${db10}/vulnerabilities?sort=threat`)).json();
    assert.deepEqual(byThreat.data.map((v: { threat: string }) => v.threat), ['Critical', 'High', 'Medium', 'Low', 'Informational', 'Informational']);

    const page = (await get(ctx, owner.auth, `/api/targets/${db10}/vulnerabilities?per_page=4&page=2`)).json();
    assert.deepEqual(page.data.map((v: { id: number }) => v.id), [f[5], f[3]]);
    assert.equal(page.meta.last_page, 2);
    assert.equal(page.meta.from, 5);
    assert.equal(page.target.id, db10);
    const past = (await get(ctx, owner.auth, `/api/targets/${db10}/vulnerabilities?page=3&per_page=4`)).json();
    assert.deepEqual(past.data, []);
    assert.equal(past.meta.total, 6);
    const none = (await get(ctx, owner.auth, `/api/targets/${zeta}/vulnerabilities`)).json();
    assert.deepEqual(none.data, []);
    assert.equal(none.meta.total, 0);
    assert.equal(none.target.id, zeta);
    const single = (await get(ctx, owner.auth, `/api/targets/${ip93}/vulnerabilities?per_page=1`)).json();
    assert.equal(single.data.length, 1);
    assert.equal(single.meta.last_page, 1);

    for (const [query, field] of [['sort=hostname', 'sort'], ['direction=sideways', 'direction'], ['per_page=101', 'per_page'], ['page=0', 'page']]) {
      const bad = await get(ctx, owner.auth, `/api/targets/${db10}/vulnerabilities?${query}`);
      assert.equal(bad.statusCode, 422, query);
      assert.deepEqual(Object.keys(bad.json().errors), [field], query);
    }
    for (const id of ['999999', 'abc']) {
      const missing = await get(ctx, owner.auth, `/api/targets/${id}/vulnerabilities`);
      assert.equal(missing.statusCode, 404);
      assert.deepEqual(missing.json(), { message: 'Target not found.' });
    }
  });

  await t.test('401 on every endpoint without a valid bearer token', async () => {
    const requests = [
      ['GET', '/api/targets'],
      ['GET', `/api/targets/${alpha}`],
      ['DELETE', `/api/targets/${alpha}`],
      ['GET', `/api/targets/${alpha}/vulnerabilities`],
    ] as const;
    for (const [method, url] of requests) {
      for (const headers of [{}, { authorization: 'Bearer not.a.token' }]) {
        const res = await ctx.app.inject({ method, url, headers });
        assert.equal(res.statusCode, 401, `${method} ${url}`);
        assert.deepEqual(res.json(), { message: 'Unauthenticated.' });
      }
    }
    assert.ok(await ctx.store.db.selectFrom('targets').select('id').where('id', '=', alpha).executeTakeFirst(), 'nothing deleted');
  });
});

test(`deleting a target removes it and its vulnerabilities only (${STORE_KIND})`, async (t) => {
  const { ctx, owner, other, mine, theirs } = await setUp(t);
  const [alpha, ip93, mail, db10] = mine.targetIds as [number, number, number, number];
  const findingsOf = (targetId: number) => ctx.store.db.selectFrom('findings').select('id').where('target_id', '=', targetId).execute();
  const del = (auth: Auth, id: number | string) => ctx.app.inject({ method: 'DELETE', url: `/api/targets/${id}`, headers: auth });

  const res = await del(owner.auth, alpha);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json(), { message: 'Target alpha.example.com deleted along with 3 associated vulnerabilities.' });
  assert.equal(await ctx.store.db.selectFrom('targets').select('id').where('id', '=', alpha).executeTakeFirst(), undefined);
  assert.deepEqual(await findingsOf(alpha), []);
  assert.equal((await findingsOf(db10)).length, 6, "other targets' findings stay");
  assert.equal((await findingsOf(theirs.targetIds[0]!)).length, 2, "the other account's same-named target keeps its findings");
  assert.equal((await get(ctx, other.auth, `/api/targets/${theirs.targetIds[0]}`)).statusCode, 200);

  assert.deepEqual((await del(owner.auth, ip93)).json(), { message: 'Target 93.184.216.34 deleted along with 1 associated vulnerability.' });
  assert.deepEqual((await del(owner.auth, mail)).json(), { message: 'Target mail.example.org deleted along with 0 associated vulnerabilities.' });

  const list = (await get(ctx, owner.auth, '/api/targets?per_page=100')).json();
  assert.equal(list.meta.total, 9);
  assert.ok(!list.data.some((x: { id: number }) => [alpha, ip93, mail].includes(x.id)));
  assert.equal((await get(ctx, owner.auth, `/api/targets/${alpha}`)).statusCode, 404);
  const again = await del(owner.auth, alpha);
  assert.equal(again.statusCode, 404);
  assert.deepEqual(again.json(), { message: 'Target not found.' });
  assert.equal((await del(owner.auth, 'abc')).statusCode, 404);
});

test(`OWNERSHIP: one account never sees nor touches another's targets (${STORE_KIND})`, async (t) => {
  const { ctx, owner, other, mine, theirs } = await setUp(t);
  const theirTarget = theirs.targetIds[0]!;

  const theirList = (await get(ctx, other.auth, '/api/targets?per_page=100')).json();
  assert.deepEqual(theirList.data.map((x: { id: number }) => x.id), [theirTarget]);
  assert.equal(theirList.meta.total, 1);
  assert.equal(theirList.data[0].vulnerabilities_count, 2, 'only its own findings are counted');
  assert.deepEqual(await listIds(ctx, other.auth, 'search=example'), [theirTarget]);
  assert.ok(!(await listIds(ctx, owner.auth, '')).includes(theirTarget));

  for (const id of mine.targetIds) {
    for (const [method, url] of [
      ['GET', `/api/targets/${id}`],
      ['GET', `/api/targets/${id}/vulnerabilities`],
      ['DELETE', `/api/targets/${id}`],
    ] as const) {
      const res = await ctx.app.inject({ method, url, headers: other.auth });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
      assert.deepEqual(res.json(), { message: 'Target not found.' });
    }
  }
  const remaining = await ctx.store.db.selectFrom('targets').select('id').where('user_id', '=', owner.userId).execute();
  assert.equal(remaining.length, mine.targetIds.length, "the other account's deletes removed nothing");
  const findings = await ctx.store.db.selectFrom('findings').select('id').where('user_id', '=', owner.userId).execute();
  assert.equal(findings.length, 10);
});
