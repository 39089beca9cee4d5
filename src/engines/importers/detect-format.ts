/**
 * Which tool wrote a file, from its first bytes (never from the content type a client claims):
 * the root element of XML, the keys of JSON, the header row of CSV.
 */
import type { ImportSource } from './importer.js';

/** The formats the importers read. */
export type ImportFormat = 'nmap-xml' | 'openvas-xml' | 'openvas-csv' | 'zap-xml' | 'zap-json' | 'nuclei-json';

/** The formats accepted, as a sentence for error messages. */
export const ACCEPTED_FORMATS =
  'nmap XML (-oX), OpenVAS/Greenbone report XML or CSV export, ZAP XML or JSON report, nuclei JSON Lines or JSON array';

/** Bytes read ahead to decide (a nuclei result with a large request may push the keys far in). */
export const DETECT_BYTES = 64 * 1024;

/** The file's format, 'empty' for nothing but white space, or null when no importer reads it. */
export function detectFormat(head: string): ImportFormat | 'empty' | null {
  const text = head.replace(/^\uFEFF/, '');
  const start = text.trimStart();
  if (start === '') return 'empty';
  if (start.startsWith('<')) {
    // Skip the XML declaration, processing instructions, comments and the DOCTYPE.
    const root = /^(?:\s*(?:<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>))*\s*<([A-Za-z_][\w.:-]*)/.exec(start)?.[1];
    if (root === 'nmaprun') return 'nmap-xml';
    if (root === 'OWASPZAPReport') return 'zap-xml';
    if (root === 'report' || root === 'get_reports_response') return 'openvas-xml';
    return null;
  }
  if (start.startsWith('{') || start.startsWith('[')) {
    if (/^\[\s*\]\s*$/.test(start)) return 'nuclei-json';
    if (/"@programName"\s*:|"@version"\s*:\s*"[^"]*"\s*,[\s\S]*"site"\s*:/.test(start.slice(0, 4096)) || /^\{\s*"@(programName|version|generated)"/.test(start)) return 'zap-json';
    if (/"(template-id|templateID)"\s*:/.test(start)) return 'nuclei-json';
    return null;
  }
  const firstLine = start.split(/\r?\n/, 1)[0] ?? '';
  if (/^"?IP"?,"?Hostname"?,"?Port"?,/.test(firstLine)) return 'openvas-csv';
  return null;
}

/**
 * Reads the first bytes of a stream to detect its format, and returns a stream that replays them
 * before the rest (the file is read once, never buffered whole).
 */
export async function peekFormat(source: ImportSource): Promise<{ format: ImportFormat | 'empty' | null; stream: ImportSource }> {
  const iterator = source[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size < DETECT_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    head.push(chunk);
    size += chunk.length;
  }
  const bytes = Buffer.concat(head);
  const format = detectFormat(new TextDecoder('utf-8').decode(bytes.subarray(0, DETECT_BYTES)));
  const stream: ImportSource = {
    async *[Symbol.asyncIterator]() {
      if (bytes.length > 0) yield bytes;
      if (done) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    },
  };
  return { format, stream };
}
