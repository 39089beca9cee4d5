/**
 * The page content the fast drawing paths write (`fast-text.ts`, `fast-shapes.ts`): gathered as
 * one string a page, handed to pdfkit as one chunk, and compressed here.
 *
 * Why: pdfkit turns each content operator into bytes on its own (a string copied character by
 * character into a byte array) and keeps each as a chunk until the page ends, and a page of the
 * dense layout has a thousand operators. Gathered, a page's operators become bytes in one native
 * call (writing them into a byte buffer from JavaScript measured slower). pdfkit then compresses
 * each page at zlib's default level (6); a lower one is used here (see `LEVEL`).
 *
 * Risk: this wraps `write` and `end` of each page's content stream (a PDFReference of pdfkit
 * 0.20), so that pdfkit's own content keeps its place: what is gathered is written before any
 * write of pdfkit's and before the stream ends. It is only done when the stream has the shape
 * expected; otherwise `appendContent` returns false and the callers draw with pdfkit.
 */
import zlib from 'node:zlib';

/**
 * zlib's level for page content. Measured on a 10,000-finding report (26 MB of operators on 2,229
 * pages): level 6 took about 240 ms for a 5.96 MB file, level 3 about 175 ms for 6.18 MB (4% more),
 * and level 1 was no faster.
 */
const LEVEL = 3;

/** The parts of a pdfkit 0.20 PDFReference (a page's content stream) read or wrapped. */
interface ContentStream {
  write(chunk: Uint8Array | string): unknown;
  end(chunk?: Uint8Array | string): unknown;
  compress: boolean;
  buffer: Uint8Array[];
}

/** What is gathered for a document: the page it is for, that page's content stream as pdfkit wrote it, and the text. */
interface Gathered {
  page: object | null;
  write: (chunk: Uint8Array) => unknown;
  text: string;
}

const gatheredByDoc = new WeakMap<object, Gathered>();

function streamOf(page: { content?: Partial<ContentStream> } | undefined): ContentStream | null {
  const content = page?.content;
  if (!content || typeof content.write !== 'function' || typeof content.end !== 'function') return null;
  return typeof content.compress === 'boolean' && Array.isArray(content.buffer) ? (content as ContentStream) : null;
}

function flush(gathered: Gathered): void {
  if (gathered.text.length === 0) return;
  const text = gathered.text;
  gathered.text = '';
  gathered.write(Buffer.from(text, 'latin1'));
}

/** Compresses the stream's content in place, as pdfkit would but at `LEVEL`; pdfkit has set its filter already. */
function compress(stream: ContentStream): void {
  if (!stream.compress || stream.buffer.length === 0) return;
  stream.buffer = [zlib.deflateSync(Buffer.concat(stream.buffer), { level: LEVEL })];
  stream.compress = false;
}

/** Makes `page`'s content stream take the gathered text before anything else written to it. */
function adopt(gathered: Gathered, page: object, stream: ContentStream): void {
  flush(gathered);
  const write = stream.write.bind(stream);
  const end = stream.end.bind(stream);
  gathered.page = page;
  gathered.write = write;
  stream.write = (chunk) => {
    flush(gathered);
    return write(chunk);
  };
  stream.end = (chunk) => {
    if (chunk !== undefined) stream.write(chunk);
    flush(gathered);
    gathered.page = null;
    compress(stream);
    return end();
  };
}

/**
 * Appends content operators, each ending with a line break and all of one-byte characters, to the
 * current page of `doc`. Returns false, having written nothing, when the page is not of the shape
 * expected.
 */
export function appendContent(doc: PDFKit.PDFDocument, operators: string): boolean {
  const page = (doc as unknown as { page?: object }).page;
  let gathered = gatheredByDoc.get(doc);
  if (!gathered || gathered.page !== page || !page) {
    const stream = streamOf(page);
    if (!page || !stream) return false;
    if (!gathered) gatheredByDoc.set(doc, (gathered = { page: null, write: () => undefined, text: '' }));
    adopt(gathered, page, stream);
  }
  gathered.text += operators;
  return true;
}

/**
 * pdfkit's number format in content streams, `String(Math.round(n * 1e6) / 1e6)`: at most six
 * decimals, no trailing zeros. Made from integers, which is a few times faster than from a
 * fraction, and a page has thousands of coordinates.
 */
export function num(n: number): string {
  const millionths = Math.round(n * 1e6);
  if (millionths % 1e6 === 0) return String(millionths / 1e6);
  const magnitude = Math.abs(millionths);
  const whole = Math.floor(magnitude / 1e6);
  const fraction = String(magnitude - whole * 1e6 + 1e6); // '1' and six digits, leading zeros kept
  let end = 7;
  while (fraction.charCodeAt(end - 1) === 0x30) end--;
  return `${millionths < 0 ? '-' : ''}${whole}.${fraction.slice(1, end)}`;
}

const colorOperators = { rg: new Map<string, string>(), RG: new Map<string, string>() };

/**
 * '#1f2933' as the operator setting it as the fill (`rg`) or stroke (`RG`) color, or null for
 * anything but #rrggbb (pdfkit then draws). pdfkit writes the same color as `/DeviceRGB cs`
 * then `scn`, which is the same thing in more bytes.
 */
export function colorOperator(color: string, operator: 'rg' | 'RG'): string | null {
  const known = colorOperators[operator];
  let written = known.get(color);
  if (written === undefined) {
    if (!/^#[0-9a-f]{6}$/i.test(color)) return null;
    const value = parseInt(color.slice(1), 16);
    written = `${[value >> 16, (value >> 8) & 0xff, value & 0xff].map((part) => num(part / 255)).join(' ')} ${operator}\n`;
    known.set(color, written);
  }
  return written;
}
