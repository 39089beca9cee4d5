/**
 * Nuclei matchers and extractors on REAL template blocks of the shared corpus
 * (../shared/third_party/nuclei-templates), each against a crafted response that must fire and a
 * near miss that must not. The DSL evaluator is a tiny fake covering only the expressions used.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  buildHttpEvent,
  compileGoRegex,
  compileOperators,
  executeOperators,
  indexEvent,
  loadJsonQuery,
  mergeEvents,
  OperatorCompileError,
  resolvePart,
  type DslEvaluator,
  type HttpResponseModel,
  type OperatorsSpec,
  type ExtractorDeps,
} from '../src/engines/nuclei/match/index.js';
import { SHARED_DIR } from './helpers/shared.js';

const TEMPLATES = path.join(SHARED_DIR, 'third_party', 'nuclei-templates');
const skip = existsSync(TEMPLATES) ? false : `shared nuclei templates not found at ${TEMPLATES}`;

/** The operators of a template's http block (first by default), read with the yaml package. */
function block(relative: string, index = 0): OperatorsSpec {
  const doc = parseYaml(readFileSync(path.join(TEMPLATES, relative), 'utf8')) as { http?: OperatorsSpec[] };
  const b = doc.http?.[index];
  assert.ok(b, `${relative} has http block ${index}`);
  return b;
}

function response(over: Partial<HttpResponseModel> & { text?: string }): HttpResponseModel {
  const body = over.body ?? Buffer.from(over.text ?? '', 'utf8');
  return {
    status: 200,
    statusText: 'OK',
    headers: [['Content-Type', 'text/html']],
    durationSeconds: 0.05,
    rawRequest: 'GET / HTTP/1.1\r\nHost: example.test\r\n\r\n',
    host: 'http://example.test',
    matched: 'http://example.test/',
    ...over,
    body,
  };
}

/** Fake DSL: `contains(V, 'x')`, `contains(tolower(V), 'x')`, `status_code == N`, `A != B`, `&&`, a bare name. */
const fakeDsl: DslEvaluator = {
  evaluate(expression, vars) {
    const value = (name: string): unknown => (Object.hasOwn(vars, name) ? vars[name] : new Error(`No parameter '${name}' found`));
    const one = (e: string): unknown => {
      e = e.trim();
      let m = /^contains\((tolower\()?(\w+)\)?,\s*['"](.*)['"]\)$/.exec(e);
      if (m) {
        const v = value(m[2] as string);
        if (v instanceof Error) return v;
        const s = String(v);
        return (m[1] ? s.toLowerCase() : s).includes(m[3] as string);
      }
      m = /^(\w+)\s*(==|!=)\s*(\w+)$/.exec(e);
      if (m) {
        const left = value(m[1] as string);
        const right = /^\d+$/.test(m[3] as string) ? Number(m[3]) : value(m[3] as string);
        if (left instanceof Error) return left;
        if (right instanceof Error) return right;
        return m[2] === '==' ? left === right : left !== right;
      }
      if (/^\w+$/.test(e)) return value(e);
      return new Error(`fake dsl cannot evaluate ${e}`);
    };
    let result: unknown = true;
    for (const part of expression.split('&&')) {
      const v = one(part);
      if (v instanceof Error || v !== true) return v === false ? false : v;
      result = v;
    }
    return result;
  },
};

function run(spec: OperatorsSpec, res: HttpResponseModel, deps: ExtractorDeps = {}, extra: Record<string, unknown> = {}) {
  return executeOperators(compileOperators(spec), buildHttpEvent(res, extra), { dsl: fakeDsl, ...deps });
}

test('word + regex + status under matchers-condition and (mysql-config-exposure)', { skip }, () => {
  const spec = block('http/exposures/configs/mysql-config-exposure.yaml');
  const hit = run(spec, response({ text: '[client]\nuser=root\npassword = "s3cret"\n' }));
  assert.equal(hit.matched, true);
  assert.equal(hit.report, true);
  assert.deepEqual(hit.matcherNames, [], 'named matchers are reported only under or');
  assert.deepEqual(hit.evaluated.find((e) => e.name === 'my-cnf-creds')?.snippets, ['password = "s3cret"']);
  assert.equal(run(spec, response({ text: '[client]\nuser=root\n' })).matched, false, 'no password line');
  assert.equal(run(spec, response({ status: 404, text: '[client]\npassword=x\n' })).matched, false, 'status 404');
});

test('binary matcher: SQLite magic bytes in the body (batflat-sqlite-exposure)', { skip }, () => {
  const spec = block('http/exposures/backups/batflat-sqlite-exposure.yaml');
  const sqlite = Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.from([0x10, 0x00, 0xff, 0xfe])]);
  assert.equal(run(spec, response({ body: sqlite })).matched, true);
  assert.equal(run(spec, response({ body: Buffer.from('SQLite format 3 but no NUL', 'latin1') })).matched, false);
});

test('word encoding hex and header words with condition and (CVE-2023-2825, last step)', { skip }, () => {
  const spec = block('http/cves/2023/CVE-2023-2825.yaml');
  const ops = { matchers: spec.matchers, 'matchers-condition': spec['matchers-condition'] };
  const headers: Array<[string, string]> = [
    ['Content-Type', 'application/octet-stream'],
    ['Content-Disposition', 'attachment; filename="..%2F..%2Fetc%2Fpasswd"'],
  ];
  assert.equal(run(ops, response({ headers, text: 'root:x:0:0:root:/root:/bin/bash\n' })).matched, true);
  assert.equal(run(ops, response({ headers, text: 'toor:y\n' })).matched, false, 'no root:x');
  assert.equal(run(ops, response({ headers: [headers[0] as [string, string]], text: 'root:x:0:0' })).matched, false, 'one header word of two');
});

test('case-insensitive word on the header part and a kval extractor (deprecated-feature-policy)', { skip }, () => {
  const spec = block('http/miscellaneous/deprecated-feature-policy.yaml');
  const res = response({ headers: [['feature-policy', "camera 'none'"], ['Server', 'x']] });
  const hit = run(spec, res);
  assert.equal(hit.matched, true);
  assert.deepEqual(hit.outputExtracts, ["camera 'none'"]);
  const miss = run(spec, response({ headers: [['Permissions-Policy', 'camera=()']] }));
  assert.equal(miss.matched, false);
  assert.equal(miss.report, false);
  assert.deepEqual(miss.outputExtracts, []);
});

test('dsl matchers with or, and a negative dsl matcher (aws-bucket-service, apache-config)', { skip }, () => {
  const aws = block('http/technologies/aws/aws-bucket-service.yaml');
  assert.equal(run(aws, response({ headers: [['x-amz-request-id', 'ABC'], ['Server', 'AmazonS3']] })).matched, true);
  assert.equal(run(aws, response({ headers: [['x-amz-request-id', 'ABC'], ['X-GUploader-UploadID', 'z']] })).matched, false, 'negative fires');
  assert.equal(run(aws, response({ headers: [['Server', 'nginx']] })).matched, false);
  const apache = block('http/exposures/configs/apache-config.yaml');
  assert.equal(run(apache, response({ text: '<VirtualHost *:80>\n</VirtualHost>' })).matched, true);
  assert.equal(run(apache, response({ status: 403, text: '<VirtualHost *:80>\n</VirtualHost>' })).matched, false);
  assert.equal(run(apache, response({ text: '<VirtualHost *:80>' })).matched, false, 'unclosed');
  // Without an evaluator a dsl matcher cannot fire.
  assert.equal(executeOperators(compileOperators(apache), buildHttpEvent(response({ text: '<VirtualHost></VirtualHost>' }))).matched, false);
});

test('dsl matcher and dsl extractor read variables the engine supplies (netlify-takeover)', { skip }, () => {
  const spec = block('http/takeovers/netlify-takeover.yaml');
  const res = response({ headers: [['Server', 'Netlify']], text: 'not found - request id: 01ABC' });
  const hit = run(spec, res, {}, { Host: 'shop.example.test', ip: '192.0.2.1', cname: 'x.netlify.app' });
  assert.equal(hit.matched, true);
  assert.deepEqual(hit.outputExtracts, ['x.netlify.app']);
  assert.equal(run(spec, res, {}, { Host: '192.0.2.1', ip: '192.0.2.1', cname: 'x' }).matched, false, 'Host == ip');
  const noCname = run(spec, res, {}, { Host: 'shop.example.test', ip: '192.0.2.1' });
  assert.equal(noCname.matched, true);
  assert.deepEqual(noCname.outputExtracts, [], 'the dsl extractor gives nothing without cname');
  assert.equal(run(spec, response({ headers: [['Server', 'nginx']], text: 'Not Found - Request ID: 1' }), {}, { Host: 'a', ip: 'b' }).matched, false);
});

test('xpath matcher on HTML (meduza-stealer) and XML xpath extractor (cisco-ucm-version)', { skip }, () => {
  const meduza = block('http/exposed-panels/c2/meduza-stealer.yaml');
  // Unclosed tags: the HTML parser still builds html/head/title.
  assert.equal(run(meduza, response({ text: '<title>Meduza Stealer | Login<body><p>x' })).matched, true);
  assert.equal(run(meduza, response({ text: '<html><body><h1>Meduza Stealer</h1></body></html>' })).matched, false, 'not in the title');
  const ucm = block('http/technologies/cisco-ucm-version.yaml');
  const xml = '<?xml version="1.0" encoding="UTF-8"?>\n<versionInformation uri="x"><version>14.0.1.12900(161)</version></versionInformation>';
  const hit = run(ucm, response({ headers: [['Content-Type', 'application/xml']], text: xml }));
  assert.equal(hit.matched, true);
  assert.deepEqual(hit.extracts, { version: ['14.0.1.12900(161)'] });
  assert.deepEqual(run(ucm, response({ text: '<versionInformation><version>1</version></versionInformation>' })).outputExtracts, [], 'HTML: no such path');
});

test('xpath with XPath 2.0 matches() and attribute extractors (missing-sri)', { skip }, () => {
  const spec = block('http/misconfiguration/missing-sri.yaml');
  const bad = '<html><head><script src="https://cdn.example.test/a.js"></script><link rel="stylesheet" href="//cdn.example.test/s.css" integrity="SHA384-abc"></head></html>';
  const hit = run(spec, response({ text: bad }));
  assert.equal(hit.matched, true);
  assert.deepEqual(hit.outputExtracts, ['https://cdn.example.test/a.js']);
  const good = '<html><head><script src="https://cdn.example.test/a.js" integrity="sha384-xyz"></script><script src="/local.js"></script></head></html>';
  const miss = run(spec, response({ text: good }));
  assert.equal(miss.matched, false);
  assert.deepEqual(miss.outputExtracts, []);
});

test('internal xpath extractors become variables, not output (CVE-2021-42258)', { skip }, () => {
  const spec = block('http/cves/2021/CVE-2021-42258.yaml');
  const page =
    '<html><body><form method="post"><div class="aspNetHidden">' +
    '<input type="hidden" name="__VIEWSTATE" id="__VIEWSTATE" value="vs123" />' +
    '<input type="hidden" name="__VIEWSTATEGENERATOR" id="__VIEWSTATEGENERATOR" value="C2EE9ABB" />' +
    '<input type="hidden" name="__EVENTVALIDATION" id="__EVENTVALIDATION" value="ev456" /></div></form></body></html>';
  const hit = run({ extractors: spec.extractors }, response({ text: page }));
  assert.deepEqual(hit.variables, { VS: 'vs123', VSG: 'C2EE9ABB', EV: 'ev456' });
  assert.deepEqual(hit.outputExtracts, []);
  assert.equal(hit.report, false, 'internal values alone give no finding');
  assert.deepEqual(run({ extractors: spec.extractors }, response({ text: '<html><body><form></form></body></html>' })).variables, {});
});

test('regex extractor with group and internal regex extractors (asana-client-id, CVE-2023-2825)', { skip }, () => {
  const asana = block('http/exposures/tokens/asana/asana-client-id.yaml');
  const hit = run(asana, response({ text: 'const ASANA_CLIENT_ID = "1234567890123456";' }));
  assert.deepEqual(hit.outputExtracts, ['ASANA_CLIENT_ID = "1234567890123456"']);
  assert.equal(hit.report, true, 'extractor-only block reports what it extracts');
  assert.deepEqual(run(asana, response({ text: 'const ASANA_CLIENT_ID = "12345";' })).outputExtracts, []);
  const gitlab = block('http/cves/2023/CVE-2023-2825.yaml');
  const internal = run(
    { extractors: gitlab.extractors?.slice(0, 2) },
    response({ text: '<meta name="csrf-token" content="Tok_2-z" /><input name="authenticity_token" value="Tok1_a" />' }),
  );
  assert.deepEqual(internal.variables, { token_1: 'Tok1_a', token_2: 'Tok_2-z' });
  assert.deepEqual(internal.outputExtracts, []);
});

test('json extractor with jq queries (wp-user-enum) under its matchers', { skip }, async () => {
  const json = await loadJsonQuery();
  const spec = block('http/vulnerabilities/wordpress/wp-user-enum.yaml');
  const users = JSON.stringify([{ id: 1, name: 'Admin User', slug: 'admin' }, { id: 2, name: 'Ed', slug: 'editor' }]);
  const hit = run(spec, response({ headers: [['Content-Type', 'application/json; charset=UTF-8']], text: users }), { json });
  assert.equal(hit.matched, true);
  assert.deepEqual(hit.extracts, { usernames: ['admin', 'editor', 'Admin User', 'Ed'] });
  const miss = run(spec, response({ headers: [['Content-Type', 'text/html']], text: users }), { json });
  assert.equal(miss.matched, false);
  assert.equal(miss.report, false, 'extracted but not matched: no finding');
  assert.deepEqual(json.run('.a | capture("V(?<v>\\\\d+)"; "i") | .v', { a: 'v12' }), ['12']);
  assert.deepEqual(json.run('.o', { o: { b: 1, a: [true] } }), ['{"a":[true],"b":1}']);
  assert.ok(json.run('.[', {}) instanceof Error);
});

test('size matcher (no corpus template uses it) and parts: all, header names, body_N, interactsh', () => {
  const ops = compileOperators({ matchers: [{ type: 'size', size: [5] }] });
  assert.equal(executeOperators(ops, buildHttpEvent(response({ text: 'héll' }))).matched, true, 'bytes, not characters');
  assert.equal(executeOperators(ops, buildHttpEvent(response({ text: 'hello!' }))).matched, false);
  const first = buildHttpEvent(response({ status: 302, headers: [['Location', '/login'], ['Set-Cookie', 'PHPSESSID=abc; path=/']], text: 'first' }));
  const event = mergeEvents(indexEvent(first, 1), buildHttpEvent(response({ text: 'second' })));
  assert.equal(resolvePart('body_1', event)?.text, 'first');
  assert.equal(resolvePart('location_1', event)?.text, '/login');
  assert.equal(resolvePart('phpsessid_1', event)?.text, 'abc');
  assert.equal(resolvePart('content_type', event)?.text, 'text/html');
  assert.equal(resolvePart(undefined, event)?.text, 'second');
  assert.equal(resolvePart('all', event)?.text, 'second' + 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n');
  assert.equal(resolvePart('interactsh_protocol', event), undefined);
  const oob = compileOperators({ matchers: [{ type: 'word', part: 'interactsh_protocol', words: ['dns'], negative: true }] });
  assert.equal(executeOperators(oob, event).matched, false, 'an absent part fails even a negative matcher');
});

test('internal matchers hide the finding; named or matchers are listed', () => {
  const res = buildHttpEvent(response({ text: 'alpha beta' }));
  const internal = executeOperators(compileOperators({ matchers: [{ type: 'word', words: ['alpha'], internal: true }] }), res);
  assert.equal(internal.matched, true);
  assert.equal(internal.report, false);
  const named = executeOperators(
    compileOperators({ matchers: [{ type: 'word', name: 'a', words: ['alpha'] }, { type: 'word', name: 'z', words: ['zeta'] }, { type: 'word', name: 'b', words: ['beta'] }] }),
    res,
  );
  assert.deepEqual(named.matcherNames, ['a', 'b']);
  assert.equal(named.report, true);
});

test('word markers are expanded by the injected callback; failures follow condition', () => {
  const spec = compileOperators({ matchers: [{ type: 'word', words: ['{{md5("x")}}', 'plain'], condition: 'and' }] });
  const event = buildHttpEvent(response({ text: 'HASH plain' }));
  assert.equal(executeOperators(spec, event, { expand: () => 'HASH' }).matched, true);
  assert.equal(executeOperators(spec, event, { expand: () => new Error('bad') }).matched, false);
  assert.equal(executeOperators(spec, event).matched, false, 'unexpanded marker stays literal');
});

test('Go RE2 translation: flags, named groups, \\A \\z, POSIX classes; rejections', () => {
  assert.ok(compileGoRegex('(?i)ADMIN').test('admin'));
  assert.deepEqual('v=12'.match(compileGoRegex('(?P<n>[[:digit:]]+)'))?.[0], '12');
  assert.equal(compileGoRegex('\\Aab\\z').test('ab'), true);
  assert.equal(compileGoRegex('(?m)\\Aab\\z').test('x\nab'), false);
  assert.equal(compileGoRegex('[]a]+').exec(']a]')?.[0], ']a]');
  assert.equal(compileGoRegex('\\Qa.b\\E').test('axb'), false);
  assert.throws(() => compileGoRegex('a(?s).b'), OperatorCompileError);
  assert.throws(() => compileGoRegex('(?U)a+'), OperatorCompileError);
  assert.throws(() => compileOperators({ matchers: [{ type: 'regex', regex: ['(unclosed'] }] }), OperatorCompileError);
  assert.throws(() => compileOperators({ matchers: [{ type: 'status', status: [200], 'case-insensitive': true }] }), OperatorCompileError);
  assert.throws(() => compileOperators({ matchers: [{ type: 'nope' }] }), OperatorCompileError);
});

test('every regex, xpath and matcher of a bounded corpus sample compiles', { skip }, () => {
  // Every 25th template in name order: about 420 files of http, network, dns and ssl.
  const files = sampleFiles();
  let blocks = 0;
  const failures: string[] = [];
  for (const f of files) {
    const doc = parseYaml(readFileSync(path.join(TEMPLATES, f), 'utf8')) as Record<string, unknown>;
    for (const key of ['http', 'tcp', 'network', 'dns', 'ssl']) {
      for (const b of (doc[key] as OperatorsSpec[] | undefined) ?? []) {
        blocks++;
        try {
          compileOperators(b);
        } catch (error) {
          failures.push(`${f}: ${(error as Error).message}`);
        }
      }
    }
  }
  assert.ok(blocks > 300, `blocks ${blocks}`);
  assert.deepEqual(failures, []);
});

function sampleFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSortedSync(dir)) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.yaml')) out.push(path.relative(TEMPLATES, p));
    }
  };
  for (const top of ['http', 'network', 'dns', 'ssl']) walk(path.join(TEMPLATES, top));
  return out.filter((_f, i) => i % 25 === 0);
}

function readdirSortedSync(dir: string) {
  return readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
}

test('Go RE2 inline case flags inside the pattern are emulated (easypost-token, exposed-file-upload-form)', () => {
  const easypost = compileGoRegex('EZAK(?i)[a-z0-9]{54}');
  assert.equal(easypost.test(`EZAK${'Ab1'.repeat(18)}`), true);
  assert.equal(easypost.test(`ezak${'ab1'.repeat(18)}`), false, 'the prefix stays case-sensitive');
  const form = compileGoRegex(`<form.*?(?i)(?-i)enctype=("|')?multipart\\/form-data("|')?.*?>`);
  assert.equal(form.test('<form method=post enctype="multipart/form-data">'), true);
  assert.equal(form.test('<form ENCTYPE="multipart/form-data">'), false, '(?-i) turned it off again');
  const scoped = compileGoRegex('(?i:ab)C(?P<Name>x)\\x41');
  assert.equal(scoped.test('ABCxA'), true);
  assert.equal(scoped.test('ABcxA'), false);
  assert.equal(scoped.exec('abCxA')?.groups?.Name, 'x');
});

test('upstream oddities that must still compile: (?), stacked leading flags, empty word lists', () => {
  assert.equal(compileGoRegex('(?)content="CloudWAF"').test('content="CloudWAF"'), true);
  const okta = compileGoRegex('(?i)(?s)(?:okta|ssws).{0,40}\\b(00[a-z0-9_-]{39}[a-z0-9_])\\b');
  assert.equal(okta.flags.includes('s') && okta.flags.includes('i'), true);
  assert.equal(okta.test(`SSWS\n${'0'.repeat(2)}${'a'.repeat(40)}`), true);
  const empty = compileOperators({ matchers: [{ type: 'word', part: 'body_2' }], extractors: [{ type: 'kval' }] });
  assert.equal(executeOperators(empty, buildHttpEvent(response({ text: 'x' }))).matched, false);
});
