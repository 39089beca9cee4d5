/**
 * Building `ServiceInfo` values, and the banner helpers every protocol file shares.
 */
import type { ServiceInfo } from '../checks/check.js';
import { cpeFor } from './cpe.js';

/** What a protocol file reports; `detect.ts` adds the banner and TLS flag. */
export interface Identified {
  name: string;
  product?: string | null;
  version?: string | null;
  details?: Record<string, string>;
}

/** An HTTP answer as `http.ts` parses it; here so that protocol files reading one (elasticsearch.ts) need not import http.ts, which calls them. */
export interface HttpResponse {
  status: number;
  /** Lower-case names; repeated headers joined with `, `. */
  headers: Map<string, string>;
  body: Buffer;
}

/** A complete `ServiceInfo`, with the CPE looked up from product and version. */
export function toServiceInfo(found: Identified, banner: string | null, tls: boolean): ServiceInfo {
  const product = found.product ?? null;
  const version = found.version ?? null;
  return { name: found.name, product, version, cpe: cpeFor(product, version), tls, banner, details: found.details ?? {} };
}

/**
 * The bytes behind a banner escaped by `escapeBanner` (`\r`, `\n`, `\t`, `\\`, `\xHH`), so that a
 * binary greeting (MySQL) can be parsed again. Text that was never escaped comes back unchanged
 * except for those sequences.
 */
export function unescapeBanner(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (char !== 0x5c || i + 1 >= text.length) {
      bytes.push(char & 0xff);
      continue;
    }
    const next = text[i + 1];
    const hex = next === 'x' ? /^[0-9a-fA-F]{2}$/.exec(text.slice(i + 2, i + 4)) : null;
    if (next === 'r') bytes.push(0x0d);
    else if (next === 'n') bytes.push(0x0a);
    else if (next === 't') bytes.push(0x09);
    else if (next === '\\') bytes.push(0x5c);
    else if (hex) {
      bytes.push(parseInt(hex[0], 16));
      i += 2;
    } else {
      bytes.push(char);
      continue;
    }
    i += 1;
  }
  return Buffer.from(bytes);
}

/** The lines of a text answer, without line endings; a last unterminated line is kept. */
export function linesOf(bytes: Buffer): string[] {
  return bytes
    .toString('latin1')
    .split(/\r?\n/)
    .filter((line, i, all) => line !== '' || i < all.length - 1);
}
