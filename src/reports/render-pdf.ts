/**
 * The PDF report of a run: the document a security lead hands to management. Cover, executive
 * summary, attack narrative (when there is one), hosts and services, every present finding by
 * threat, and the findings fixed since the previous run.
 *
 * The drawing lives in `pdf/`: `document.ts` (the stream, backpressure, page footers), `pen.ts`
 * (drawing state and primitives), `text.ts` (text made ready for the page), `fonts.ts` and
 * `glyphs.ts` (the embedded fonts, and which draws each character), one module per section, and
 * `finding-full.ts` / `finding-dense.ts` for the findings themselves (a large run's are dense).
 * `fast-fonts.ts`, `fast-text.ts`, `fast-shapes.ts`, `fast-content.ts` and `wrap.ts` make
 * pdfkit's text measuring, line breaking and writing cheap enough for 10,000 findings in a couple
 * of seconds; each explains its reasons and risks.
 */
import type { Readable } from 'node:stream';
import { drawCover } from './pdf/cover.js';
import { openDocument, PdfStream } from './pdf/document.js';
import { startSection } from './pdf/elements.js';
import { drawFindings } from './pdf/findings.js';
import { drawNarrative } from './pdf/narrative.js';
import type { Pen } from './pdf/pen.js';
import { drawFixed, drawMissingCharacters, drawServices } from './pdf/sections.js';
import { drawSummary } from './pdf/summary.js';
import type { ReportRecord } from './report.js';

/**
 * The PDF report of a run, as a stream of bytes. Drawing starts after this returns and is paced
 * by the reader; an error while reading the record's findings destroys the stream with that error,
 * so a download is cut rather than ending in a document that looks complete, and a reader that
 * goes away stops the reads.
 */
export function renderPdf(record: ReportRecord): Readable {
  const out = new PdfStream();
  const pen = openDocument(record, out);
  setImmediate(() => {
    drawDocument(pen, out).catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
  });
  return out;
}

async function drawDocument(pen: Pen, out: PdfStream): Promise<void> {
  const { record } = pen;
  pen.doc.addPage();
  drawCover(pen);
  startSection(pen, 'Executive summary');
  drawSummary(pen);
  if (record.narrative) {
    startSection(pen, 'Attack narrative');
    drawNarrative(pen, record.narrative);
  }
  startSection(pen, 'Hosts and services');
  drawServices(pen, record.services);
  if (!(await drawFindings(pen, out))) return;
  startSection(pen, 'Fixed since the previous run');
  if (!(await drawFixed(pen, out))) return;
  drawMissingCharacters(pen);
  pen.doc.end();
}
