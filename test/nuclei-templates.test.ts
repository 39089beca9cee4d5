/**
 * The nuclei template module on real community templates from ../shared (read at test time, never
 * copied into the project): parsing of each protocol kind, lenient failures, the cached loader,
 * safety classes and exact feature sets of named files.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { canonicalDslFunction, readExpressionNames, readMarkers } from '../src/engines/nuclei/templates/dsl-names.js';
import { analyzeTemplateFeatures, checkExecutable, isSimpleFlow } from '../src/engines/nuclei/templates/features.js';
import { summarizeCoverage } from '../src/engines/nuclei/templates/coverage.js';
import { levelFeatureSets } from '../src/engines/nuclei/templates/levels.js';
import { clearTemplateCache, loadTemplates, loadTemplatesCached } from '../src/engines/nuclei/templates/load-templates.js';
import { isTemplateFailure, parseTemplate } from '../src/engines/nuclei/templates/parse-template.js';
import { classifyTemplateSafety, isInDefaultSet } from '../src/engines/nuclei/templates/safety.js';
import type { Template } from '../src/engines/nuclei/templates/template.types.js';
import { SHARED_DIR } from './helpers/shared.js';

const CORPUS = path.join(SHARED_DIR, 'third_party', 'nuclei-templates');
const skip = existsSync(CORPUS) ? false : `shared nuclei templates not found at ${CORPUS} (set RAMPART_SHARED_DIR)`;

async function load(relative: string): Promise<Template> {
  const result = parseTemplate(await readFile(path.join(CORPUS, relative), 'utf8'), relative);
  if (isTemplateFailure(result)) throw new Error(`${relative}: ${result.reason}`);
  return result;
}

function level(name: string): ReadonlySet<string> {
  const found = levelFeatureSets().find((l) => l.level === name);
  assert.ok(found, name);
  return found.supported;
}

describe('nuclei templates: parsing real templates', { skip }, () => {
  it('parses an http path template with info, classification, flow and an internal extractor', async () => {
    const t = await load('http/cves/2024/CVE-2024-29137.yaml');
    assert.equal(t.id, 'CVE-2024-29137');
    assert.deepEqual(t.protocols, ['http']);
    assert.equal(t.flow, 'http(1) && http(2)');
    assert.equal(t.http.length, 2);
    assert.equal(t.http[0]?.method, 'GET');
    assert.deepEqual(t.http[0]?.path, ["{{BaseURL}}/index.php?rest_route=/wp/v2/pages&per_page=100"]);
    assert.deepEqual(t.http[0]?.extractors.map((e) => [e.type, e.name, e.internal, e.group]), [['regex', 'search_page_id', true, 1]]);
    assert.equal(t.http[1]?.matchers[0]?.type, 'dsl');
    assert.equal(t.http[1]?.matchers[0]?.condition, 'and');
    assert.equal(t.http[1]?.matchers[0]?.dsl.length, 3);
    assert.deepEqual(t.info.classification.cveId, ['CVE-2024-29137']);
  });

  it('parses a raw template with info fields, annotations and redirects', async () => {
    const t = await load('http/cves/2023/CVE-2023-27034.yaml');
    assert.equal(t.info.name, 'Jms Blog - SQL Injection');
    assert.equal(t.info.severity, 'critical');
    assert.match(t.info.remediation ?? '', /^Upgrade to the latest version/);
    assert.equal(t.info.reference.length, 5);
    assert.deepEqual(t.info.classification, {
      cveId: ['CVE-2023-27034'], cweId: ['CWE-89'], cvssMetrics: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', cvssScore: 9.8,
    });
    assert.ok(t.info.tags.includes('intrusive') && t.info.tags.includes('prestashop-module'));
    assert.equal(t.http[1]?.raw.length, 1);
    assert.match(t.http[1]?.raw[0] ?? '', /^@timeout: 20s\nPOST \/module\/jmsblog/);
    assert.equal(t.http[1]?.redirects, true);
    assert.equal(t.http[1]?.hostRedirects, true);
    assert.equal(t.http[1]?.maxRedirects, 3);
    assert.equal(t.http[0]?.matchers[0]?.internal, true);
  });

  it('parses payloads with their attack type', async () => {
    const t = await load('http/vulnerabilities/other/caimore-gateway-rce.yaml');
    assert.equal(t.http[0]?.attack, 'pitchfork');
    assert.deepEqual(t.http[0]?.payloads, { username: { kind: 'values', values: ['admin'] }, password: { kind: 'values', values: ['admin'] } });
    assert.equal(t.http[0]?.matchersCondition, 'and');
    assert.equal(t.http[0]?.matchers[0]?.part, 'body_2');
    const wordlist = await load('http/fuzzing/wordpress-weak-credentials.yaml');
    assert.equal(wordlist.http[0]?.attack, 'clusterbomb');
    assert.ok(Object.values(wordlist.http[0]?.payloads ?? {}).some((p) => p.kind === 'file' && p.path.startsWith('helpers/wordlists/')));
  });

  it('parses tcp (hex input, port), ssl and dns templates', async () => {
    const tcp = await load('network/enumeration/mongodb-info-enum.yaml');
    assert.deepEqual(tcp.protocols, ['tcp']);
    assert.equal(tcp.tcp[0]?.inputs[0]?.type, 'hex');
    assert.match(tcp.tcp[0]?.inputs[0]?.data ?? '', /^3b0000003c30/);
    assert.deepEqual(tcp.tcp[0]?.host, ['{{Hostname}}']);
    assert.equal(tcp.tcp[0]?.port, '27017');
    assert.equal(tcp.tcp[0]?.readSize, 2048);
    const ssl = await load('ssl/expired-ssl.yaml');
    assert.equal(ssl.ssl[0]?.address, '{{Host}}:{{Port}}');
    assert.deepEqual(ssl.ssl[0]?.extractors[0]?.kval, ['not_after']);
    const dns = await load('dns/aaaa-fingerprint.yaml');
    assert.equal(dns.dns[0]?.nameField, '{{FQDN}}');
    assert.equal(dns.dns[0]?.recordType, 'AAAA');
    assert.equal(dns.dns[0]?.matchers[0]?.part, 'answer');
  });

  it('parses a bounded sample (all dns, ssl and network templates) without failures', async () => {
    for (const folder of ['dns', 'ssl', 'network']) {
      const loaded = await loadTemplates(path.join(CORPUS, folder));
      assert.deepEqual(loaded.failures, [], folder);
      assert.ok(loaded.templates.length >= 28, `${folder}: ${loaded.templates.length}`);
      const ofKind = loaded.templates.filter((t) => t.protocols.includes(folder === 'network' ? 'tcp' : folder));
      // network/ also holds 3 javascript-protocol templates and 1 http one (pinned corpus).
      assert.equal(loaded.templates.length - ofKind.length, folder === 'network' ? 4 : 0, folder);
    }
  });
});

describe('nuclei templates: safety', { skip }, () => {
  it('never runs code or headless templates and keeps them out of the default set', async () => {
    const code = await load('http/cves/2016/CVE-2016-9299.yaml');
    assert.deepEqual(code.protocols, ['code']);
    assert.equal(isInDefaultSet(code), false);
    assert.equal(classifyTemplateSafety(code, { allowUnsafe: true }).allowed, false);
    assert.ok(classifyTemplateSafety(code).reasons.includes('code protocol is never run'));
    const headless = await load('http/osint/user-enumeration/piratebay.yaml');
    assert.equal(isInDefaultSet(headless), false);
    assert.ok(classifyTemplateSafety(headless).reasons.includes('headless protocol is never run'));
  });

  it('keeps a javascript+http template in the default set but never runs it', async () => {
    const t = await load('http/cves/2023/CVE-2023-6329.yaml');
    const verdict = classifyTemplateSafety(t, { allowUnsafe: true });
    assert.equal(verdict.inDefaultSet, true);
    assert.equal(verdict.allowed, false);
    assert.deepEqual(verdict.reasons, ['javascript protocol is never run']);
  });

  it('runs an `unsafe: true` template only with the opt-in', async () => {
    const t = await load('http/honeypot/dionaea-http-honeypot-detect.yaml');
    assert.equal(isInDefaultSet(t), true);
    assert.deepEqual(classifyTemplateSafety(t).reasons, ['`unsafe: true` needs the unsafe opt-in']);
    assert.equal(classifyTemplateSafety(t, { allowUnsafe: true }).allowed, true);
  });
});

describe('nuclei templates: feature analysis', { skip }, () => {
  const expected: Record<string, string[]> = {
    'http/cves/2024/CVE-2024-29137.yaml': [
      'dsl', 'dsl:contains', 'extractor.internal', 'extractor.regex', 'flow.simple', 'helper:BaseURL', 'http.multiple-blocks', 'http.path', 'matcher.dsl',
    ],
    'http/cves/2023/CVE-2023-27034.yaml': [
      'dsl', 'dsl:contains', 'dsl:to_lower', 'flow.simple', 'helper:Hostname', 'http.multiple-blocks', 'http.raw', 'http.raw-annotations',
      'http.redirects', 'matcher.dsl', 'matcher.internal',
    ],
    'http/vulnerabilities/other/caimore-gateway-rce.yaml': [
      'attack.pitchfork', 'dsl', 'dsl:base64', 'helper:Hostname', 'helper:randstr', 'http.raw', 'matcher.status', 'matcher.word', 'payloads', 'variables.indexed',
    ],
    'http/fuzzing/wordpress-weak-credentials.yaml': [
      'attack.clusterbomb', 'helper:BaseURL', 'helper:Hostname', 'http.raw', 'matcher.status', 'matcher.word', 'payloads', 'payloads.wordlist',
    ],
    'http/cves/2024/CVE-2024-36401.yaml': [
      'extractor.internal', 'extractor.regex', 'flow.js', 'helper:Hostname', 'http.multiple-blocks', 'http.raw', 'http.raw-annotations', 'http.redirects',
      'interactsh', 'matcher.word', 'part.header-name',
    ],
    'network/enumeration/mongodb-info-enum.yaml': ['extractor.regex', 'helper:Hostname', 'matcher.word', 'tcp', 'tcp.hex'],
    'network/exposures/exposed-redis.yaml': ['helper:Hostname', 'matcher.negative', 'matcher.word', 'tcp', 'tcp.text', 'tcp.tls'],
    'ssl/expired-ssl.yaml': ['dsl', 'extractor.kval', 'helper:Host', 'helper:Port', 'matcher.dsl', 'ssl'],
    'dns/aaaa-fingerprint.yaml': ['dns', 'extractor.regex', 'helper:FQDN', 'matcher.regex'],
    'http/honeypot/dionaea-http-honeypot-detect.yaml': ['helper:Hostname', 'http.raw', 'http.unsafe', 'matcher.status', 'matcher.word'],
  };
  for (const [file, features] of Object.entries(expected)) {
    it(`detects exactly the features of ${file}`, async () => {
      assert.deepEqual(analyzeTemplateFeatures(await load(file)), features);
    });
  }

  it('summarises coverage of a bounded sample (dns, ssl, network) per level, with blockers by count', async () => {
    const sample: Template[] = [];
    for (const folder of ['dns', 'ssl', 'network']) sample.push(...(await loadTemplates(path.join(CORPUS, folder))).templates);
    const l7 = summarizeCoverage(sample, level('L7'));
    assert.deepEqual([l7.templates, l7.defaultSet, l7.executable], [343, 340, 0]);
    assert.deepEqual(l7.blockers.slice(0, 2), [{ feature: 'tcp', templates: 273 }, { feature: 'tcp.hex', templates: 180 }]);
    const l8 = summarizeCoverage(sample, level('L8'));
    // dkim-record-detect's `selector` is a dns payload and CVE-2022-24706's `challenge` a named tcp
    // read: neither is a variable the user must give.
    assert.deepEqual(l8, {
      templates: 343, defaultSet: 340, executable: 333, share: 333 / 340,
      blockers: [{ feature: 'interactsh', templates: 7 }],
    });
  });

  it('says which features block a template at each level', async () => {
    const t = await load('http/vulnerabilities/other/caimore-gateway-rce.yaml');
    assert.deepEqual(checkExecutable(t, level('L4')).blockers, ['attack.pitchfork', 'payloads', 'variables.indexed']);
    assert.deepEqual(checkExecutable(t, level('L5')).blockers, ['variables.indexed']);
    assert.deepEqual(checkExecutable(t, level('L6')), { executable: true, blockers: [] });
    // `dsl:sha1` is outside the 12 functions of L3 and inside L7's `dsl:*`.
    const js = await load('http/cves/2023/CVE-2023-6329.yaml');
    assert.ok(checkExecutable(js, level('L6')).blockers.includes('dsl:sha1'));
    assert.deepEqual(checkExecutable(js, level('L10')).blockers, ['flow.js', 'protocol.javascript']);
  });
});

describe('nuclei templates: DSL names', () => {
  it('reads functions and variables, skipping string literals, and maps underscore-less aliases', () => {
    const names = readExpressionNames('contains(tolower(body), "jmsblog(") && status_code_2 == 200 && !regex(\'a(b)\', [x-y])');
    assert.deepEqual([...names.functions].sort(), ['contains', 'regex', 'to_lower']);
    assert.deepEqual([...names.variables].sort(), ['body', 'status_code_2', 'x-y']);
    assert.equal(canonicalDslFunction('base64decode'), 'base64_decode');
    assert.equal(canonicalDslFunction('not_a_function'), 'not_a_function');
  });

  it('reads markers, nested ones too', () => {
    assert.deepEqual(readMarkers("a {{BaseURL}} b {{base64('{{user}}:x')}} {{"), ['BaseURL', "base64('{{user}}:x')", 'user']);
    assert.equal(isSimpleFlow('http(1) && (http(2) || http(3))'), true);
    assert.equal(isSimpleFlow('if (http(1)) { http(2) }'), false);
  });
});

describe('nuclei templates: feature edge cases (synthetic)', () => {
  it('ignores `@` body lines and literal `{{7*7}}`, and tells defined names from -var inputs', () => {
    const text = [
      'id: synthetic', 'info:', '  name: Synthetic', '  severity: INFO', 'variables:', '  marker: "{{randstr}}"',
      'http:', '  - raw:', '      - |', '        POST /{{marker}} HTTP/1.1', '        Host: {{Hostname}}', '',
      '        @notanannotation: x', '        q={{7*7}}&u={{username}}&c={{csrf}}&p={{pw}}&b={{body_1}}',
      '    payloads:', '      pw: ["a"]',
      '    extractors:', '      - type: regex', '        name: csrf', '        internal: true', '        regex: ["c=([a-z]+)"]',
    ].join('\n');
    const t = parseTemplate(text, 'synthetic.yaml');
    assert.ok(!isTemplateFailure(t));
    assert.equal(t.info.severity, 'info');
    assert.deepEqual(analyzeTemplateFeatures(t), [
      // No `dsl`: `{{7*7}}` names no function, so nuclei sends it as text.
      'attack.batteringram', 'extractor.internal', 'extractor.regex', 'helper:Hostname', 'helper:randstr',
      'http.raw', 'payloads', 'var-input', 'variables', 'variables.indexed',
    ]);
  });
});

describe('nuclei templates: loader', { skip }, () => {
  async function fixture(): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), 'rampart-nuclei-'));
    await mkdir(path.join(dir, 'dns', 'deep'), { recursive: true });
    await copyFile(path.join(CORPUS, 'dns/aaaa-fingerprint.yaml'), path.join(dir, 'dns', 'deep', 'aaaa.yaml'));
    await copyFile(path.join(CORPUS, 'ssl/expired-ssl.yaml'), path.join(dir, 'expired.yaml'));
    await writeFile(path.join(dir, 'broken.yaml'), 'id: broken\ninfo:\n  name: [unclosed\n');
    await writeFile(path.join(dir, 'no-id.yaml'), 'info:\n  name: x\n  severity: info\nhttp: []\n');
    await writeFile(path.join(dir, 'no-info.yaml'), 'id: no-info\nhttp: []\n');
    await writeFile(path.join(dir, 'list.yaml'), '- a\n- b\n');
    await writeFile(path.join(dir, 'README.md'), '# not a template\n');
    return dir;
  }

  it('loads recursively and reports each malformed file with its reason, without throwing', async () => {
    const dir = await fixture();
    try {
      const loaded = await loadTemplates(dir, { concurrency: 2 });
      assert.deepEqual(loaded.templates.map((t) => [t.path, t.id]), [['dns/deep/aaaa.yaml', 'aaaa-fingerprint'], ['expired.yaml', 'expired-ssl']]);
      assert.deepEqual(loaded.failures.map((f) => f.path), ['broken.yaml', 'list.yaml', 'no-id.yaml', 'no-info.yaml']);
      const reasons = Object.fromEntries(loaded.failures.map((f) => [f.path, f.reason]));
      assert.match(reasons['broken.yaml'] ?? '', /^YAML error: /);
      assert.equal(reasons['list.yaml'], 'the document is not a YAML mapping');
      assert.equal(reasons['no-id.yaml'], 'missing or empty `id`');
      assert.equal(reasons['no-info.yaml'], 'missing `info` mapping');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('caches a directory and reloads it when a file changes', async () => {
    const dir = await fixture();
    clearTemplateCache();
    try {
      const [a, b] = await Promise.all([loadTemplatesCached(dir), loadTemplatesCached(dir)]);
      assert.equal(a, b, 'concurrent loads share one result');
      const again = await loadTemplatesCached(dir);
      assert.equal(again, a, 'an unchanged directory is not parsed again');
      await writeFile(path.join(dir, 'no-info.yaml'), 'id: now-valid\ninfo:\n  name: Now valid\n  severity: low\nhttp: []\n');
      const changed = await loadTemplatesCached(dir);
      assert.notEqual(changed, a);
      assert.notEqual(changed.fingerprint, a.fingerprint);
      assert.ok(changed.templates.some((t) => t.id === 'now-valid' && t.info.severity === 'low'));
      assert.equal(changed.failures.length, 3);
      clearTemplateCache();
      assert.notEqual(await loadTemplatesCached(dir), changed, 'a cleared cache loads again');
    } finally {
      clearTemplateCache();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
