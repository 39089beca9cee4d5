/**
 * One identity per weakness, and each run's lifecycle labels, through the API and a real run
 * worker. The engines are scripted (each run yields the findings the test set for it), so the
 * test decides exactly what every run sees; everything after the engine — storing, deduplicating,
 * judging, the run summary and the vulnerability list — is the real code.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { completedRun, createScan, finding, rerun, startScripted as start, type Harness } from './helpers/scripted-engines.js';

interface Listed {
  id: number;
  rule_id: string;
  lifecycle: string | null;
  status: string;
  run_index: number;
  engine: string;
  engines: string[];
  evidence: string;
  evidence_by_engine: Record<string, string>;
  cve: string[];
  first_seen_at: string;
  last_seen_at: string;
}

async function list(h: Harness, query = ''): Promise<Listed[]> {
  const res = await h.ctx.app.inject({ method: 'GET', url: `/api/vulnerabilities?per_page=100${query}`, headers: h.auth });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data;
}

function labels(findings: Listed[]): Record<string, string | null> {
  return Object.fromEntries(findings.map((f) => [f.rule_id, f.lifecycle]).sort());
}

test('each run labels its findings new, still open, fixed or regressed, and counts them', async (t) => {
  const h = await start(t);
  const [a, b, c] = [finding('rule-a'), finding('rule-b'), finding('rule-c')];

  h.scripts.rampart.next = { findings: [a, b] };
  const uuid = await createScan(h, 'Rampart');
  const run1 = await completedRun(h, uuid, 0);
  assert.deepEqual(run1.lifecycle, { new: 2, still_open: 0, fixed: 0, regressed: 0 });
  assert.deepEqual(labels(await list(h)), { 'rule-a': 'new', 'rule-b': 'new' });
  const firstA = (await list(h)).find((f) => f.rule_id === 'rule-a')!;
  const accepted = await h.ctx.app.inject({ method: 'POST', url: `/api/vulnerabilities/${firstA.id}/accept`, headers: h.auth, payload: {} });
  assert.equal(accepted.statusCode, 200);

  // Run 2: A again, B gone, C appears.
  h.scripts.rampart.next = { findings: [a, c] };
  const run2 = await rerun(h, uuid, 1);
  assert.deepEqual(run2.lifecycle, { new: 1, still_open: 1, fixed: 1, regressed: 0 });
  const afterTwo = await list(h);
  assert.deepEqual(labels(afterTwo), { 'rule-a': 'still_open', 'rule-b': 'fixed', 'rule-c': 'new' });
  // A seen again is the same record: same id, first seen unchanged, last seen by run 2, triage kept.
  const againA = afterTwo.find((f) => f.rule_id === 'rule-a')!;
  assert.equal(againA.id, firstA.id);
  assert.equal(againA.first_seen_at, firstA.first_seen_at);
  assert.ok(againA.last_seen_at >= firstA.last_seen_at);
  assert.equal(againA.run_index, 1, 'the run that saw it last');
  assert.equal(againA.status, 'Accepted', 'the triage status survives a new sighting');
  assert.equal(afterTwo.length, 3, 'no duplicate rows');

  // Run 3: B is back.
  h.scripts.rampart.next = { findings: [a, b, c] };
  const run3 = await rerun(h, uuid, 2);
  assert.deepEqual(run3.lifecycle, { new: 0, still_open: 2, fixed: 0, regressed: 1 });
  assert.deepEqual(labels(await list(h)), { 'rule-a': 'still_open', 'rule-b': 'regressed', 'rule-c': 'still_open' });
  assert.deepEqual(
    (await list(h, '&lifecycle=regressed')).map((f) => f.rule_id),
    ['rule-b'],
    'the list filters by lifecycle',
  );
  const bad = await h.ctx.app.inject({ method: 'GET', url: '/api/vulnerabilities?lifecycle=gone', headers: h.auth });
  assert.equal(bad.statusCode, 422);
  assert.ok(bad.json().errors.lifecycle, 'the 422 names the parameter');

  // Totals from the kept counters agree with counted rows (a search that matches every finding),
  // after new sightings, triage and a threat change; and they drop to zero with the scan.
  h.scripts.rampart.next = { findings: [a, { ...b, threat: 'High', cvssBase: 7.5 }, c] };
  await rerun(h, uuid, 3);
  const total = async (query: string) =>
    (await h.ctx.app.inject({ method: 'GET', url: `/api/vulnerabilities?${query}`, headers: h.auth })).json().meta.total as number;
  for (const filter of ['', 'status=Accepted', 'status=Unresolved', 'severity=High', 'severity=Medium&status=Unresolved']) {
    assert.equal(await total(filter), await total(`${filter}&search=finding`), `kept total for "${filter}"`);
  }
  assert.deepEqual([await total('severity=High'), await total('status=Accepted'), await total('')], [1, 1, 3]);

  // The runs summary keeps each run's counts.
  const runs = (await h.ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: h.auth })).json().runs;
  assert.deepEqual(
    runs.map((r: { lifecycle: unknown }) => r.lifecycle),
    [run1.lifecycle, run2.lifecycle, run3.lifecycle, { new: 0, still_open: 3, fixed: 0, regressed: 0 }],
  );

  const deleted = await h.ctx.app.inject({ method: 'DELETE', url: `/api/scans/${uuid}`, headers: h.auth });
  assert.equal(deleted.statusCode, 200);
  assert.deepEqual([await total(''), await total('severity=High'), await total('search=finding')], [0, 0, 0]);
});

test('a run that fails calls nothing fixed, and the next run compares with the last complete one', async (t) => {
  const h = await start(t);
  const [a, b] = [finding('rule-a'), finding('rule-b')];
  h.scripts.rampart.next = { findings: [a, b] };
  const uuid = await createScan(h, 'Rampart');
  await completedRun(h, uuid, 0);

  // Run 2 fails after seeing only A: B is not called fixed.
  h.scripts.rampart.next = { findings: [a], fail: true };
  const run2 = await rerun(h, uuid, 1);
  assert.equal(run2.outcome, 'failed');
  assert.deepEqual(run2.lifecycle, { new: 0, still_open: 1, fixed: 0, regressed: 0 });
  assert.deepEqual(labels(await list(h)), { 'rule-a': 'still_open', 'rule-b': 'new' });

  // Run 3 completes without B: compared with run 1 (the failed run 2 proves nothing), B is fixed.
  h.scripts.rampart.next = { findings: [a] };
  const run3 = await rerun(h, uuid, 2);
  assert.deepEqual(run3.lifecycle, { new: 0, still_open: 1, fixed: 1, regressed: 0 });
  assert.deepEqual(labels(await list(h)), { 'rule-a': 'still_open', 'rule-b': 'fixed' });
});

test('the same CVE on the same host and port from two engines is one finding with both engines\' evidence', async (t) => {
  const h = await start(t);
  const cve = 'CVE-2024-6387';
  h.scripts.rampart.next = {
    findings: [finding('rampart:cpe-cve', { cve: [cve], evidence: 'SSH banner SSH-2.0-OpenSSH_9.6p1', threat: 'High', cvssBase: 8.1 })],
  };
  const rampartScan = await createScan(h, 'Rampart');
  await completedRun(h, rampartScan, 0);

  h.scripts.nuclei.next = {
    findings: [
      finding('nuclei:CVE-2024-6387', { cve: [cve], evidence: 'matcher: regreSSHion version check', threat: 'High', cvssBase: 8.1 }),
      // Another weakness on the same port, without a CVE: its own finding.
      finding('nuclei:ssh-password-auth', { evidence: 'password authentication offered', threat: 'Low', cvssBase: 2 }),
    ],
  };
  const nucleiScan = await createScan(h, 'Nuclei');
  await completedRun(h, nucleiScan, 0);

  const all = await list(h);
  assert.equal(all.length, 2, `one finding per weakness: ${all.map((f) => f.rule_id).join(', ')}`);
  const merged = all.find((f) => f.cve.includes(cve))!;
  assert.deepEqual(merged.engines, ['rampart', 'nuclei']);
  assert.equal(merged.engine, 'nuclei', 'engine names the latest reporter');
  assert.deepEqual(merged.evidence_by_engine, { rampart: 'SSH banner SSH-2.0-OpenSSH_9.6p1', nuclei: 'matcher: regreSSHion version check' });
  assert.match(merged.evidence, /\[rampart\]\nSSH banner SSH-2\.0-OpenSSH_9\.6p1/);
  assert.match(merged.evidence, /\[nuclei\]\nmatcher: regreSSHion version check/);
  const shown = (await h.ctx.app.inject({ method: 'GET', url: `/api/vulnerabilities/${merged.id}`, headers: h.auth })).json().data;
  assert.deepEqual(shown.engines, ['rampart', 'nuclei']);

  // The Rampart scan runs again: its evidence is refreshed, the Nuclei evidence stays.
  h.scripts.rampart.next = {
    findings: [finding('rampart:cpe-cve', { cve: [cve], evidence: 'SSH banner SSH-2.0-OpenSSH_9.6p1 Debian', threat: 'High', cvssBase: 8.1 })],
  };
  await rerun(h, rampartScan, 1);
  const again = (await list(h)).find((f) => f.cve.includes(cve))!;
  assert.equal(again.id, merged.id);
  assert.deepEqual(again.engines, ['rampart', 'nuclei']);
  assert.deepEqual(again.evidence_by_engine, { rampart: 'SSH banner SSH-2.0-OpenSSH_9.6p1 Debian', nuclei: 'matcher: regreSSHion version check' });

  // The CSV export carries the engines and the combined evidence.
  const csv = await h.ctx.app.inject({ method: 'GET', url: '/api/vulnerabilities/export', headers: h.auth });
  assert.equal(csv.statusCode, 200);
  assert.match(csv.body.split('\r\n')[0]!, /,engines,/);
  assert.match(csv.body, /rampart nuclei/);
});

test('engines reporting one CVE: the surest one describes the finding and sets its QoD, each engine revises its own', async (t) => {
  const h = await start(t);
  const cve = 'CVE-2021-41773';
  const proved = finding('CVE-2021-41773', { cve: [cve], name: 'Apache path traversal (template)', threat: 'Critical', cvssBase: 9.8, qod: 95 });
  const versioned = (qod: number) => finding('rampart:known-vulnerability', { cve: [cve], name: 'Apache 2.4.49 CVE-2021-41773', threat: 'High', cvssBase: 7.5, qod });
  h.scripts.nuclei.next = { findings: [proved] };
  const nucleiScan = await createScan(h, 'Nuclei');
  await completedRun(h, nucleiScan, 0);
  h.scripts.rampart.next = { findings: [versioned(30)] };
  const rampartScan = await createScan(h, 'Rampart');
  await completedRun(h, rampartScan, 0);
  const shown = async () => {
    const [one, ...rest] = (await list(h)).filter((f) => f.cve.includes(cve)) as (Listed & { qod: number; name: string; threat: string })[];
    assert.equal(rest.length, 0);
    return { qod: one!.qod, name: one!.name, threat: one!.threat, engines: one!.engines };
  };
  const proof = { qod: 95, name: 'Apache path traversal (template)', threat: 'Critical', engines: ['nuclei', 'rampart'] };
  assert.deepEqual(await shown(), proof, 'a version match does not lower what a test proved');
  h.scripts.rampart.next = { findings: [versioned(30)] };
  await rerun(h, rampartScan, 1);
  assert.deepEqual(await shown(), proof, 'nor when it reports again as the latest engine');
  const hidden = await h.ctx.app.inject({ method: 'GET', url: '/api/vulnerabilities?min_qod=70', headers: h.auth });
  assert.equal(hidden.json().data.length, 1, 'still shown at the default threshold');

  // A finding only one engine reports follows that engine's latest word, surer or not.
  const other = 'CVE-2024-6387';
  h.scripts.rampart.next = { findings: [finding('rampart:known-vulnerability', { cve: [other], qod: 80 })] };
  await rerun(h, rampartScan, 2);
  h.scripts.rampart.next = { findings: [finding('rampart:known-vulnerability', { cve: [other], qod: 30 })] };
  await rerun(h, rampartScan, 3);
  assert.equal(((await list(h)).find((f) => f.cve.includes(other)) as Listed & { qod: number }).qod, 30);
});
