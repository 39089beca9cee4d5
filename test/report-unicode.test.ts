/**
 * Text of any script in the reports: what scanned services return (banners, titles, evidence) and
 * what users name their scans. The PDF is read back with poppler's `pdftotext`, so the assertions
 * are about the characters a reader sees and copies out; the other formats are UTF-8 text.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { test, type TestContext } from 'node:test';
import { renderCsv } from '../src/reports/render-csv.js';
import { renderHtml } from '../src/reports/render-html.js';
import { renderPdf } from '../src/reports/render-pdf.js';
import { renderTxt } from '../src/reports/render-txt.js';
import { renderXml } from '../src/reports/render-xml.js';
import type { ReportFinding, ReportRecord } from '../src/reports/report.js';
import { makeFinding, SAMPLE_NARRATIVE, sampleReport } from './helpers/report-fixture.js';

const HAS_PDFTOTEXT = !spawnSync('pdftotext', ['-v']).error;
/** The optional CJK font (Debian package fonts-wqy-microhei); without it CJK is drawn as U+FFFD. */
const HAS_CJK_FONT = fs.existsSync('/usr/share/fonts/truetype/wqy/wqy-microhei.ttc');

/** One string per script, as a service might return them. */
const SCRIPTS = {
  cyrillic: 'Сервер на Тверской',
  latin: 'Crème brûlée à Łódź, Ærøskøbing',
  greek: 'Ελληνικός διακομιστής',
  cjk: '東京 日本語 한국어 中文',
  emoji: '🔥 😀 ✅ 👍🏽',
  symbols: '✓ ★ → ⚠ █',
};
const ALL = Object.values(SCRIPTS).join(' · ');
/** The scan name of the issue, its "ō" typed as "o" and a combining macron: drawn, and copied out, composed. */
const SCAN_NAME = 'Сервер To\u0304kyo\u0304 東京';
const SCAN_NAME_SHOWN = 'Сервер Tōkyō 東京';

/** What CJK text reads as in this machine's PDF: itself, or one U+FFFD a character without the font. */
function shown(text: string): string {
  return HAS_CJK_FONT ? text : text.replace(/[\u3000-\u9fff\uac00-\ud7af]/g, '\ufffd');
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

async function* iterate<T>(items: T[]): AsyncIterable<T> {
  for (const item of items) yield item;
}

/** A run whose scan, finding, service and narrative carry text of every script. */
function unicodeReport(finding: Partial<ReportFinding> = {}): ReportRecord {
  const base = sampleReport();
  const findings = [
    makeFinding(1, {
      name: `Banner ${SCRIPTS.cyrillic} ${SCRIPTS.greek}`,
      threat: 'High',
      hostname: 'сервер.пример.test',
      description: `Title: ${ALL}.`,
      evidence: Object.values(SCRIPTS).join('\n'),
      solution: `Fix ${SCRIPTS.latin} ${SCRIPTS.emoji}`,
      ...finding,
    }),
  ];
  return sampleReport({
    scan: { ...base.scan, name: SCAN_NAME },
    findings: () => iterate(findings),
    fixed: () => iterate([]),
    total: 1,
    counts: { Critical: 0, High: 1, Medium: 0, Low: 0, Informational: 0 },
    services: [{ hostname: 'сервер.пример.test', hostIp: '192.0.2.1', port: 443, protocol: 'tcp', service: 'https', findings: 1, worstThreat: 'High' }],
    narrative: { ...SAMPLE_NARRATIVE, entryPoints: [{ text: `Entry through ${SCRIPTS.cjk} ${SCRIPTS.emoji}`, findingIds: [1] }] },
  });
}

function pdfToText(t: TestContext, pdf: Buffer, ...args: string[]): string | null {
  if (!HAS_PDFTOTEXT) {
    t.skip('needs pdftotext (Debian package poppler-utils)');
    return null;
  }
  return execFileSync('pdftotext', [...args, '-', '-'], { input: pdf, maxBuffer: 1 << 30 }).toString('utf8');
}

test('the PDF draws Cyrillic, accented Latin, Greek, CJK, emoji and symbols, and they copy out exactly', async (t) => {
  const text = pdfToText(t, await readAll(renderPdf(unicodeReport())), '-layout');
  if (text === null) return;
  assert.ok(text.includes(shown(SCAN_NAME_SHOWN)), 'the scan name on the cover, composed');
  assert.ok(text.includes(`Rampart · ${shown(SCAN_NAME_SHOWN)} · run 2`), 'the footer');
  assert.ok(text.includes(`Banner ${SCRIPTS.cyrillic} ${SCRIPTS.greek}`), 'the finding name');
  assert.ok(text.includes('сервер.пример.test'), 'the host, in the table and the finding');
  assert.ok(text.includes(`Fix ${SCRIPTS.latin} ${SCRIPTS.emoji}`), 'the solution');
  assert.ok(text.includes(`Entry through ${shown(SCRIPTS.cjk)} ${SCRIPTS.emoji} [#1]`), 'a narrative claim, drawn by pdfkit');
  for (const [script, value] of Object.entries(SCRIPTS)) {
    assert.match(text, new RegExp(`^\\s+${shown(value)}$`, 'm'), `the ${script} line of the evidence`);
    assert.ok(text.replace(/\s+/g, ' ').includes(shown(value)), `${script} in the description`);
  }
  assert.ok(!text.includes('?'), 'no character shown as "?"');
  if (HAS_CJK_FONT) assert.ok(!text.includes('\ufffd') && !text.includes('have no glyph'), 'no character replaced, no closing note');
  else assert.match(text.replace(/\s+/g, ' '), /CJK|Chinese, Japanese and Korean text needs a font the server lacks: the Debian package fonts-wqy-microhei/);
});

test('a character no font has is drawn as U+FFFD, not "?", and the closing note names it', async (t) => {
  const linearB = '\u{10000}';
  const text = pdfToText(t, await readAll(renderPdf(unicodeReport({ name: `Banner A${linearB}B` }))), '-layout');
  if (text === null) return;
  assert.ok(text.includes('Banner A\ufffdB'), 'the replacement character in its place');
  const note = /Some characters have no glyph in this report's fonts and are shown as \ufffd, among them (U\+[0-9A-F]+(?:, U\+[0-9A-F]+)*)\./.exec(text.replace(/\s+/g, ' '));
  assert.ok(note, 'a closing note');
  // Without the CJK font, the first characters replaced are the CJK ones: the note names the package.
  if (HAS_CJK_FONT) assert.equal(note[1], 'U+10000');
  else assert.ok(text.replace(/\s+/g, ' ').includes('the Debian package fonts-wqy-microhei'), 'the note names the CJK font package');
});

test('wide characters are measured: CJK and emoji wrap within the margins, in prose and in evidence', async (t) => {
  // Characters that appear nowhere else in the report, to be counted.
  const record = unicodeReport({ description: `${'鯨'.repeat(300)} ${'🐧'.repeat(200)}`, evidence: `${'漢'.repeat(200)}\n${'🦀'.repeat(150)}` });
  const boxes = pdfToText(t, await readAll(renderPdf(record)), '-bbox');
  if (boxes === null) return;
  const words = [...boxes.matchAll(/<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)<\/word>/g)];
  const text = words.map((word) => word[3]).join('');
  assert.equal(text.match(/🐧/gu)?.length, 200, 'every emoji of the description');
  assert.equal(text.match(/🦀/gu)?.length, 150, 'every emoji of the evidence');
  if (HAS_CJK_FONT) {
    assert.equal(text.match(/鯨/g)?.length, 300, 'every CJK character of the description');
    assert.equal(text.match(/漢/g)?.length, 200, 'every CJK character of the evidence');
  }
  const right = 595.28 - 50;
  const past = words.filter((word) => Number(word[2]) > right + 0.5);
  assert.deepEqual(
    past.map((word) => `${word[3]!.slice(0, 10)}… ends at ${word[2]}`),
    [],
    'no word runs past the right margin',
  );
  assert.ok(words.filter((word) => /^(鯨|🐧|漢|🦀|\ufffd)+$/u.test(word[3]!)).length >= 6, 'the long runs were wrapped over several lines');
});

test('the text formats keep every script intact (UTF-8)', async () => {
  const record = unicodeReport();
  const name = `Banner ${SCRIPTS.cyrillic} ${SCRIPTS.greek}`;
  for (const [format, render] of [
    ['html', renderHtml],
    ['txt', renderTxt],
    ['csv', renderCsv],
    ['xml', renderXml],
  ] as const) {
    const output = (await readAll(render(record))).toString('utf8');
    assert.ok(output.includes(name), `${format}: the finding name`);
    for (const [script, value] of Object.entries(SCRIPTS)) assert.ok(output.includes(value), `${format}: ${script}`);
  }
});

test('a line wholly in a fallback face keeps its glyphs on pdfkit’s own text path too (the cover’s scan name)', async (t) => {
  const base = sampleReport();
  const text = pdfToText(t, await readAll(renderPdf(sampleReport({ scan: { ...base.scan, name: '🐧🦀' } }))), '-layout', '-l', '1');
  if (text === null) return;
  assert.match(text, /^\s*🐧🦀$/m, 'the scan name under the title');
  assert.ok(!text.includes('\ufffd'));
});
