/**
 * The severity table keeps code and docs in step: CVSS vectors score what the specification says,
 * each row's threat follows from its vector, the ratings issue 14 fixes hold, docs/SEVERITY.md is
 * the table rendered, every rule id the engine's source emits has a row, and every file that
 * makes findings takes their severity from the table.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { exposureFindings } from '../src/engines/rampart/checks/http-exposures.js';
import {
  renderSeverityTable,
  SEVERITY_TABLE,
  severityOf,
  severityRowProblem,
  withSeverityBasis,
  type SeverityRow,
} from '../src/engines/rampart/severity.js';
import { cvss31BaseScore } from '../src/shared/cvss.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ENGINE = path.join(ROOT, 'src/engines/rampart');
const ROWS: readonly SeverityRow[] = SEVERITY_TABLE;

test('CVSS v3.1 base scores match the scores NVD and FIRST publish for these vectors', () => {
  const published: Array<[string, number]> = [
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8], // CVE-2021-44228 without scope change
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', 10.0], // CVE-2021-44228
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N', 7.5], // CVE-2016-2183 (SWEET32), CVE-2021-41773
    ['CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:H/A:N', 5.9], // CVE-2023-48795 (Terrapin)
    ['CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H', 8.1], // CVE-2024-6387 (regreSSHion)
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', 6.1], // the classic reflected XSS
    ['CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H', 7.8], // CVE-2021-4034 (PwnKit)
    ['CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:H/A:H', 9.9], // scope change raises PR:L to 0.68
    ['CVSS:3.1/AV:P/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N', 1.6],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N', 0],
  ];
  for (const [vector, score] of published) assert.equal(cvss31BaseScore(vector), score, vector);
  // Not a v3.1 base vector: refused, not guessed.
  for (const bad of ['AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H', 'CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 'CVSS:3.1/AV:N/AV:N/PR:N/UI:N/S:U/C:H/I:H/A:H', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:P']) {
    assert.equal(cvss31BaseScore(bad), null, bad);
  }
});

test('every row is consistent: its vector scores its threat, a reason is given, several rows of one rule differ by case and threat', () => {
  assert.deepEqual(ROWS.map(severityRowProblem).filter((problem) => problem !== null), []);
  for (const row of ROWS) assert.ok(row.reason.length > 20, `${row.ruleId} gives a reason`);
  const byRule = new Map<string, SeverityRow[]>();
  for (const row of ROWS) byRule.set(row.ruleId, [...(byRule.get(row.ruleId) ?? []), row]);
  for (const [ruleId, rows] of byRule) {
    if (rows.length === 1) continue;
    assert.ok(rows.every((row) => row.when), `${ruleId}: each of its rows says when it applies`);
    assert.equal(new Set(rows.map((row) => row.threat)).size, rows.length, `${ruleId}: one row per threat`);
  }
});

test("the ratings issue 14 fixes: no authentication is Critical, NULL/anonymous suites, an expired certificate and Telnet are High, SNMP 'public' is Medium", () => {
  const threatOf = (ruleId: string) => ROWS.filter((row) => row.ruleId === ruleId).map((row) => row.threat);
  for (const ruleId of ['rampart:redis-noauth', 'rampart:mongodb-noauth', 'rampart:elasticsearch-noauth', 'rampart:mysql-empty-password']) {
    assert.deepEqual(threatOf(ruleId), ['Critical'], ruleId);
  }
  for (const ruleId of ['rampart:tls-null-cipher', 'rampart:tls-anonymous-cipher', 'rampart:tls-cert-expired', 'rampart:telnet-cleartext']) {
    assert.deepEqual(threatOf(ruleId), ['High'], ruleId);
  }
  assert.deepEqual(threatOf('rampart:udp-snmp-default-community'), ['Medium']);
  assert.deepEqual(severityOf('rampart:redis-noauth'), { threat: 'Critical', cvssBase: 9.8, cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' });
  assert.deepEqual(severityOf('rampart:tls-cert-expired'), { threat: 'High', cvssBase: null, cvssVector: null });
  assert.throws(() => severityOf('rampart:ssh-weak-cipher'), /no row for rampart:ssh-weak-cipher/, 'a rule with several rows needs its case');
});

test('docs/SEVERITY.md holds the table as the code renders it', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/SEVERITY.md'), 'utf8');
  const table = /<!-- severity-table:begin -->\n([\s\S]*?)\n<!-- severity-table:end -->/.exec(doc)?.[1];
  assert.ok(table !== undefined, 'docs/SEVERITY.md has the table markers');
  assert.equal(table, renderSeverityTable(), 'docs/SEVERITY.md is out of date: replace the table between the markers with renderSeverityTable() (see the top of the file)');
  for (const file of ['README.md', 'docs/ARCHITECTURE.md', 'docs/DECISIONS.md']) {
    assert.match(fs.readFileSync(path.join(ROOT, file), 'utf8'), /SEVERITY\.md/, `${file} links the severity table`);
  }
});

/** The engine's TypeScript sources, comments removed. */
function engineSources(): Array<{ file: string; code: string }> {
  const files = fs.readdirSync(ENGINE, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts') && file !== 'severity.ts');
  return files.map((file) => ({
    file,
    code: fs.readFileSync(path.join(ENGINE, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, ''),
  }));
}

test('every rule id in the engine source has a row, and every file that makes findings takes their severity from the table', () => {
  const rated = new Set(ROWS.map((row) => row.ruleId));
  const missing: string[] = [];
  let seen = 0;
  for (const { file, code } of engineSources()) {
    for (const match of code.matchAll(/(['`])rampart:([a-z0-9${}.\-]+)\1/g)) {
      const id = `rampart:${match[2]}`;
      seen++;
      if (!id.includes('${')) {
        if (!rated.has(id)) missing.push(`${id} (${file})`);
        continue;
      }
      // `rampart:${name}-no-starttls`: at least one row fits the fixed parts.
      const pattern = new RegExp(`^${id.split(/\$\{[^}]*\}/).map((part) => part.replace(/[.-]/g, '\\$&')).join('[a-z0-9-]+')}$`);
      if (![...rated].some((ruleId) => pattern.test(ruleId))) missing.push(`${id} (${file})`);
    }
    if (/\bruleId:/.test(code) && !/\bseverityOf\(/.test(code)) missing.push(`${file} sets rule ids without severityOf()`);
    if (/\bthreat: '(Critical|High|Medium|Low|Informational)',\n/.test(code)) missing.push(`${file} writes a threat by hand`);
  }
  assert.ok(seen > 40, `the scan of the source saw rule ids (${seen})`);
  assert.deepEqual(missing, [], 'add a row to src/engines/rampart/severity.ts and use severityOf() for these');
});

test('findings carry the basis: a CVSS vector and its score, or the table row, in the description', () => {
  const apache = exposureFindings([{ kind: 'status-page', path: '/server-status', seen: 'Apache mod_status page' }])[0]!;
  assert.equal(apache.threat, 'Medium');
  assert.equal(apache.cvssVector, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N');
  assert.equal(apache.cvssBase, 5.3);
  assert.match(withSeverityBasis(apache).description, /\n\nSeverity: rated Medium by its CVSS v3\.1 base score 5\.3 \(CVSS:3\.1\/AV:N\/AC:L\/PR:N\/UI:N\/S:U\/C:L\/I:N\/A:N\)\. Requested URLs/);

  // The recogniser of a page that shows counters only sets the Low case (http-server-pages.ts).
  const nginx = exposureFindings([{ kind: 'status-page', path: '/nginx_status', seen: 'nginx stub_status page', threat: 'Low' }])[0]!;
  assert.deepEqual([nginx.threat, nginx.cvssBase, nginx.cvssVector], ['Low', null, null]);
  assert.match(
    withSeverityBasis(nginx).description,
    /Severity: rated Low by Rampart's severity table \(docs\/SEVERITY\.md, rampart:http-status-page-exposed, when nginx stub_status or PHP-FPM ping only\)\. Traffic counters only\.$/,
  );

  // A rule or threat the table does not know, and Informational records, are left as they are.
  const unknown = { ruleId: 'rampart:not-in-the-table', threat: 'High' as const, description: 'x' };
  assert.equal(withSeverityBasis(unknown), unknown);
  const offTable = { ruleId: 'rampart:http-status-page-exposed', threat: 'Critical' as const, description: 'x' };
  assert.equal(withSeverityBasis(offTable), offTable);
  const record = { ruleId: 'rampart:open-port', threat: 'Informational' as const, description: 'x' };
  assert.equal(withSeverityBasis(record), record);
});
