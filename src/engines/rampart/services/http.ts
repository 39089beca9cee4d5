/**
 * HTTP/1.1: one `GET /` with `Host`, read the status line, headers and at most a small body.
 * The product comes from `Server`, a framework from `X-Powered-By`; Elasticsearch is told apart
 * by its root document (`elasticsearch.ts`).
 */
import net from 'node:net';
import { MAX_ANSWER_BYTES, type Session } from '../protocols/session.js';
import { cpeFor } from './cpe.js';
import { identifyElasticsearch } from './elasticsearch.js';
import type { HttpResponse, Identified } from './info.js';
import type { Endpoint } from '../checks/check.js';

export type { HttpResponse } from './info.js';

/** The request line and headers of our one request; `Host` carries a non-default port. */
export function rootRequest(endpoint: Endpoint, tls: boolean): string {
  const host = net.isIPv6(endpoint.hostname) ? `[${endpoint.hostname}]` : endpoint.hostname;
  const port = endpoint.port === (tls ? 443 : 80) ? '' : `:${endpoint.port}`;
  return `GET / HTTP/1.1\r\nHost: ${host}${port}\r\nUser-Agent: Rampart\r\nAccept: */*\r\nConnection: close\r\n\r\n`;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** The response is complete: headers, then the body its length or chunking announces. */
export function responseComplete(received: Buffer): boolean {
  const headEnd = received.indexOf(HEAD_END);
  if (headEnd < 0) return false;
  const head = received.toString('latin1', 0, headEnd);
  const body = received.subarray(headEnd + 4);
  const length = /^content-length:\s*(\d+)/im.exec(head)?.[1];
  if (length !== undefined) return body.length >= Number(length);
  if (/^transfer-encoding:.*chunked/im.test(head)) return body.includes('\r\n0\r\n\r\n') || body.subarray(0, 5).equals(Buffer.from('0\r\n\r\n'));
  // Neither: the body runs to the close (or the size cap); a bodiless status ends at the head.
  return /^HTTP\/\d\.\d (1\d\d|204|304)/.test(head) || received.length >= MAX_ANSWER_BYTES;
}

/** Parses a response; null when the bytes do not start with an HTTP status line. */
export function parseHttpResponse(bytes: Buffer): HttpResponse | null {
  const headEnd = bytes.indexOf(HEAD_END);
  const head = bytes.toString('latin1', 0, headEnd < 0 ? bytes.length : headEnd).split('\r\n');
  const status = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(head[0] ?? '');
  if (!status) return null;
  const headers = new Map<string, string>();
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
  }
  let body = headEnd < 0 ? Buffer.alloc(0) : bytes.subarray(headEnd + 4);
  if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) body = dechunk(body);
  return { status: Number(status[1]), headers, body };
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; ) {
    const lineEnd = body.indexOf('\r\n', at);
    const size = parseInt(body.toString('latin1', at, lineEnd), 16);
    if (lineEnd < 0 || !Number.isFinite(size) || size <= 0) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** `Server` header products, most specific first. */
const SERVER_PRODUCTS: ReadonlyArray<{ pattern: RegExp; product: string }> = [
  { pattern: /^nginx(?:\/(\d[\w.]*))?/i, product: 'nginx' },
  { pattern: /^Apache(?:\/(\d[\w.]*))?(?:\s|$)/, product: 'Apache httpd' },
  { pattern: /^Microsoft-IIS(?:\/(\d[\w.]*))?/, product: 'Microsoft IIS' },
  { pattern: /^lighttpd(?:\/(\d[\w.]*))?/, product: 'lighttpd' },
  { pattern: /^openresty(?:\/(\d[\w.]*))?/, product: 'OpenResty' },
  { pattern: /^Caddy\b/, product: 'Caddy' },
  { pattern: /^([A-Za-z][\w.-]*)(?:\/(\d[\w.]*))?/, product: '' },
];

function serverProduct(server: string): Pick<Identified, 'product' | 'version'> {
  for (const { pattern, product } of SERVER_PRODUCTS) {
    const match = pattern.exec(server);
    if (!match) continue;
    // The generic rule names the product after the header's first token.
    return product === '' ? { product: match[1] ?? null, version: match[2] ?? null } : { product, version: match[1] ?? null };
  }
  return { product: null, version: null };
}

/** Names an HTTP service from its answer to `GET /`; null when the answer is not HTTP. */
export function identifyHttpResponse(bytes: Buffer): Identified | null {
  const response = parseHttpResponse(bytes);
  if (!response) return null;
  const elasticsearch = identifyElasticsearch(response);
  if (elasticsearch) return elasticsearch;

  const details: Record<string, string> = { status: String(response.status) };
  const server = response.headers.get('server');
  const poweredBy = response.headers.get('x-powered-by');
  if (server) details.server = server;
  if (poweredBy) {
    details.x_powered_by = poweredBy;
    const php = /\bPHP\/(\d[\w.]*)/.exec(poweredBy)?.[1];
    if (php) {
      details.php_version = php;
      const phpCpe = cpeFor('PHP', php);
      if (phpCpe) details.php_cpe = phpCpe;
    }
  }
  const authenticate = response.headers.get('www-authenticate');
  if (authenticate) details.www_authenticate = authenticate;
  if (response.status === 401) details.auth = 'required';
  const named = server ? serverProduct(server) : { product: null, version: null };
  return { name: 'http', ...named, details };
}

/** Sends `GET /` on an open session and names what answered, or null. */
export async function requestRoot(
  session: Session,
  endpoint: Endpoint,
  tls: boolean,
  complete: (received: Buffer) => boolean = responseComplete,
): Promise<{ answer: Buffer; found: Identified | null }> {
  session.write(rootRequest(endpoint, tls));
  const answer = await session.readUntil(complete);
  return { answer, found: identifyHttpResponse(answer) };
}
