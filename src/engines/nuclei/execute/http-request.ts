/**
 * One http request of a block, built as nuclei's requestGenerator.Make does it
 * (`pkg/protocols/http/build_request.go`): the variables of the request (dynamic values < helper
 * variables < user vars < template variables < randstr constants < payload values), markers
 * expanded in the path or raw text, headers and body, then the check that no marker stayed
 * unresolved (such a request is not sent).
 */
import { expandMarkers, expandMarkersToBytes } from '../dsl/index.js';
import type { HttpRequest } from '../templates/template.types.js';
import type { ServiceTarget } from './contract.js';
import { mergePath, parseRawRequest, RawRequestError, readAnnotations } from './http-raw.js';
import { evaluateTemplateVariables, findUnresolved, helperVariables, inputUrl } from './http-variables.js';

/** A request ready to send. */
export interface HttpRequestSpec {
  method: string;
  /** Where to connect: `scheme://host[:port]` (a `@Host:` annotation may change it). */
  origin: string;
  /** The request-target as written (path and query; never normalised), a latin1 byte string. */
  target: string;
  /** The URL as nuclei reports it (`matched-at`): the rendered path URL, or the raw request's full URL. */
  url: string;
  /** Header lines (latin1 byte strings), the Host header included when the template sets it. */
  headers: Array<[string, string]>;
  body?: Uint8Array;
  /** `@timeout:` of a raw request, in milliseconds. */
  timeoutMs?: number;
  /** `@once`: only for the first payload combination. */
  once: boolean;
  /** `unsafe: true`: the exact bytes to write on the connection (headers and body above are not used). */
  unsafeBytes?: Uint8Array;
}

/** What the template execution carries into each request. */
export interface RequestScope {
  service: ServiceTarget;
  /** Values of internal extractors so far. */
  dynamic: Record<string, unknown>;
  userVars: Record<string, string>;
  /** The template's `variables` as written, and as first evaluated (randoms kept stable). */
  variableDefinitions: Record<string, string>;
  variables: Record<string, string>;
  constants: Record<string, string>;
}

/** A built request and its variables (matchers see them), or why it is not sent. */
export type BuildOutcome =
  | { kind: 'request'; request: HttpRequestSpec; vars: Record<string, unknown> }
  | { kind: 'unresolved'; name: string }
  | { kind: 'invalid'; reason: string };

const PORT_OVERRIDE = /^\{\{(BaseURL|RootURL)\}\}:(\d+)/;
const TRAILING_SLASH = /^\{\{[a-zA-Z]+\}\}\//;
const ABSOLUTE = /^(https?):\/\/([^/?#]*)([^#]*)/i;

/** nuclei's compile step: a raw request or body written with bare LF lines is sent with CRLF. */
function crlf(text: string): string {
  return text.includes('\r\n') ? text : text.replaceAll('\n', '\r\n');
}

function latin1(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** The variables of one request (nuclei's finalVars) and the rendered payload values. */
function requestVariables(scope: RequestScope, helpers: Record<string, string>, payloads: Record<string, string>): { vars: Record<string, unknown>; payloads: Record<string, string> } {
  const base: Record<string, unknown> = { ...scope.dynamic, ...helpers, ...scope.userVars, ...scope.constants };
  // Variables whose first evaluation left a marker (they name an extracted value or a payload) are
  // evaluated again now, nuclei evaluating them for every request; the others keep their value.
  const variables = { ...scope.variables };
  if (Object.values(variables).some((value) => value.includes('{{'))) {
    const combined: Record<string, unknown> = { ...base, ...payloads };
    for (const [name, definition] of Object.entries(scope.variableDefinitions)) {
      if (variables[name]?.includes('{{')) variables[name] = evaluateTemplateVariables({ [name]: definition }, combined, scope.userVars)[name]!;
      combined[name] = variables[name];
    }
  }
  const all: Record<string, unknown> = { ...scope.dynamic, ...helpers, ...scope.userVars, ...variables, ...scope.constants };
  const rendered: Record<string, string> = {};
  for (const [name, value] of Object.entries(payloads)) rendered[name] = expandMarkers(value, all);
  return { vars: { ...all, ...rendered }, payloads: rendered };
}

function renderHeaders(block: HttpRequest, vars: Record<string, unknown>): Array<[string, string]> {
  return Object.entries(block.headers).map(([name, value]) => [name, latin1(expandMarkers(value, vars))]);
}

function setHeaders(headers: Array<[string, string]>, extra: Array<[string, string]>): Array<[string, string]> {
  const out = [...headers];
  for (const [name, value] of extra) {
    const at = out.findIndex(([n]) => n.toLowerCase() === name.toLowerCase());
    if (at >= 0) out.splice(at, 1);
    out.push([name, value]);
  }
  return out;
}

/** Builds a path request (`{{BaseURL}}/x`). */
function buildPath(block: HttpRequest, item: string, scope: RequestScope, payloads: Record<string, string>): BuildOutcome {
  let data = item;
  let port = scope.service.port;
  const override = PORT_OVERRIDE.exec(data);
  if (override) {
    port = Number(override[2]);
    data = data.replace(`:${override[2]}`, '');
  }
  const helpers = helperVariables(inputUrl(scope.service, port), scope.service.address, TRAILING_SLASH.test(data));
  const { vars } = requestVariables(scope, helpers, payloads);
  const url = expandMarkers(data, vars).trim();
  const headers = renderHeaders(block, vars);
  const body = block.body === undefined || block.body === '' ? undefined : expandMarkersToBytes(crlf(block.body), vars);
  const method = expandMarkers(block.method, vars);
  const unresolved = findUnresolved(url, method, ...headers.map(([, v]) => v), body ? Buffer.from(body).toString('utf8') : '');
  if (unresolved !== undefined) return { kind: 'unresolved', name: unresolved };
  const parts = ABSOLUTE.exec(url);
  if (!parts || !URL.canParse(`${parts[1]}://${parts[2]}/`)) return { kind: 'invalid', reason: `"${url.slice(0, 80)}" is not an absolute http(s) URL` };
  const defaults: Array<[string, string]> = [['Accept', '*/*'], ['Accept-Language', 'en']];
  const request: HttpRequestSpec = {
    method,
    origin: `${parts[1]!.toLowerCase()}://${parts[2]}`,
    target: latin1(parts[3] === '' ? '/' : parts[3]!.startsWith('/') ? parts[3]! : `/${parts[3]}`),
    url,
    headers: setHeaders(defaults, headers),
    ...(body === undefined ? {} : { body }),
    once: false,
  };
  return { kind: 'request', request, vars };
}

/** Builds a raw request. */
function buildRaw(block: HttpRequest, item: string, scope: RequestScope, payloads: Record<string, string>): BuildOutcome {
  const input = inputUrl(scope.service);
  const helpers = helperVariables(input, scope.service.address, false);
  const { vars } = requestVariables(scope, helpers, payloads);
  const raw = Buffer.from(expandMarkersToBytes(crlf(item), vars)).toString('latin1');
  const unresolved = findUnresolved(Buffer.from(raw, 'latin1').toString('utf8'));
  if (unresolved !== undefined) return { kind: 'unresolved', name: unresolved };
  const inputPath = helpers.BaseURL!.slice(helpers.RootURL!.length);
  if (block.unsafe) return buildUnsafe(raw, input, block.disablePathAutomerge ? '' : inputPath, vars);
  let parsed;
  try {
    parsed = parseRawRequest(raw, inputPath, block.disablePathAutomerge);
  } catch (error) {
    if (error instanceof RawRequestError) return { kind: 'invalid', reason: error.message };
    throw error;
  }
  let headers = parsed.headers;
  if (!headers.some(([name]) => name.toLowerCase() === 'host')) headers = [['Host', input.host], ...headers];
  headers = setHeaders(headers, renderHeaders(block, vars));
  let origin = input.origin;
  if (parsed.hostAnnotation !== undefined) {
    origin = annotatedOrigin(parsed.hostAnnotation, input);
    if (!URL.canParse(`${origin}/`)) return { kind: 'invalid', reason: `@Host: ${parsed.hostAnnotation} gives no usable address` };
  }
  const request: HttpRequestSpec = {
    method: parsed.method,
    origin,
    target: parsed.target,
    url: `${origin}${Buffer.from(parsed.target, 'latin1').toString('utf8')}`,
    headers,
    ...(parsed.body === '' ? {} : { body: new Uint8Array(Buffer.from(parsed.body, 'latin1')) }),
    ...(parsed.timeoutMs === undefined ? {} : { timeoutMs: parsed.timeoutMs }),
    once: parsed.once,
  };
  return { kind: 'request', request, vars };
}

/**
 * An unsafe raw request (nuclei's rawhttp path): the bytes as rendered, annotation lines dropped, the
 * request path moved below the service's base path; nothing else is touched (no Host, no length).
 */
function buildUnsafe(raw: string, input: URL, inputPath: string, vars: Record<string, unknown>): BuildOutcome {
  const annotations = readAnnotations(raw);
  let text = raw.replace(/^(?:@[^\n]*\n)+/, '');
  const fields = (text.split('\n', 1)[0] ?? '').trim().split(/\s+/);
  const method = fields[0] ?? '';
  let path = fields.length > 2 ? fields[1]! : '';
  if (method === '') return { kind: 'invalid', reason: 'an unsafe request without a request line' };
  if (inputPath !== '' && path.startsWith('/')) {
    const merged = mergePath(inputPath, path === '/' ? '' : path);
    text = text.replace(path, () => merged);
    path = merged;
  }
  let origin = input.origin;
  if (annotations.hostAnnotation !== undefined) {
    origin = annotatedOrigin(annotations.hostAnnotation, input);
    if (!URL.canParse(`${origin}/`)) return { kind: 'invalid', reason: `@Host: ${annotations.hostAnnotation} gives no usable address` };
  }
  const request: HttpRequestSpec = {
    method,
    origin,
    target: path,
    url: `${origin}${path.startsWith('/') ? Buffer.from(path, 'latin1').toString('utf8') : ''}`,
    headers: [],
    ...(annotations.timeoutMs === undefined ? {} : { timeoutMs: annotations.timeoutMs }),
    once: annotations.once,
    unsafeBytes: new Uint8Array(Buffer.from(text, 'latin1')),
  };
  return { kind: 'request', request, vars };
}

/** `@Host: value`: another host (and port, and scheme when written) to connect to. */
function annotatedOrigin(value: string, input: URL): string {
  let scheme = input.protocol.slice(0, -1);
  const schemed = /^(https?):\/\//i.exec(value);
  if (schemed) scheme = schemed[1]!.toLowerCase();
  const host = value.replace(/^https?:\/\//i, '').replace(/\/.*$/, '');
  const hasPort = /^\[.*\]:\d+$|^[^:\]]+:\d+$/.test(host);
  return `${scheme}://${hasPort || input.port === '' ? host : `${host}:${input.port}`}`;
}

/** Builds the request of one path or raw entry of a block with the given payload values. */
export function buildHttpRequest(block: HttpRequest, item: string, scope: RequestScope, payloads: Record<string, string>): BuildOutcome {
  return block.path.length > 0 ? buildPath(block, item, scope, payloads) : buildRaw(block, item, scope, payloads);
}
