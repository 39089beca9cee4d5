/**
 * The PDF document and the stream it is read from.
 *
 * Streaming: the document is made with `bufferPages: false`, so pdfkit writes each page out when
 * the next one starts, and the sections draw findings one at a time as the record yields them.
 * pdfkit ignores backpressure, so the drawing code awaits `drained()` after each finding: memory
 * stays flat for 10,000+ findings, and a reader that goes away stops the reads. The price of
 * streaming is that the page count is unknown while drawing: footers say "Page N", and the PDF
 * outline (bookmarks) stands in for a table of contents.
 */
import { Readable } from 'node:stream';
import PDFDocument from 'pdfkit';
import type { ReportRecord } from '../report.js';
import { installFonts } from './fast-fonts.js';
import { createPen, fit, hairline, ink, setStyle, textAt, widthOf, type Pen } from './pen.js';
import { pdfLine } from './text.js';
import { MARGIN, MUTED, PAGE_HEIGHT, RIGHT, WIDTH } from './theme.js';

/** Bytes gathered before they are handed to the reader. */
const CHUNK = 64 * 1024;

/**
 * The stream handed out: pdfkit's bytes, paced by the reader. pdfkit writes each line of each PDF
 * object as a chunk of its own, tens of bytes long; they are gathered into chunks of about 64 KiB,
 * which spares the reader (a socket, a file) hundreds of thousands of tiny writes.
 */
export class PdfStream extends Readable {
  private wake: (() => void) | null = null;
  private gathered: Uint8Array[] = [];
  /** Lines of text gathered after the last chunk of bytes, made bytes together. */
  private text = '';
  private gatheredBytes = 0;
  /** Bytes handed to the reader since the drawing last gave way to the event loop. */
  private sinceTurn = 0;

  constructor() {
    super({ highWaterMark: CHUNK });
  }

  override _read(): void {
    this.release();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.gathered = [];
    this.text = '';
    this.release();
    callback(error);
  }

  /** Takes a chunk of pdfkit's output: bytes, or text of one byte a character (a binary string). */
  gather(chunk: Uint8Array | string): void {
    if (typeof chunk === 'string') {
      this.text += chunk;
    } else {
      this.settleText();
      this.gathered.push(chunk);
    }
    this.gatheredBytes += chunk.length;
    if (this.gatheredBytes >= CHUNK) this.handOver();
  }

  private settleText(): void {
    if (this.text.length === 0) return;
    this.gathered.push(Buffer.from(this.text, 'latin1'));
    this.text = '';
  }

  /** Hands over what is left and ends the stream. */
  finish(): void {
    this.handOver();
    this.push(null);
  }

  /**
   * Resolves once the reader has room (or has gone away), so written pages do not pile up. Gives
   * way to the event loop (the reader, the store's reads) only once bytes were handed over since the
   * last time: every 64 KiB, a few pages, rather than after every finding.
   */
  async drained(): Promise<void> {
    if (this.sinceTurn === 0 && !this.destroyed) return;
    this.sinceTurn = 0;
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (!this.destroyed && this.readableLength >= this.readableHighWaterMark) {
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private handOver(): void {
    if (this.gatheredBytes === 0 || this.destroyed) return;
    this.settleText();
    const chunk = Buffer.concat(this.gathered, this.gatheredBytes);
    this.gathered = [];
    this.gatheredBytes = 0;
    this.sinceTurn += chunk.length;
    this.push(chunk);
  }

  private release(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

/**
 * A document for the record whose bytes go to `out`, with the pen to draw it. No page is started:
 * the first `addPage` gets the footer like every other page.
 */
export function openDocument(record: ReportRecord, out: PdfStream): Pen {
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: MARGIN, bottom: MARGIN, left: MARGIN, right: MARGIN },
    bufferPages: false,
    autoFirstPage: false,
    displayTitle: true,
    lang: 'en',
    info: { Title: pdfLine(`Rampart scan report: ${record.scan.name}`), Author: 'Rampart', Creator: 'Rampart', CreationDate: record.generatedAt },
  });
  installFonts(doc);
  writeDirectly(doc, out);
  doc.on('data', (chunk: Buffer) => out.gather(chunk));
  doc.on('end', () => out.finish());
  const pen = createPen(doc, record);
  const footer = footerText(record);
  doc.on('pageAdded', () => decoratePage(pen, footer));
  return pen;
}

/** The parts of a pdfkit 0.20 document its output goes through. */
interface OutputInternals {
  _write(data: Uint8Array | string): void;
  _offset: number;
}

/**
 * Hands pdfkit's output to `out` without its own stream. pdfkit pushes each line of each object
 * through the Readable it is (a 10,000-finding report's megabytes in some 100,000 pushes), which
 * a profile put at a tenth of the time left. pdfkit 0.20 writes all of it through `_write`, which
 * also counts the bytes for the cross-reference table; that is kept exactly, with the lines
 * gathered as text. A document of another shape keeps its stream (the 'data' listener).
 */
function writeDirectly(doc: PDFKit.PDFDocument, out: PdfStream): void {
  const internals = doc as unknown as Partial<OutputInternals>;
  if (typeof internals._write !== 'function' || typeof internals._offset !== 'number') return;
  const direct = internals as OutputInternals;
  // What pdfkit wrote on construction (the file's header) waits in its stream: it goes first.
  for (let chunk = doc.read() as Buffer | null; chunk !== null; chunk = doc.read() as Buffer | null) out.gather(chunk);
  direct._write = (data) => {
    // As pdfkit: a string is a line, one byte a character.
    const chunk = typeof data === 'string' ? `${data}\n` : data;
    direct._offset += chunk.length;
    out.gather(chunk);
  };
}

/** The left part of every footer, cut to the room the page number leaves (cached per width). */
function footerText(record: ReportRecord): (pen: Pen, room: number) => string {
  const full = `Rampart · ${pdfLine(record.scan.name)} · run ${record.run.index}`;
  const byRoom = new Map<number, string>();
  return (pen, room) => {
    let text = byRoom.get(room);
    if (text === undefined) byRoom.set(room, (text = fit(pen, full, room)));
    return text;
  };
}

/**
 * The footer of every page. It sits in the bottom margin, where pdfkit would start a new page for
 * any text, so the margin is lifted while drawing; the text style is put back because pdfkit calls
 * this in the middle of flowing text onto the new page.
 */
function decoratePage(pen: Pen, footer: (pen: Pen, room: number) => string): void {
  const { doc } = pen;
  const resume = { ...pen.style };
  pen.pageNumber++;
  // A new page's content starts from the default graphics state: nothing set before applies.
  pen.color = null;
  const bottom = doc.page.margins.bottom;
  doc.page.margins.bottom = 0;
  const y = PAGE_HEIGHT - 34;
  hairline(pen, y - 7);
  setStyle(pen, 'Sans', 7.5, MUTED);
  const page = `Page ${pen.pageNumber}`;
  const pageWidth = widthOf(pen, page);
  textAt(pen, page, RIGHT - pageWidth, y);
  textAt(pen, footer(pen, WIDTH - pageWidth - 20), MARGIN, y);
  doc.page.margins.bottom = bottom;
  doc.x = MARGIN;
  doc.y = doc.page.margins.top;
  // pdfkit may be in the middle of flowing text, which goes on in the style it had.
  setStyle(pen, resume.font, resume.size, resume.color);
  ink(pen);
}
