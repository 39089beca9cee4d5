/**
 * The nuclei DSL evaluator: real corpus expressions against a response-like variable map, every
 * implemented helper with known outputs, compare_versions, error values, `{{...}}` marker
 * expansion, and a bounded corpus scan (every dsl expression under http/cves/2023 compiles).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  compileExpression,
  evaluateExpression,
  expandMarkers,
  expandMarkersToBytes,
  IMPLEMENTED_FUNCTIONS,
  isDslError,
  lookupFunction,
  murmur3Signed,
  UNSUPPORTED_FUNCTIONS,
  type DslVariables,
} from '../src/engines/nuclei/dsl/index.js';
import { SHARED_DIR } from './helpers/shared.js';

const TEMPLATES = path.join(SHARED_DIR, 'third_party', 'nuclei-templates');
const corpusSkip = existsSync(TEMPLATES) ? false : `nuclei templates not found at ${TEMPLATES} (../shared is absent)`;

/** A response as the matcher layer will hand it over: bodies as strings, numbers as numbers. */
const RESPONSE: DslVariables = {
  body: '<html><title>Form Maker by 10Web</title><link rel="x" sdd.wp.com> root:x:0:0:root:/root:/bin/bash',
  status_code: 200,
  content_type: 'text/html; charset=UTF-8',
  header: 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nMax-Forwards: 10\r\n',
  host: 'shop.example.com',
  duration: 7,
  version: '1.15.3',
  body_1: '{"result":"success","fileSize":12}',
  status_code_1: 200,
  body_2: 'Windows IP Configuration',
  str1: 'Windows IP Configuration',
  raw_version: '10510',
};

/** Real dsl lines: the file must still contain the expression, so the table cannot drift from the corpus. */
const CORPUS_TABLE: ReadonlyArray<{ file: string; expression: string; expected: unknown }> = [
  { file: 'http/cves/2023/CVE-2023-4666.yaml', expression: "compare_versions(version, '< 1.15.20')", expected: true },
  { file: 'http/cves/2023/CVE-2023-0876.yaml', expression: "compare_versions(version, '<= 4.5.2')", expected: true },
  { file: 'http/cnvd/2024/CNVD-2024-33023.yaml', expression: 'duration>=6', expected: true },
  { file: 'http/miscellaneous/directory-listing.yaml', expression: 'status_code_1 == 200', expected: true },
  { file: 'http/vulnerabilities/unifi/unifi-nfc-credentials.yaml', expression: 'contains_any(body,"google_pass_auth_key","apple_nfc")', expected: false },
  { file: 'http/takeovers/redirect-pizza-takeover.yaml', expression: 'contains_all(body, "Unable to redirect","redirect.pizza")', expected: false },
  { file: 'http/miscellaneous/maxforwards-headers-detect.yaml', expression: 'contains(to_lower(header), "max-forwards:")', expected: true },
  { file: 'http/honeypot/citrix-honeypot-detect.yaml', expression: 'len(body)<2000', expected: true },
  { file: 'http/miscellaneous/security-txt.yaml', expression: 'len(body) <= 4096 && len(body) > 0', expected: true },
  { file: 'http/takeovers/shopify-takeover.yaml', expression: '!contains(host,"myshopify.com")', expected: true },
  { file: 'http/cnvd/2019/CNVD-2019-19299.yaml', expression: 'contains(body_2, "Windows IP")', expected: true },
  { file: 'http/cnvd/2020/CNVD-2020-26585.yaml', expression: 'body_2 == str1', expected: true },
  { file: 'http/vulnerabilities/tongda/tongda-meeting-unauth.yaml', expression: "status_code == 200 && contains(header, 'application/json')", expected: false },
  { file: 'http/miscellaneous/keybase-domain-owwnership-verification.yaml', expression: "status_code == 200 && contains(body, 'https://keybase.io/')", expected: false },
  // govaluate drops the backslash of an unknown escape: "s\d+\.wp" is the regex "sd+.wp".
  { file: 'http/vulnerabilities/wordpress/wordpress-wp-cron.yaml', expression: '(regex("<link[^>]+s\\d+\\.wp\\.com",body_1))', expected: false },
  {
    file: 'http/technologies/roundcube-webmail-portal.yaml',
    expression: 'concat(to_number(substr(raw_version, 0, 1)), ".", to_number(substr(raw_version, 1, 3)), ".", to_number(substr(raw_version, 3)))',
    expected: '1.5.10',
  },
];

describe('nuclei DSL: corpus expressions', { skip: corpusSkip }, () => {
  for (const row of CORPUS_TABLE) {
    it(`${row.file}: ${row.expression}`, () => {
      assert.ok(readFileSync(path.join(TEMPLATES, row.file), 'utf8').includes(row.expression), 'expression is in the template');
      assert.deepEqual(evaluateExpression(row.expression, RESPONSE), row.expected);
    });
  }
});

describe('nuclei DSL: operators and literals (govaluate semantics)', () => {
  const cases: Array<[string, unknown]> = [
    ['status_code == 200', true],
    ['status_code == "200"', false], // reflect.DeepEqual: number and string differ
    ['"a" + 1 + true', 'a1true'],
    ['"n=" + 1000000 + "," + 0.00001 + "," + 123456.5', 'n=1e+06,1e-05,123456.5'], // Go's %v of float64
    ['1 + 2 * 3 - 4 / 2', 5],
    ['10 - 2 - 3', 5], // left associative
    ['7 % 4', 3],
    ['2 ** 10', 1024],
    ['-status_code + 1', -199],
    ['0x1F', 31],
    ['1 < 2 && "abc" < "abd"', true],
    ["'single' == \"single\"", true],
    ['"it\\"s" == \'it"s\'', true],
    ['status_code in (200, 302)', true],
    ['"x" in ("a", "b")', false],
    ['true ? "yes" : "no"', 'yes'],
    ['false ? "yes" : "no"', 'no'],
    ['false ? "yes"', null],
    ['!(status_code != 200) || missing', true], // || short-circuits before the unknown variable
    ['body =~ "(?i)FORM MAKER"', true],
    ['body !~ "^nothing"', true],
    ['[interactsh-url]', 'abc.oast.fun'],
    ['"2023-01-02" - "2023-01-01"', 86400], // date literals become Unix seconds, as in govaluate
    ['6 & 3 | 8', 10],
    ['1 << 4', 16],
    ['tls_version, cipher', ['tls12', 'AES']], // a top-level separator yields an array
  ];
  const vars = { ...RESPONSE, 'interactsh-url': 'abc.oast.fun', tls_version: 'tls12', cipher: 'AES' };
  for (const [expression, expected] of cases) {
    it(expression, () => assert.deepEqual(evaluateExpression(expression, vars), expected));
  }

  it('compiles once and evaluates many times against different variables', () => {
    const compiled = compileExpression('status_code == 200 && contains(body, "ok")');
    assert.ok(!isDslError(compiled));
    assert.equal(compiled.matches({ status_code: 200, body: 'all ok' }), true);
    assert.equal(compiled.matches({ status_code: 404, body: 'all ok' }), false);
    assert.equal(compiled.matches({ status_code: 200, body: 'nope' }), false);
  });
});

describe('nuclei DSL: errors are values', () => {
  const compileErrors = ['nope(1)', 'contains(body', '"unclosed', '1 2', 'a ==', '_x', '@', 'a.field', 'body =~ "("', 'jarm(Hostname)'];
  for (const expression of compileErrors) {
    it(`compile error: ${expression}`, () => assert.ok(isDslError(compileExpression(expression))));
  }
  const evaluationErrors = [
    'missing == 1',
    'contains(body)', // wrong arity
    'md5("a", "b")',
    '"a" - 1',
    '"a" < 1',
    '!body',
    'status_code && true',
    'compare_versions("not a version", "< 1")',
    'compare_versions("1.0", "<< 1")',
    'base64_decode("###")',
    'hex_decode("zz")',
    'to_number("abc")',
    'substr("abc", 5)',
    'regex("(", body)',
    'generate_jwt("{}", "RS256", "key")',
    '"x" in "x"',
  ];
  for (const expression of evaluationErrors) {
    it(`evaluation error: ${expression}`, () => {
      const compiled = compileExpression(expression);
      assert.ok(!isDslError(compiled), 'compiles');
      assert.ok(isDslError(compiled.evaluate(RESPONSE)));
      assert.equal(compiled.matches(RESPONSE), false);
    });
  }
  it('pathological input is an error value, not a crash', () => {
    const deep = `${'('.repeat(20000)}1${')'.repeat(20000)}`;
    const compiled = compileExpression(deep);
    assert.ok(isDslError(compiled) || isDslError(compiled.evaluate({})) || compiled.evaluate({}) === 1);
    assert.ok(isDslError(evaluateExpression(`${'!'.repeat(200000)}true`, {})));
  });

  it('an error short-circuited away does not surface', () => {
    assert.equal(evaluateExpression('false && missing', RESPONSE), false);
  });
});

describe('nuclei DSL: helper functions', () => {
  const cases: Array<[string, unknown]> = [
    ['md5("nuclei")', '709b38b27304df6257a86a60df742c4c'],
    ['sha1("nuclei")', '03cfc9a806c8e57be2881aeb38a4cfde9d9a85fb'],
    ['sha256("nuclei")', 'ae0e7b77c1e3861661e63f0c615b842232851b8021f24eefd63ce9f88023012d'],
    ['sha512("nuclei")', 'ae6b2b877b9e30b7372a722787e5912be3dbd68f37403cc2e742000ba5e19d7d54ff60d1eb50ba7e97624505df4fa81bf2806654176a8abd59abd8bc2a400180'],
    ['hmac("sha256", "data", "key")', '5031fe3d989c6d1537a013fa6e739da23463fdaec3b70137d828e36ace221bd0'],
    ['mmh3("foo")', '-156908512'], // signed 32-bit, as Python's mmh3.hash and Shodan
    ['mmh3("hello")', '613153351'],
    ['base64("nuclei")', 'bnVjbGVp'],
    ['base64_decode("bnVjbGVp")', 'nuclei'],
    ['base64decode("bnVjbGVp")', 'nuclei'],
    ['base64_py("hello")', 'aGVsbG8=\n'],
    ['hex_encode("AB")', '4142'],
    ['hex_decode("4142")', 'AB'],
    ['url_encode("a b&c/é")', 'a%20b%26c%2F%C3%A9'],
    ['url_encode("a-b_c", true)', 'a%2Db%5Fc'],
    ['url_decode("a%20b+%zz")', 'a b+%zz'],
    ['html_escape("<a href=\'x\'>&")', '&lt;a href=&#39;x&#39;&gt;&amp;'],
    ['html_unescape("&lt;b&gt;&#39;&#x41;&amp;")', "<b>'A&"],
    ['gzip_decode(gzip("nuclei"))', 'nuclei'],
    ['zlib_decode(zlib("nuclei"))', 'nuclei'],
    ['inflate(deflate("nuclei"))', 'nuclei'],
    ['json_minify("{ \\"b\\": 1, \\"a\\": \\"<\\" }")', '{"a":"\\u003c","b":1}'],
    ['json_prettify("{\\"a\\":1}")', '{\n    "a": 1\n}'],
    ['to_lower("AbC")', 'abc'],
    ['tolower("AbC")', 'abc'],
    ['to_upper("abc")', 'ABC'],
    ['to_title("hello wORLD")', 'Hello World'],
    ['contains("abc", "b")', true],
    ['contains_all("abc", "a", "c")', true],
    ['contains_any("abc", "x", "c")', true],
    ['equals_any("b", "a", "b")', true],
    ['starts_with("abc", "x", "ab")', true],
    ['ends_with("abc", "bc")', true],
    ['line_starts_with("one\ntwo", "tw")', true],
    ['line_ends_with("one\ntwo", "ne")', true],
    ['concat("a", 1, true)', 'a1true'],
    ['len("héllo")', 6], // bytes, as Go's len
    ['len(split("a,b,c", ","))', 3],
    ['join("-", split("a,b,c", ","))', 'a-b-c'],
    ['join("-", "a", "b")', 'a-b'],
    ['split("abcdef", 4)', ['abcd', 'ef']],
    ['split("a,b,c", ",", 2)', ['a', 'b,c']],
    ['repeat("ab", 3)', 'ababab'],
    ['reverse("abc")', 'cba'],
    ['replace("a.b.c", ".", "-")', 'a-b-c'],
    ['replace_regex("v1.2.3", "(\\\\d+)\\\\.(\\\\d+)", "${2}.$1")', 'v2.1.3'],
    ['regex("^ab+$", "abbb")', true],
    ['regex("a\\d", "ad")', true], // \d in a govaluate string is just "d"
    ['regex_all("^a", "ab", "ac")', true],
    ['regex_any("^z", "ab", "zc")', true],
    ['trim("xxaxx", "x")', 'a'],
    ['trim_left("xxaxx", "x")', 'axx'],
    ['trim_right("xxaxx", "x")', 'xxa'],
    ['trim_space("  a  ")', 'a'],
    ['trim_prefix("prefix-a", "prefix-")', 'a'],
    ['trim_suffix("a.php", ".php")', 'a'],
    ['remove_bad_chars("a-b_c", "-_")', 'abc'],
    ['substr("abcdef", 2)', 'cdef'],
    ['substr("abcdef", 2, 4)', 'cd'],
    ['index("abc", 1)', 'b'],
    ['sort("cba")', 'abc'],
    ['uniq("aabbc")', 'abc'],
    ['count("banana", "a")', 3],
    ['padding("a", "0", 4, "prefix")', '000a'],
    ['to_number("12") + 1', 13],
    ['to_number("1.5")', 1.5],
    ['to_string(12.5)', '12.5'],
    ['to_bool("true")', true],
    ['dec_to_hex(255)', 'ff'],
    ['hex_to_dec("0xff")', 255],
    ['oct_to_dec("0o17")', 15],
    ['bin_to_dec("101")', 5],
    ['xor("a", "a") == hex_decode("00")', true],
    ['date_time("%Y-%M-%D %H:%m:%S", 1700000000)', '2023-11-14 22:13:20'],
    ['date_time("02 Jan 2006 15:04", 1700000000)', '14 Nov 2023 22:13'],
    ['to_unix_time("2023-11-14 22:13:20")', 1700000000],
    ['gzip_mtime(gzip("x"))', 0],
    ['hex_encode(aes_cbc("nuclei", "0123456789abcdef", "abcdef0123456789"))', '2be95dfe16c4d9685e8fb4e49fef0b08'], // openssl enc -aes-128-cbc
    // HS256 over Go-marshalled claims (keys sorted), checked against Python's hmac; "none" keeps its spelling.
    ['generate_jwt("{\\"b\\":\\"x\\",\\"a\\":1}", "HS256", "secret")', 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJhIjoxLCJiIjoieCJ9.vs6JiVnnv_PWSVXXFlpEoF57r4fihvllc4QPbFHLRRw'],
    ['generate_jwt("{\\"a\\":1}", "none")', 'eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJhIjoxfQ.'],
    ['wait_for(5)', true], // never sleeps
    ['print_debug("x")', true],
  ];
  for (const [expression, expected] of cases) {
    it(expression, () => assert.deepEqual(evaluateExpression(expression, RESPONSE), expected));
  }

  it('mmh3 of base64_py(favicon) is the Shodan favicon hash', () => {
    const favicon = Buffer.alloc(100, 0x41);
    // Python's base64.encodebytes(b"A" * 100): 76-character lines, each ending in a newline.
    const python = 'QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB\nQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQQ==\n';
    const vars = { body: favicon.toString('latin1') };
    assert.equal(evaluateExpression('base64_py(body)', vars), python);
    assert.equal(evaluateExpression('mmh3(base64_py(body))', vars), String(murmur3Signed(Buffer.from(python))));
    assert.equal(murmur3Signed(Buffer.from('The quick brown fox jumps over the lazy dog')), 776992547);
  });

  it('random helpers honour length, alphabet and range', () => {
    for (let i = 0; i < 20; i++) {
      assert.match(String(evaluateExpression('rand_base(8)', {})), /^[A-Za-z0-9]{8}$/);
      assert.match(String(evaluateExpression('rand_base(6, "ab")', {})), /^[ab]{6}$/);
      assert.match(String(evaluateExpression('rand_text_alpha(5, "abcdefghijklmnopqrstuvwxyz")', {})), /^[A-Z]{5}$/);
      assert.match(String(evaluateExpression('rand_text_alphanumeric(7)', {})), /^[A-Za-z0-9]{7}$/);
      assert.match(String(evaluateExpression('rand_text_numeric(4, "0")', {})), /^[1-9]{4}$/);
      assert.match(String(evaluateExpression('rand_char("x")', {})), /^x$/);
      const n = evaluateExpression('rand_int(10, 12)', {});
      assert.ok(n === 10 || n === 11, `rand_int(10, 12) gave ${String(n)}`);
    }
    for (let i = 0; i < 20; i++) {
      assert.match(String(evaluateExpression('rand_ip("10.1.2.0/24")', {})), /^10\.1\.2\.\d{1,3}$/);
      assert.match(String(evaluateExpression('rand_ip("2001:db8::/112")', {})), /^2001:db8:0:0:0:0:0:[0-9a-f]{1,4}$/);
    }
    assert.ok(isDslError(evaluateExpression('rand_ip("10.0.0.0/33")', {})));
    const now = Math.floor(Date.now() / 1000);
    const later = Number(evaluateExpression('unix_time(60)', {}));
    assert.ok(later >= now + 60 && later <= now + 120);
  });

  it('every implemented function is reachable, and unsupported ones are named and refused', () => {
    assert.ok(IMPLEMENTED_FUNCTIONS.length >= 75, `${IMPLEMENTED_FUNCTIONS.length} functions`);
    for (const name of IMPLEMENTED_FUNCTIONS) {
      assert.ok(lookupFunction(name), name);
      assert.ok(lookupFunction(name.replaceAll('_', '')), `${name} without underscores`);
    }
    for (const name of Object.keys(UNSUPPORTED_FUNCTIONS)) {
      assert.equal(lookupFunction(name), undefined, name);
      assert.ok(isDslError(compileExpression(`${name}("x")`)), name);
    }
  });
});

describe('nuclei DSL: compare_versions (hashicorp/go-version)', () => {
  const cases: Array<[string, string[], boolean]> = [
    ['1.2.3', ['< 1.2.4'], true],
    ['1.2.3', ['<= 1.2.3'], true],
    ['1.2', ['= 1.2.0'], true], // missing segments are zeros
    ['v1.2.3', ['>= 1.0, < 2.0'], true],
    ['1.2.3', ['>= 1.0', '< 1.2'], false], // several arguments: all must hold
    ['1.10.0', ['> 1.9.9'], true], // numeric, not lexical
    ['2.0.0-beta', ['>= 1.0'], false], // a pre-release only meets constraints with one
    ['2.0.0-beta', ['>= 2.0.0-alpha'], true],
    ['2.0.0', ['> 2.0.0-rc1'], true],
    ['1.2.3', ['!= 1.2.3'], false],
    ['1.2.3', ['1.2.3'], true], // no operator means =
    ['1.2.9', ['~> 1.2.3'], true],
    ['1.3.0', ['~> 1.2.3'], false],
    ['1.9', ['~> 1.2'], true],
    ['2.0', ['~> 1.2'], false],
    ['4.0.1+build5', ['<= 4.0.1'], true], // metadata ignored
  ];
  for (const [version, constraints, expected] of cases) {
    it(`${version} ${constraints.join(' | ')} -> ${expected}`, () => {
      const args = constraints.map((c) => JSON.stringify(c)).join(', ');
      assert.equal(evaluateExpression(`compare_versions(${JSON.stringify(version)}, ${args})`, {}), expected);
    });
  }
});

describe('nuclei DSL: {{...}} marker expansion', () => {
  const vars = { Hostname: 'h.example', BaseURL: 'http://h.example', user: 'admin', num: '999', payload: 'id' };
  const cases: Array<[string, string]> = [
    ['{{BaseURL}}/login', 'http://h.example/login'],
    ['/{{7*7}}/', '/{{7*7}}/'], // a literal that names no function or variable stays
    ['{{md5("a")}}', '0cc175b9c0f1b6a831c399e269772661'],
    ['{{to_upper(Hostname)}}', 'H.EXAMPLE'],
    ['{{base64("{{user}}")}}', 'YWRtaW4='], // nested marker
    ['x={{url_encode(\'{{user}}&\')}}&y={{md5(num)}}', 'x=admin%26&y=b706835de79a2b4e80506f582af3676a'],
    ['{{unknown_var}} {{md5(undefined_var)}}', '{{unknown_var}} {{md5(undefined_var)}}'], // unresolved stays
    ['§user§:{{user}}', 'admin:admin'],
    ['{{rand_base(0)}}-{{concat("a","b")}}', '-ab'],
    ['{{', '{{'],
    ["{{md5({{num}})}}'", "b706835de79a2b4e80506f582af3676a'"], // nested: the inner name resolves first
    ['{{md5({{missing}})}}', '{{md5({{missing}})}}'],
  ];
  for (const [input, expected] of cases) {
    it(input, () => assert.equal(expandMarkers(input, vars), expected));
  }

  it('byte results reach a request body unchanged, text stays UTF-8', () => {
    const bytes = expandMarkersToBytes('é§user§{{hex_decode("aced0005ff")}}{{user}}', vars);
    assert.deepEqual(Buffer.from(bytes), Buffer.concat([Buffer.from('éadmin', 'utf8'), Buffer.from('aced0005ff', 'hex'), Buffer.from('admin')]));
    assert.deepEqual(Buffer.from(expandMarkersToBytes('{{md5({{num}})}} é', vars)), Buffer.from('b706835de79a2b4e80506f582af3676a é'));
  });

  it('a real request line from the corpus expands', { skip: corpusSkip }, () => {
    const file = 'http/vulnerabilities/backdoor/jexboss-backdoor.yaml';
    const line = "{{BaseURL}}/jexws/jexws.jsp?ppp={{url_encode('{{command}}')}}";
    assert.ok(readFileSync(path.join(TEMPLATES, file), 'utf8').includes(line));
    assert.equal(expandMarkers(line, { BaseURL: 'http://t', command: 'cat /etc/passwd' }), 'http://t/jexws/jexws.jsp?ppp=cat%20%2Fetc%2Fpasswd');
  });
});

/** Reads the dsl list items of a template (quoted, plain and block scalars) without a YAML library. */
function extractDslExpressions(text: string): string[] {
  const lines = text.split('\n');
  const found: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const header = /^(\s*)dsl:\s*$/.exec(lines[i] as string);
    if (!header) continue;
    const indent = (header[1] as string).length;
    for (i++; i < lines.length; i++) {
      const line = lines[i] as string;
      if (line.trim() === '' || line.trim().startsWith('#')) continue;
      const item = /^(\s*)- (.*)$/.exec(line);
      if (!item || (item[1] as string).length < indent) { i--; break; }
      const value = (item[2] as string).trim();
      if (value === '|' || value === '>' || value === '|-' || value === '>-') {
        const block: string[] = [];
        while (i + 1 < lines.length && ((lines[i + 1] as string).trim() === '' || /^\s*/.exec(lines[i + 1] as string)![0].length > (item[1] as string).length)) block.push((lines[++i] as string).trim());
        found.push(block.join(value.startsWith('|') ? '\n' : ' ').trim());
      } else if (value.startsWith("'")) {
        let raw = value;
        while (!/[^']'(\s+#.*)?$|^''$|[^']('')+'$/.test(raw) && i + 1 < lines.length) raw += ` ${(lines[++i] as string).trim()}`;
        found.push(raw.replace(/'(\s+#.*)?$/, '').slice(1).replaceAll("''", "'"));
      } else if (value.startsWith('"')) {
        let raw = value;
        while (!/[^\\]"(\s+#.*)?$/.test(raw) && i + 1 < lines.length) raw += ` ${(lines[++i] as string).trim()}`;
        found.push(JSON.parse(raw.replace(/(\s+#.*)?$/, '').replace(/\\\//g, '/')) as string);
      } else {
        found.push(value.replace(/\s+#.*$/, ''));
      }
    }
  }
  return found;
}

describe('nuclei DSL: corpus scan', { skip: corpusSkip }, () => {
  it('every dsl expression under http/cves/2023 compiles', () => {
    const dir = path.join(TEMPLATES, 'http', 'cves', '2023');
    let count = 0;
    const failures: string[] = [];
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.yaml'))) {
      for (const expression of extractDslExpressions(readFileSync(path.join(dir, name), 'utf8'))) {
        count++;
        const compiled = compileExpression(expression);
        if (isDslError(compiled)) failures.push(`${name}: ${expression} (${compiled.message})`);
      }
    }
    assert.ok(count > 500, `found ${count} dsl expressions`);
    assert.deepEqual(failures, []);
  });
});
