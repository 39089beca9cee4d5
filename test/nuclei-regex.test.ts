/**
 * Template regexes are matched in linear time (RE2 through re2js): a scanned server that sends a
 * hostile body cannot stall the scanner with a pattern that backtracks. Each hostile case would run
 * for minutes on a backtracking engine: it runs in a worker thread, terminated past a generous
 * deadline (no timing is asserted), and the test asserts what it returned. Also: RE2 semantics kept,
 * notably (?i), and the RegExp API of the RE2-backed regexes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import {
  buildHttpEvent,
  compileGoRegex,
  compileOperators,
  executeOperators,
  type HttpResponseModel,
  type OperatorsSpec,
} from '../src/engines/nuclei/match/index.js';
import { evaluateExpression } from '../src/engines/nuclei/dsl/index.js';

/** Stops a hung case: node:test's own timeout cannot interrupt a synchronous regex. */
const DEADLINE_MS = 20_000;

function response(text: string): HttpResponseModel {
  return {
    status: 200,
    statusText: 'OK',
    headers: [['Content-Type', 'text/html']],
    durationSeconds: 0.05,
    rawRequest: 'GET / HTTP/1.1\r\nHost: example.test\r\n\r\n',
    host: 'http://example.test',
    matched: 'http://example.test/',
    body: Buffer.from(text, 'utf8'),
  };
}

function run(spec: OperatorsSpec, text: string): ReturnType<typeof executeOperators> {
  return executeOperators(compileOperators(spec), buildHttpEvent(response(text)));
}

const CUBIC = '(.*[a-zA-Z0-9].+==)</string></value>';
const hostileA = 'A'.repeat(100_000);

/** Hostile cases (each minutes long on a backtracking engine): what they return, and what they must. */
const HOSTILE: Record<string, { run: () => unknown; expected: unknown }> = {
  'a cubic corpus regex (CVE-2018-1000226) on a hostile 100 KB line: no match, then a match': {
    run: () => {
      const spec: OperatorsSpec = {
        matchers: [{ type: 'regex', part: 'body', regex: [CUBIC] }],
        extractors: [{ type: 'regex', part: 'body', group: 1, regex: [CUBIC] }],
      };
      const miss = run(spec, hostileA);
      const hit = run(spec, `${hostileA}==</string></value>`);
      return [miss.matched, miss.outputExtracts, hit.matched, hit.outputExtracts.map((x) => x.length)];
    },
    expected: [false, [], true, [100_002]],
  },
  'nested quantifiers, a quadratic scan and <a href=" fragments: empty results': {
    run: () => [
      run({ matchers: [{ type: 'regex', regex: ['(a+)+$', '(x+x+)+y'] }] }, `${'a'.repeat(50_000)}!${'x'.repeat(50_000)}`).matched,
      // Linear per start position on a backtracking engine, so quadratic over the body.
      run({ extractors: [{ type: 'regex', regex: ['[a-z0-9-]+\\.openreplay\\.cloud/ingest'] }] }, '0'.repeat(100_000)).outputExtracts,
      run({ extractors: [{ type: 'regex', group: 1, regex: ['<a [^>]*href="([^"]*)"[^>]*serving-sys\\.com'] }] }, '<a href="'.repeat(10_000)).outputExtracts,
    ],
    expected: [false, [], []],
  },
  'DSL regex functions are bounded too: regex, regex_all, =~, replace_regex': {
    run: () => {
      const body = `${'a'.repeat(50_000)}!`;
      const replaced = evaluateExpression('replace_regex(body, "(a+)+!", "<$1>")', { body });
      return [
        evaluateExpression('regex("(a+)+$", body)', { body }),
        evaluateExpression('regex_all("(a|aa)+$", body, "aaa")', { body }),
        evaluateExpression('body =~ "(a*)*b"', { body }),
        replaced === `<${'a'.repeat(50_000)}>`,
      ];
    },
    expected: [false, false, false, true],
  },
};

if (!isMainThread) {
  const name = workerData as string;
  parentPort?.postMessage(HOSTILE[name]?.run());
} else {
  for (const [name, hostile] of Object.entries(HOSTILE)) {
    test(name, async () => {
      const worker = new Worker(new URL(import.meta.url), { workerData: name });
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${name}: still matching after ${DEADLINE_MS} ms`)), DEADLINE_MS);
      });
      try {
        const result = await Promise.race([once(worker, 'message').then(([message]) => message as unknown), deadline]);
        assert.deepEqual(result, hostile.expected);
      } finally {
        clearTimeout(timer);
        await worker.terminate();
      }
    });
  }
}

if (isMainThread) test('(?i) still matches case-insensitively, scoped forms only where they apply', () => {
  const spec: OperatorsSpec = { matchers: [{ type: 'regex', regex: ['(?i)<title>Admin Panel</title>'] }] };
  assert.equal(run(spec, '<TITLE>admin PANEL</TITLE>').matched, true);
  assert.equal(run(spec, '<title>Admin Pane</title>').matched, false);
  const scoped = compileGoRegex('ab(?i)cd');
  assert.equal(scoped.test('abCD'), true);
  scoped.lastIndex = 0;
  assert.equal(scoped.test('ABcd'), false);
  assert.equal(evaluateExpression('regex("(?i)^server: nginx", "SERVER: NGINX")', {}), true);
  // RE2 folds case beyond ASCII.
  assert.equal(evaluateExpression('regex("(?i)^é$", "É")', {}), true);
});

if (isMainThread) test('the RE2-backed RegExp keeps the RegExp API: exec, groups, lastIndex, matchAll, replace', () => {
  const re = compileGoRegex('(?P<key>[a-z]+)=(\\d+)?');
  const first = re.exec('x a=1 b=');
  assert.deepEqual([...(first ?? [])], ['a=1', 'a', '1']);
  assert.equal(first?.index, 2);
  assert.equal(first?.groups?.key, 'a');
  assert.equal(re.lastIndex, 5);
  const second = re.exec('x a=1 b=');
  assert.deepEqual([...(second ?? [])], ['b=', 'b', undefined]);
  assert.equal(re.exec('x a=1 b='), null);
  assert.equal(re.lastIndex, 0);
  assert.deepEqual([...'k=1 v=22'.matchAll(re)].map((m) => m[2]), ['1', '22']);
  assert.equal('k=1 v=22'.replace(re, '$<key>:$2'), 'k:1 v:22');
  // Empty matches advance like JS's own (no endless loop).
  assert.equal([...'baaa'.matchAll(compileGoRegex('a*'))].length, [...'baaa'.matchAll(/a*/g)].length);
  assert.equal(compileGoRegex('\\Aab\\z').test('ab'), true);
});
