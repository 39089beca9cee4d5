/**
 * Raw http requests (`raw:`), after marker expansion, as nuclei reads them
 * (`pkg/protocols/http/raw/raw.go`, `request_annotations.go`): annotations, the request line, the
 * headers (any line up to the first blank one), the body; the path merged with the input's path.
 *
 * Text here is a byte string (one char per byte, latin1) so that byte results of expressions
 * (`{{hex_decode(...)}}`) reach the body unchanged.
 */

/** A raw request ready to send (not `unsafe`). */
export interface ParsedRawRequest {
  method: string;
  /** The request-target: the input's path merged with the template's, query included. */
  target: string;
  /** Header lines in order, a later line of the same name replacing an earlier one (Go's map). */
  headers: Array<[string, string]>;
  /** The body as a byte string. */
  body: string;
  /** `@Host:` annotation: where to connect instead (`host`, `host:port`, or with a scheme). */
  hostAnnotation?: string;
  /** `@timeout:` annotation, in milliseconds. */
  timeoutMs?: number;
  /** `@once`: sent for the first payload combination only. */
  once: boolean;
}

/** A raw request nuclei would refuse too (no request line). */
export class RawRequestError extends Error {
  override readonly name = 'RawRequestError';
}

const HOST_ANNOTATION = /^@Host:\s*(.+?)\s*$/m;
const TIMEOUT_ANNOTATION = /^@timeout:\s*(.+?)\s*$/m;
const ONCE_ANNOTATION = /^@once\s*$/m;
const DURATION_PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g;
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration for the forms templates use (`10s`, `1m30s`, `500ms`); undefined if not one. */
export function parseGoDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const match of trimmed.matchAll(DURATION_PART)) total += Number(match[1]) * UNIT_MS[match[2]!]!;
  return total;
}

/** The annotations of a raw request (they may sit before the request line). */
export function readAnnotations(raw: string): Pick<ParsedRawRequest, 'hostAnnotation' | 'timeoutMs' | 'once'> {
  const host = HOST_ANNOTATION.exec(raw)?.[1];
  const timeout = TIMEOUT_ANNOTATION.exec(raw)?.[1];
  const timeoutMs = timeout === undefined ? undefined : parseGoDuration(timeout);
  return {
    ...(host === undefined ? {} : { hostAnnotation: host }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    once: ONCE_ANNOTATION.test(raw),
  };
}

/**
 * Merges the template's path into the input's (urlutil MergePath as nuclei uses it): the input's
 * path first, then the template's; a template query is kept as written.
 */
export function mergePath(inputPath: string, templatePath: string): string {
  const base = inputPath === '/' ? '' : inputPath.replace(/\/$/, '');
  if (templatePath === '') return base === '' ? '/' : base;
  if (templatePath.startsWith('?')) return `${base === '' ? '/' : base}${templatePath}`;
  return `${base}${templatePath.startsWith('/') ? '' : '/'}${templatePath}`;
}

/** The path and query of an absolute URL written in a request line, as written (no normalisation). */
function relativeOf(absolute: string): string {
  const rest = absolute.replace(/^https?:\/\/[^/?#]*/i, '');
  return rest === '' ? '/' : rest;
}

/**
 * Parses an expanded raw request against the input's path (`inputPath`, '' or '/x'). Throws
 * RawRequestError for a request without a usable request line.
 */
export function parseRawRequest(raw: string, inputPath: string, disablePathAutomerge: boolean): ParsedRawRequest {
  const lines = raw.split('\n');
  let index = 0;
  while (index < lines.length && lines[index]!.startsWith('@')) index++;
  const requestLine = lines[index] ?? '';
  let fields = requestLine.trim().split(/\s+/).filter((f) => f !== '');
  if (fields.length === 2 && fields[1]!.includes('HTTP')) fields = [fields[0]!, '', fields[1]!];
  if (fields.length < 3) throw new RawRequestError(`malformed request line: "${requestLine.trim().slice(0, 80)}"`);
  const method = fields[0]!;
  let path = fields[1]!;
  if (/^https?:\/\//i.test(path)) path = relativeOf(path);
  if (path === '/') path = '';

  const headers: Array<[string, string]> = [];
  let multipart = false;
  for (index++; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (line === '') {
      index++;
      break;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    if (name.includes('Content-Type') && value.includes('multipart/')) multipart = true;
    const existing = headers.findIndex(([n]) => n === name);
    if (existing >= 0) headers.splice(existing, 1);
    headers.push([name, value]);
  }
  let body = lines.slice(index).join('\n');
  if (!multipart && body.endsWith('\r\n')) body = body.slice(0, -2);

  return {
    method,
    target: mergePath(disablePathAutomerge ? '' : inputPath, path),
    headers,
    body,
    ...readAnnotations(raw),
  };
}
