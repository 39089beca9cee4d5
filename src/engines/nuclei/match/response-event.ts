/**
 * The event data an HTTP response is matched on, and how a `part` name resolves in it
 * (nuclei `pkg/protocols/http/operators.go`: responseToDSLMap and getMatchPart).
 */
import type { EventBytes, EventData, MatchEvent } from './types.js';

/** One HTTP response as the engine received it. */
export interface HttpResponseModel {
  /** The status code. */
  status: number;
  /** The status line's reason phrase (`OK`), for the header dump. */
  statusText?: string;
  /** The protocol of the status line, `HTTP/1.1` by default. */
  httpVersion?: string;
  /** Every header line in order; a name may repeat (Set-Cookie). */
  headers: ReadonlyArray<readonly [string, string]>;
  /** The body bytes (after content decoding). */
  body: Uint8Array;
  /** The body as text; UTF-8 of `body` when absent. */
  bodyText?: string;
  /** Seconds from sending the request to the end of the response. */
  durationSeconds: number;
  /** The Content-Length the server declared, if any. */
  declaredContentLength?: number;
  /** The request as sent, and the whole response (status line, headers, body) as text. */
  rawRequest: string;
  rawResponse?: string;
  /** The input (`host`) and the URL the request was sent to (`matched`). */
  host: string;
  matched: string;
}

/** The key a header or cookie name has in the event data: lower case, `-` as `_`. */
export function normalizeKey(name: string): string {
  return name.trim().toLowerCase().replaceAll('-', '_');
}

/** The header block as nuclei dumps it: status line and header lines, CRLF, blank line. */
export function dumpHeaders(response: HttpResponseModel): string {
  const statusLine = `${response.httpVersion ?? 'HTTP/1.1'} ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  return `${[statusLine, ...response.headers.map(([k, v]) => `${k}: ${v}`)].join('\r\n')}\r\n\r\n`;
}

/** Cookie name/value pairs from the Set-Cookie headers. */
function cookiesOf(headers: ReadonlyArray<readonly [string, string]>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [k, v] of headers) {
    if (k.toLowerCase() !== 'set-cookie') continue;
    const first = v.split(';', 1)[0] ?? '';
    const eq = first.indexOf('=');
    if (eq <= 0) continue;
    out.push([first.slice(0, eq).trim(), first.slice(eq + 1).trim()]);
  }
  return out;
}

/**
 * The event data of one HTTP response: cookies by lower-case name, then headers by normalized
 * key (repeated headers joined with a space), `status_code`, `body`, `all_headers` (= `header`),
 * `request`, `response`, `duration` (seconds), `content_length`, `host`, `matched`, plus `extra`
 * (template variables, earlier extracted values) underneath.
 */
export function buildHttpEvent(response: HttpResponseModel, extra: EventData = {}): MatchEvent {
  const data: EventData = { ...extra };
  for (const [name, value] of cookiesOf(response.headers)) data[name.toLowerCase()] = value;
  const joined = new Map<string, string[]>();
  for (const [k, v] of response.headers) {
    const key = normalizeKey(k);
    joined.set(key, [...(joined.get(key) ?? []), v]);
  }
  for (const [key, values] of joined) data[key] = values.join(' ');
  const bodyText = response.bodyText ?? Buffer.from(response.body).toString('utf8');
  const headerDump = dumpHeaders(response);
  data.host = response.host;
  data.type = 'http';
  data.matched = response.matched;
  data.request = response.rawRequest;
  data.response = response.rawResponse ?? headerDump + bodyText;
  data.status_code = response.status;
  data.body = bodyText;
  data.all_headers = headerDump;
  data.header = headerDump;
  data.duration = response.durationSeconds;
  data.content_length =
    response.declaredContentLength !== undefined && response.declaredContentLength >= 0
      ? response.declaredContentLength
      : response.body.byteLength;
  return { data, bytes: { body: response.body } };
}

/**
 * The event of an earlier step as seen by a later one: every key suffixed `_N` (`body_1`,
 * `status_code_2`, `content_type_1`), N counting requests from 1.
 */
export function indexEvent(event: MatchEvent, step: number): MatchEvent {
  const data: EventData = {};
  for (const [k, v] of Object.entries(event.data)) data[`${k}_${step}`] = v;
  const bytes: EventBytes = {};
  for (const [k, v] of Object.entries(event.bytes)) bytes[`${k}_${step}`] = v;
  return { data, bytes };
}

/** Merges events: later ones win on the same key (the current step last). */
export function mergeEvents(...events: MatchEvent[]): MatchEvent {
  const out: MatchEvent = { data: {}, bytes: {} };
  for (const e of events) {
    Object.assign(out.data, e.data);
    Object.assign(out.bytes, e.bytes);
  }
  return out;
}

/** A value of the event data as text, as Go's types.ToString prints it. */
export function toText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return `[${value.map(toText).join(' ')}]`;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A resolved part: its text, and its bytes (the body's own bytes, or the UTF-8 of the text). */
export interface ResolvedPart {
  text: string;
  bytes(): Uint8Array;
}

/**
 * Resolves a `part`: empty means `body`, `header` means `all_headers`, `all` is body then
 * headers; any other name is an event data key (header key, extracted variable, `body_1`...).
 * Undefined when the event has no such entry (e.g. `interactsh_*` offline): the matcher fails.
 */
export function resolvePart(part: string | undefined, event: MatchEvent): ResolvedPart | undefined {
  let name = part === undefined || part === '' ? 'body' : part;
  if (name === 'header') name = 'all_headers';
  if (name === 'all') {
    const body = toText(event.data.body);
    const headers = toText(event.data.all_headers);
    const bodyBytes = event.bytes.body;
    return {
      text: body + headers,
      bytes: () => Buffer.concat([bodyBytes ?? Buffer.from(body, 'utf8'), Buffer.from(headers, 'utf8')]),
    };
  }
  if (!Object.hasOwn(event.data, name)) return undefined;
  const text = toText(event.data[name]);
  const own = event.bytes[name];
  return { text, bytes: () => own ?? Buffer.from(text, 'utf8') };
}
