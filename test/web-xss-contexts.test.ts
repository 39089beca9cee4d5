import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { findExecutable, reflectionContexts, xssCode, type ReflectionContext } from '../src/engines/web/checks/html-contexts.js';
import { jsStateAt } from '../src/engines/web/checks/js-scan.js';
import { payloadsFor } from '../src/engines/web/checks/xss.js';
import { escapeHtml } from './helpers/vuln-app/app.js';

const MARK = 'mk4r9x2q';
const CODE = xssCode('ab12cd34');

describe('reflectionContexts: where a marker lands', () => {
  const cases: Array<[string, ReflectionContext[]]> = [
    [`<p>${MARK}</p>`, [{ kind: 'text' }]],
    [`<input value="${MARK}">`, [{ kind: 'attribute', tag: 'input', name: 'value', quote: '"', url: false }]],
    [`<input value='x ${MARK}'>`, [{ kind: 'attribute', tag: 'input', name: 'value', quote: "'", url: false }]],
    [`<input value=${MARK}>`, [{ kind: 'attribute', tag: 'input', name: 'value', quote: '', url: false }]],
    [`<a href="${MARK}">x</a>`, [{ kind: 'attribute', tag: 'a', name: 'href', quote: '"', url: true }]],
    [`<a href="/go?u=${MARK}">x</a>`, [{ kind: 'attribute', tag: 'a', name: 'href', quote: '"', url: false }]],
    [`<div onclick="go('${MARK}')">`, [{ kind: 'attribute', tag: 'div', name: 'onclick', quote: '"', url: false, js: 'single' }]],
    [`<script>var a = "${MARK}";</script>`, [{ kind: 'script', state: 'double' }]],
    [`<script>var a = ${MARK};</script>`, [{ kind: 'script', state: 'code' }]],
    [`<script>// ${MARK}\n</script>`, [{ kind: 'script', state: 'line-comment' }]],
    [`<script type="application/json">{"a":"${MARK}"}</script>`, [{ kind: 'raw-text', tag: 'script' }]],
    [`<textarea>${MARK}</textarea>`, [{ kind: 'raw-text', tag: 'textarea' }]],
    [`<title>${MARK}</title>`, [{ kind: 'raw-text', tag: 'title' }]],
    [`<!-- ${MARK} -->`, [{ kind: 'comment' }]],
    [`<p>&lt;${MARK}&gt;</p><p>${MARK}</p>`, [{ kind: 'text' }]],
    [`<p>nothing here</p>`, []],
  ];
  for (const [html, expected] of cases) {
    test(html.replace(/\n/g, '\\n'), () => assert.deepEqual(reflectionContexts(html, MARK), expected));
  }
});

describe('findExecutable: only code a browser would run counts', () => {
  const cases: Array<[string, string | null]> = [
    [`<img src=x onerror=${CODE}>`, 'handler'],
    [`&lt;img src=x onerror=${CODE}&gt;`, null],
    [`<input value="&quot;><img src=x onerror=${CODE}>">`, null],
    [`<input value="" autofocus onfocus=${CODE} x="">`, 'handler'],
    [`<input type="hidden" value="" autofocus onfocus=${CODE} x="">`, null],
    [`<div onclick="go('&#39;-${CODE}-&#39;')">`, 'handler'],
    [`<div onclick="go('\\'-${CODE}-\\'')">`, null],
    [`<script>var u = ''-${CODE}-'';</script>`, 'script'],
    [`<script>var u = '\\'-${CODE}-\\'';</script>`, null],
    [`<script>var u = "'-${CODE}-'";</script>`, null],
    [`<script>var u = '';${CODE};'</script>`, null],
    [`<script>// ${CODE}\n</script>`, null],
    [`<script>var r = /'/; ${CODE};</script>`, 'script'],
    [`<script>var t = \`\${${CODE}}\`;</script>`, 'script'],
    [`<script type="text/template"><img src=x onerror=${CODE}></script>`, null],
    [`<a href="javascript:${CODE}">x</a>`, 'url'],
    [`<a href="java&#x09;script:${CODE}">x</a>`, 'url'],
    [`<a href="/go?u=javascript:${CODE}">x</a>`, null],
    [`<img src="javascript:${CODE}">`, null],
    [`<textarea><img src=x onerror=${CODE}></textarea>`, null],
    [`<template><img src=x onerror=${CODE}></template>`, null],
    [`<noscript><img src=x onerror=${CODE}></noscript>`, null],
    [`<!-- <img src=x onerror=${CODE}> -->`, null],
    [`<img src=x onerror=console.log(/zz99zz99/)>`, null],
  ];
  for (const [html, kind] of cases) {
    test(html.replace(/\n/g, '\\n'), () => assert.equal(findExecutable(html, CODE)?.kind ?? null, kind));
  }
});

test('jsStateAt: strings, comments, regular expressions and template literals', () => {
  const at = (source: string): string => jsStateAt(source, source.indexOf('@'));
  assert.equal(at(`var a = 'x' / 2; @`), 'code');
  assert.equal(at(`var r = /'/; @`), 'code');
  assert.equal(at(`x = a / b; '@'`), 'single');
  assert.equal(at('var s = "\\"@"'), 'double');
  assert.equal(at('`${ "a" } @`'), 'template');
  assert.equal(at('`${ f({}) + @ }`'), 'code');
  assert.equal(at('/* a */ b /* @ */'), 'block-comment');
  assert.equal(at('return /@/'), 'regex');
});

/**
 * A page template per context (`XX` is where input lands): the payloads the check builds for the
 * context the marker shows, reflected as they are, include one that runs; reflected HTML-escaped,
 * none does, except where HTML escaping is no defence: a `javascript:` URL; an event handler (the
 * browser decodes the entities before running the code); an unquoted attribute (a space is enough
 * to add one); script code and template literals (no quote to escape).
 */
describe('payloadsFor: each context has a payload that runs when reflected raw', () => {
  const templates: Array<[string, boolean]> = [
    ['<p>XX</p>', false],
    ['<input value="XX">', false],
    ["<input value='XX'>", false],
    ['<input value=XX>', true],
    ['<a href="XX">x</a>', true],
    ['<div onclick="go(\'XX\', 1)">x</div>', true],
    ["<script>var a = 'XX'; f(a);</script>", false],
    ['<script>var a = "XX";</script>', false],
    ['<script>var a = XX;</script>', true],
    ['<script>var a = `XX`;</script>', true],
    ['<script type="application/json">{"a": "XX"}</script>', false],
    ['<textarea>XX</textarea>', false],
    ['<title>XX</title>', false],
    ['<style>p { color: XX }</style>', false],
    ['<!-- XX -->', false],
  ];
  for (const [template, runsEscaped] of templates) {
    test(template, () => {
      const contexts = reflectionContexts(template.replace('XX', MARK), MARK);
      assert.equal(contexts.length, 1);
      const payloads = payloadsFor(contexts[0] as ReflectionContext).map((payload) => payload(CODE));
      assert.ok(payloads.some((payload) => findExecutable(template.replace('XX', () => payload), CODE)), 'a payload runs when reflected raw');
      assert.equal(
        payloads.some((payload) => findExecutable(template.replace('XX', () => escapeHtml(payload)), CODE)),
        runsEscaped,
        runsEscaped ? 'HTML escaping is no defence here' : 'no payload runs when HTML-escaped',
      );
    });
  }
});
