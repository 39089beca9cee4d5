/**
 * From an http response to what the operators see and what the run reports: the response event
 * (nuclei `responseToDSLMap`, Go's header dump: canonical names, sorted), and the matches of one
 * event as nuclei's `MakeDefaultResultEvent` writes them.
 */
import { buildHttpEvent, type HttpResponseModel, type MatchEvent, type OperatorsResult } from '../match/index.js';
import type { TemplateMatch } from './contract.js';
import type { HttpHop } from './http-hop.js';
import { canonicalHeaderName } from './http-send.js';

/** Bytes kept of a request or response excerpt in a match. */
export const EXCERPT_BYTES = 2048;

/** Header lines as Go dumps them: canonical names in sorted order, one line per value. */
function headerLines(hop: HttpHop): Array<[string, string]> {
  const lines: Array<[string, string]> = [];
  for (const name of Object.keys(hop.headers).sort()) {
    const value = hop.headers[name];
    const canonical = canonicalHeaderName(name);
    for (const v of Array.isArray(value) ? value : [value ?? '']) lines.push([canonical, String(v)]);
  }
  return lines;
}

/** The event data of one response; `input` is the service as nuclei's input (`host`), `extra` lies underneath. */
export function responseEvent(hop: HttpHop, input: string, extra: Record<string, unknown>): MatchEvent {
  const declared = Number(hop.headers['content-length']);
  const model: HttpResponseModel = {
    status: hop.status,
    statusText: hop.statusText,
    httpVersion: `HTTP/${hop.httpVersion}`,
    headers: headerLines(hop),
    body: hop.body,
    durationSeconds: hop.durationSeconds,
    ...(Number.isFinite(declared) && hop.headers['content-length'] !== undefined ? { declaredContentLength: declared } : {}),
    rawRequest: hop.requestDump,
    host: input,
    matched: hop.url,
  };
  return buildHttpEvent(model, extra);
}

function excerpt(text: string): string {
  return text.length <= EXCERPT_BYTES ? text : `${text.slice(0, EXCERPT_BYTES)}\n[... ${text.length - EXCERPT_BYTES} more bytes]`;
}

/**
 * The matches of one event (nuclei's MakeDefaultResultEvent): none when only internal values came
 * out, or when matchers exist and did not match; one per fired named matcher; else one per named
 * extractor; else one for the block.
 */
export function matchesOf(
  templateId: string,
  result: OperatorsResult,
  hasMatchers: boolean,
  hop: HttpHop,
  event: MatchEvent,
  payload: Record<string, string>,
): TemplateMatch[] {
  if (!result.report) return [];
  if (Object.keys(result.dynamicValues).length > 0 && !result.matched) return [];
  if (hasMatchers && !result.matched) return [];
  const base: TemplateMatch = {
    templateId,
    protocol: 'http',
    matchedAt: hop.url,
    extracted: result.outputExtracts,
    method: hop.method.toUpperCase(),
    ...(Object.keys(payload).length > 0 ? { payload } : {}),
    request: excerpt(hop.requestDump),
    response: excerpt(String(event.data.response ?? '')),
  };
  if (result.matcherNames.length > 0) return result.matcherNames.map((matcherName) => ({ ...base, matcherName }));
  const named = Object.entries(result.extracts);
  if (named.length > 0) return named.map(([extractorName, values]) => ({ ...base, extractorName, extracted: [...new Set(values)] }));
  return [base];
}
