/**
 * The PDF report, rendered from in-memory records and read back with poppler's `pdftotext`, so
 * the assertions are about the text a reader sees, not about pdfkit's drawing calls.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import type { Readable } from 'node:stream';
import { test, type TestContext } from 'node:test';
import type { ReportFinding } from '../src/reports/report.js';
import { THREAT_ORDER } from '../src/reports/report.js';
import { renderPdf } from '../src/reports/render-pdf.js';
import { HOSTILE, largeReport, makeFinding, sampleReport } from './helpers/report-fixture.js';

const HAS_PDFTOTEXT = !spawnSync('pdftotext', ['-v']).error;

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The text of the PDF as laid out on its pages; null (and the test skipped) without poppler. */
function pdfToText(t: TestContext, pdf: Buffer): string | null {
  if (!HAS_PDFTOTEXT) {
    t.skip('needs pdftotext (Debian package poppler-utils)');
    return null;
  }
  return execFileSync('pdftotext', ['-layout', '-', '-'], { input: pdf, maxBuffer: 1 << 30 }).toString('utf8');
}

function pageCount(pdf: Buffer): number {
  return pdf.toString('latin1').match(/\/Type \/Page\b(?!s)/g)?.length ?? 0;
}

async function* collect(items: ReportFinding[]): AsyncIterable<ReportFinding> {
  for (const item of items) yield item;
}

test('the sample report is a complete PDF with every section a reader needs', async (t) => {
  const record = sampleReport();
  const pdf = await readAll(renderPdf(record));
  assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
  assert.match(pdf.subarray(-8).toString('latin1'), /%%EOF\n?$/);

  const text = pdfToText(t, pdf);
  if (text === null) return;
  assert.ok(text.includes(record.scan.name), 'the scan name, hostile markup and all, as literal text');
  assert.ok(text.includes(HOSTILE.script), 'evidence markup is drawn, not interpreted');
  assert.ok(text.includes('Rampart scan report'));
  assert.ok(text.includes('Page 1'));
  assert.ok(text.includes(`Rampart · ${record.scan.name} · run 2`), 'the footer');
  assert.ok(text.includes('synced 2026-11-20 03:00:00 UTC'), 'the vulnerability-database date');

  const present: ReportFinding[] = [];
  for await (const finding of record.findings()) present.push(finding);
  const findingsAt = text.indexOf('Findings\n');
  assert.ok(findingsAt > 0, 'a Findings section');
  for (const finding of present) {
    assert.ok(text.includes(finding.name), `finding name ${finding.name}`);
    assert.ok(text.includes(`#${finding.id}`), `finding id #${finding.id}`);
  }
  let previous = findingsAt;
  for (const threat of THREAT_ORDER) {
    const at = text.indexOf(`${threat} · 1 finding`, findingsAt);
    assert.ok(at > previous, `the ${threat} heading, after the one before it`);
    previous = at;
  }

  const fixedAt = text.indexOf('Fixed since the previous run');
  assert.ok(fixedAt > findingsAt);
  assert.ok(text.indexOf('Expired certificate', fixedAt) > fixedAt, 'the fixed finding under its section');
  assert.ok(!text.slice(findingsAt, fixedAt).includes('Expired certificate'), 'a fixed finding is not listed as present');

  const narrativeAt = text.indexOf('Attack narrative');
  assert.ok(narrativeAt > 0);
  assert.ok(text.includes("Written by Rampart's deterministic narrative builder"));
  for (const part of ['Entry points', 'Attack chains', 'Fixes in order of effect']) assert.ok(text.indexOf(part, narrativeAt) > narrativeAt, part);
  assert.match(text.slice(narrativeAt), /\[#2\]/);
});

test('control characters are shown as ?, text outside Latin-1 is drawn, long words wrap', async (t) => {
  const text = pdfToText(t, await readAll(renderPdf(sampleReport())));
  if (text === null) return;
  assert.ok(text.includes('bell? and escape?[31m red'), 'control characters shown as ?');
  assert.ok(text.includes('Ünïcödé — ') && text.includes(' — emoji 🔥'), 'Latin-1 and emoji drawn (report-unicode.test.ts has every script)');
  const runs = [...text.matchAll(/^\s*(A+)\s*$/gm)].map((match) => match[1]!.length);
  assert.ok(runs.length > 1 && Math.max(...runs) < 400, `400 A's wrapped over lines, got runs ${runs.join(', ')}`);
  assert.equal(runs.reduce((sum, n) => sum + n, 0), 400, "all 400 A's on the page");
});

test('an LLM narrative names its model and a fallback says why; no narrative, no section', async (t) => {
  const narrative = { ...sampleReport().narrative!, producedBy: 'llm' as const, model: 'gpt-test-1' };
  const llm = pdfToText(t, await readAll(renderPdf(sampleReport({ narrative }))));
  if (llm === null) return;
  assert.ok(llm.includes('Written by the LLM gpt-test-1'));

  const fallback = { ...narrative, producedBy: 'deterministic' as const, fallbackReason: 'the model timed out' };
  assert.ok(pdfToText(t, await readAll(renderPdf(sampleReport({ narrative: fallback }))))!.includes('the model timed out'));

  const none = pdfToText(t, await readAll(renderPdf(sampleReport({ narrative: null }))))!;
  assert.ok(!none.includes('Attack narrative'));
});

test('an empty run says so instead of leaving sections blank', async (t) => {
  const record = sampleReport({
    findings: () => collect([]),
    fixed: () => collect([]),
    services: [],
    total: 0,
    counts: { Critical: 0, High: 0, Medium: 0, Low: 0, Informational: 0 },
    vulnDbSyncedAt: null,
    run: { ...sampleReport().run, outcome: 'failed', error: 'The target refused every connection.' },
  });
  const text = pdfToText(t, await readAll(renderPdf(record)));
  if (text === null) return;
  assert.ok(text.includes('No finding was present in this run.'));
  assert.ok(text.includes('No open port or service was recorded'));
  assert.match(text.slice(text.indexOf('Fixed since the previous run')), /None\./);
  assert.ok(text.includes('never synced'));
  assert.ok(text.includes('The target refused every connection.'));
  assert.ok(text.includes('Failed'));
});

test('10,000 findings render in full, over many pages', async (t) => {
  const pdf = await readAll(renderPdf(largeReport(10_000)));
  assert.match(pdf.subarray(-8).toString('latin1'), /%%EOF\n?$/);
  assert.ok(pageCount(pdf) > 100, `pages: ${pageCount(pdf)}`);
  const text = pdfToText(t, pdf);
  if (text === null) return;
  assert.ok(text.includes('Finding 10000'));
  assert.ok(text.includes('#10000'));
  // Every finding, the minor ones drawn short included, keeps its name, id, evidence and solution.
  const ids = (pattern: RegExp) => new Set([...text.matchAll(pattern)].map((match) => Number(match[1])));
  for (const [what, pattern] of [
    ['name', /Finding (\d+)\s/g],
    ['id', /#(\d+)\s/g],
    ['evidence', /Evidence (\d+): x/g],
    ['solution', /Solution for finding (\d+)\./g],
  ] as const) {
    assert.equal(ids(pattern).size, 10_000, `every finding's ${what}`);
  }
  assert.ok(text.includes('so its low findings are listed in short'), 'a large run says why its minor findings are short');
  assert.ok(text.includes('so its informational findings are listed in short'));
  assert.ok(!text.includes('so its critical findings are listed in short'));
});

test('an error while reading findings destroys the stream with that error', async () => {
  async function* failing(): AsyncIterable<ReportFinding> {
    yield makeFinding(1);
    yield makeFinding(2);
    throw new Error('the database went away');
  }
  await assert.rejects(readAll(renderPdf(sampleReport({ findings: failing }))), /the database went away/);
});

test('a reader that goes away stops the reads of findings', async () => {
  let read = 0;
  let closed!: () => void;
  const finished = new Promise<void>((resolve) => (closed = resolve));
  async function* endless(): AsyncIterable<ReportFinding> {
    try {
      for (let id = 1; id <= 10_000; id++, read++) yield makeFinding(id, { threat: 'High' });
    } finally {
      closed();
    }
  }
  const stream = renderPdf(sampleReport({ findings: endless }));
  stream.once('data', () => stream.destroy());
  await finished;
  assert.ok(read < 10_000, `read ${read} findings after the reader left`);
});
