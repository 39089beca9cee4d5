/**
 * A check's draft (contract.ts `WebFindingDraft`) as a `Finding`: the location (the target's
 * host name, the address it resolved to, port, http/https, url, method, parameter), the rule's
 * text and rating (severity.ts), and the evidence: the check's summary, then each proving
 * exchange as a request excerpt and a response excerpt (status line, headers, the body around
 * the text the check highlighted), masked and capped by src/shared/evidence.ts. One weakness on
 * one input is one finding: the sink drops a draft whose rule id, url, method and parameter it
 * has seen already.
 */
import { capEvidence, EVIDENCE_MAX_BYTES } from '../../shared/evidence.js';
import { QOD, type Finding } from '../engine.js';
import type { WebFindingDraft, WebResponse, WebRule } from './contract.js';
import { ruleOf, severityBasis } from './severity.js';

/** Characters of a request body kept in the evidence. */
const REQUEST_BODY_CHARS = 1_500;
/** Characters of the response body kept either side of the highlight (or from the start without one). */
const RESPONSE_WINDOW_CHARS = 1_200;
const HEADER_VALUE_CHARS = 400;
/** Request headers the client adds to everything: noise in evidence. */
const ROUTINE_REQUEST_HEADERS = new Set(['user-agent', 'accept']);

/** Where the findings of one target are: what the target named and what it resolved to. */
export interface FindingLocation {
  /** The target's host name, as the scan named it. */
  hostname: string;
  /** The address the scan reached. */
  hostIp: string;
}

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The request as sent: request line, headers, body (capped). */
export function requestExcerpt(exchange: WebResponse): string {
  const url = new URL(exchange.request.url);
  const lines = [`${exchange.request.method} ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`];
  for (const [name, value] of Object.entries(exchange.request.headers)) {
    if (!ROUTINE_REQUEST_HEADERS.has(name)) lines.push(`${name}: ${clip(value, HEADER_VALUE_CHARS)}`);
  }
  const body = exchange.request.body;
  return `${lines.join('\n')}${body ? `\n\n${clip(body, REQUEST_BODY_CHARS)}` : ''}`;
}

/** The response: status line, headers, and the body around `highlight` (its start when absent or not found). */
export function responseExcerpt(exchange: WebResponse, highlight?: string): string {
  const lines = [`HTTP/1.1 ${exchange.status}`];
  for (const [name, value] of Object.entries(exchange.headers)) {
    for (const one of value.split('\n')) lines.push(`${name}: ${clip(one, HEADER_VALUE_CHARS)}`);
  }
  const body = exchange.body;
  const at = highlight ? body.indexOf(highlight) : -1;
  let excerpt: string;
  if (at < 0) excerpt = clip(body, RESPONSE_WINDOW_CHARS * 2);
  else {
    const from = Math.max(0, at - RESPONSE_WINDOW_CHARS);
    const to = Math.min(body.length, at + highlight!.length + RESPONSE_WINDOW_CHARS);
    excerpt = `${from > 0 ? '…' : ''}${body.slice(from, to)}${to < body.length ? '…' : ''}`;
  }
  return `${lines.join('\n')}${excerpt ? `\n\n${excerpt}` : ''}`;
}

/** The evidence of a draft: summary, then each exchange's request and response. */
export function evidenceOf(draft: WebFindingDraft): string {
  const parts = [draft.summary];
  if (draft.location && draft.parameter) parts.push(`Parameter: ${draft.parameter} (${draft.location})`);
  draft.proof.forEach((exchange, i) => {
    const title = draft.proof.length > 1 ? ` ${i + 1} of ${draft.proof.length}` : '';
    parts.push(`--- Request${title} ---\n${requestExcerpt(exchange)}`, `--- Response${title} ---\n${responseExcerpt(exchange, draft.highlight)}`);
  });
  return capEvidence(parts.join('\n\n'), EVIDENCE_MAX_BYTES);
}

/** The finding of a draft at `location`. `rules` finds its rule (default: ALL_RULES; an unknown id throws: a bug). */
export function findingOfDraft(draft: WebFindingDraft, location: FindingLocation, rules: (ruleId: string) => WebRule = ruleOf): Finding {
  const rule = rules(draft.ruleId);
  const url = new URL(draft.url);
  url.hash = '';
  const https = url.protocol === 'https:';
  return {
    hostname: location.hostname,
    hostIp: location.hostIp,
    port: url.port ? Number(url.port) : https ? 443 : 80,
    protocol: 'tcp',
    service: https ? 'https' : 'http',
    url: url.href,
    method: draft.method.toUpperCase(),
    parameter: draft.parameter,
    ruleId: rule.ruleId,
    name: draft.name ?? rule.name,
    description: rule.threat === 'Informational' ? rule.description : `${rule.description}\n\n${severityBasis(rule)}`,
    solution: rule.solution,
    threat: rule.threat,
    cvssBase: rule.cvssBase,
    cvssVector: rule.cvssVector,
    cve: [],
    cwe: rule.cwe,
    evidence: evidenceOf(draft),
    references: [...rule.references],
    qod: draft.qod ?? QOD.confirmed,
  };
}

/** The identity of a weakness: rule, url (without fragment), method and parameter. */
export function draftKey(draft: WebFindingDraft): string {
  return [draft.ruleId, draft.url.replace(/#.*$/, ''), draft.method.toUpperCase(), draft.parameter ?? ''].join('\u0000');
}

/** A de-duplicating sink: `add` returns the finding of a draft not seen before, else undefined. */
export function createFindingSink(location: FindingLocation, rules: (ruleId: string) => WebRule = ruleOf): { add(draft: WebFindingDraft): Finding | undefined; readonly count: number } {
  const seen = new Set<string>();
  return {
    add(draft) {
      const key = draftKey(draft);
      if (seen.has(key)) return undefined;
      const finding = findingOfDraft(draft, location, rules);
      seen.add(key);
      return finding;
    },
    get count() {
      return seen.size;
    },
  };
}
