/**
 * The HTML report renderer on in-memory records: hostile text stays text, the page loads nothing
 * from outside, every internal link lands, and large runs stream instead of being built whole.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Readable } from 'node:stream';
import { renderHtml } from '../src/reports/render-html.js';
import type { ReportFinding } from '../src/reports/report.js';
import { HOSTILE, SAMPLE_NARRATIVE, largeReport, makeFinding, sampleReport } from './helpers/report-fixture.js';

const ESCAPED_SCRIPT = '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;';

async function collect(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

async function* iterate<T>(items: T[]): AsyncIterable<T> {
  for (const item of items) yield item;
}

function attributeValues(html: string, name: string): string[] {
  return [...html.matchAll(new RegExp(`\\s${name}="([^"]*)"`, 'g'))].map((m) => m[1]!);
}

function countOf(html: string, needle: string): number {
  return html.split(needle).length - 1;
}

test('the sample renders as one self-contained page with hostile text escaped', async () => {
  const html = await collect(renderHtml(sampleReport()));
  assert.ok(html.startsWith('<!doctype html>'));
  assert.ok(html.includes('<meta charset="utf-8">'));
  assert.ok(html.includes('<meta name="viewport"'));
  assert.ok(html.includes(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`));
  assert.ok(html.trimEnd().endsWith('</html>'));

  assert.doesNotMatch(html, /<script/i);
  assert.ok(html.includes(`<pre>${ESCAPED_SCRIPT}</pre>`), 'the evidence shows the markup as text');
  assert.ok(html.includes(`<h1>Weekly perimeter ${ESCAPED_SCRIPT}</h1>`), 'the scan name is escaped');
  assert.ok(html.includes(`<title>Weekly perimeter ${ESCAPED_SCRIPT}`));
  assert.ok(html.includes('Cookie =HYPERLINK(&quot;http://evil.example&quot;,&quot;click&quot;)'));
  assert.ok(html.includes('ends ]]&gt; a CDATA section &amp; has &lt;tags&gt;'));
  assert.ok(html.includes(HOSTILE.unicode), 'non-Latin text passes through unharmed');

  assert.doesNotMatch(html, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/, 'no control character reaches the page');
  assert.ok(html.includes('bell\\x07 and escape\\x1b[31m red'), 'control characters are shown as escapes');
});

test('the page loads nothing from outside and links only to references', async () => {
  const html = await collect(renderHtml(sampleReport()));
  assert.doesNotMatch(html, /<link|@import|@font-face|url\(|<img|<iframe|<object|<embed/i);
  assert.doesNotMatch(html, /\s(src|srcset|action|formaction|xlink:href)=/i);
  assert.doesNotMatch(html, /\son[a-z]+=/i, 'no event handler attribute');

  const references = new Set([1, 2, 3, 4, 5].map((id) => `https://nvd.nist.gov/vuln/detail/CVE-2024-${1000 + id}`));
  const ids = new Set(attributeValues(html, 'id'));
  const hrefs = attributeValues(html, 'href');
  assert.ok(hrefs.length > 0);
  for (const href of hrefs) {
    if (href.startsWith('#')) assert.ok(ids.has(href.slice(1)), `${href} lands on an element of the page`);
    else assert.ok(references.has(href), `${href} is one of the findings' references`);
  }
  assert.equal(hrefs.filter((h) => h.startsWith('https://')).length, references.size, 'each reference is a link');
});

test('each finding is an article in its threat section, and the sections come in order', async () => {
  const html = await collect(renderHtml(sampleReport()));
  assert.equal(countOf(html, '<article '), 5);
  for (const id of [1, 2, 3, 4, 5]) assert.equal(countOf(html, `<article id="finding-${id}"`), 1);

  const sections = ['id="summary"', '<svg', 'id="narrative-summary"', 'id="services"', 'id="findings"', 'id="threat-critical"', 'id="threat-high"', 'id="threat-medium"', 'id="threat-low"', 'id="threat-informational"', 'id="fixed"', 'id="narrative"', '<footer'];
  const positions = sections.map((s) => html.indexOf(s));
  for (const [i, s] of sections.entries()) assert.ok(positions[i]! > 0, `${s} is present`);
  assert.deepEqual([...positions].sort((a, b) => a - b), positions, 'the sections come in the documented order');
  assert.ok(html.indexOf('id="finding-1"') < html.indexOf('id="threat-high"'), 'the critical finding sits in the critical section');
  assert.ok(html.indexOf('Expired certificate') > html.indexOf('id="fixed"'), 'the fixed finding is listed as fixed');
  assert.ok(!html.includes('id="finding-6"'), 'a fixed finding is not an article');
});

test('the summary shows an inline chart, the lifecycle counts, hosts and notes', async () => {
  const html = await collect(renderHtml(sampleReport()));
  const svg = html.slice(html.indexOf('<svg'), html.indexOf('</svg>') + 6);
  for (const color of ['#7b1fa2', '#d32f2f', '#f57c00', '#fbc02d', '#1976d2']) assert.ok(svg.includes(`fill="${color}"`));
  for (const threat of ['Critical', 'High', 'Medium', 'Low', 'Informational']) assert.ok(svg.includes(`>${threat}</text>`));
  assert.ok(html.includes('<dt>Still open</dt><dd>1</dd>'));
  assert.ok(html.includes('<dt>Down</dt><dd>5</dd>'));
  assert.ok(html.includes('UDP probes were skipped: the scan rate limit was reached.'));
  assert.ok(html.includes('2026-11-21 11:00:05 UTC'));
  assert.ok(html.includes('2026-11-20 03:00:00 UTC'));
});

test('narrative citations link to the cited findings', async () => {
  const html = await collect(renderHtml(sampleReport()));
  const cited = [...html.matchAll(/<a href="#finding-(\d+)">#(\d+)<\/a>/g)];
  assert.ok(cited.length >= 5);
  for (const [, target, label] of cited) {
    assert.equal(target, label);
    assert.ok(html.includes(`<article id="finding-${target}"`));
  }
  assert.ok(html.includes('deterministic narrative builder'));
});

test('references that are not http(s) are text, and http(s) ones are escaped in the href', async () => {
  const hostile = makeFinding(7, {
    threat: 'Critical',
    references: ['javascript:alert(1)', 'data:text/html,<b>x</b>', 'https://ok.example/a?b=1&c="2"', 'HTTP://old.example/'],
  });
  const html = await collect(renderHtml(sampleReport({ findings: () => iterate([hostile]), total: 1 })));
  assert.doesNotMatch(html, /href="(javascript|data):/i);
  assert.ok(html.includes('<li>javascript:alert(1)</li>'));
  assert.ok(html.includes('<li>data:text/html,&lt;b&gt;x&lt;/b&gt;</li>'));
  assert.ok(html.includes('href="https://ok.example/a?b=1&amp;c=&quot;2&quot;"'));
  assert.ok(html.includes('href="HTTP://old.example/"'));
});

test('an LLM narrative names its model and why it was replaced; no narrative means no section', async () => {
  const llm = { ...SAMPLE_NARRATIVE, producedBy: 'llm' as const, model: `gpt <b>x</b>`, fallbackReason: 'cited finding #99 is <not> present' };
  const html = await collect(renderHtml(sampleReport({ narrative: llm })));
  assert.ok(html.includes('model <code>gpt &lt;b&gt;x&lt;/b&gt;</code>'));
  assert.ok(html.includes('cited finding #99 is &lt;not&gt; present'));

  const bare = await collect(renderHtml(sampleReport({ narrative: null, vulnDbSyncedAt: null, services: [] })));
  assert.ok(!bare.includes('id="narrative"') && !bare.includes('href="#narrative'));
  assert.ok(bare.includes('never synced'));
  assert.ok(bare.includes('The run recorded no open port or service.'));
});

test('a threat the counts promise but the findings skip still has its section', async () => {
  const only = [makeFinding(1, { threat: 'Critical' }), makeFinding(2, { threat: 'Low' })];
  const html = await collect(renderHtml(sampleReport({ findings: () => iterate(only) })));
  for (const href of attributeValues(html, 'href').filter((h) => h.startsWith('#'))) {
    assert.equal(countOf(html, `id="${href.slice(1)}"`), 1, `${href} lands on exactly one element`);
  }
  assert.equal(countOf(html, '<article '), 2);
});

test('10,000 findings stream into 10,000 articles', async () => {
  const html = await collect(renderHtml(largeReport(10_000)));
  assert.equal(countOf(html, '<article '), 10_000);
  assert.ok(html.includes('id="finding-10000"'));
  assert.ok(html.trimEnd().endsWith('</html>'));
});

test('the page starts flowing before the findings have all been read', async () => {
  let read = 0;
  let closed = false;
  const report = largeReport(10_000);
  const source = report.findings;
  report.findings = async function* counted(): AsyncGenerator<ReportFinding> {
    try {
      for await (const f of source()) {
        read++;
        yield f;
      }
    } finally {
      closed = true;
    }
  };
  const stream = renderHtml(report);
  let seen = '';
  for await (const chunk of stream) {
    seen += String(chunk);
    if (seen.includes('<article ')) break;
  }
  assert.ok(read < 1_000, `only ${read} findings were read when the first article came out`);
  // Leaving the loop destroys the stream (with an AbortError), which closes the findings iterator
  // before the stream emits 'close'.
  if (!stream.closed) await new Promise((resolve) => stream.once('close', resolve));
  assert.ok(closed, 'abandoning the stream stops reading findings');
});

test('a findings iterable that fails midway makes the stream emit the error', async () => {
  const report = sampleReport({
    findings: async function* failing() {
      yield makeFinding(1, { threat: 'Critical' });
      throw new Error('database went away');
    },
  });
  await assert.rejects(collect(renderHtml(report)), /database went away/);
});
