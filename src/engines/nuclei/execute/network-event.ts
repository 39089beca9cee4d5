/**
 * The event data of the tcp and dns protocols, as nuclei's responseToDSLMap builds them
 * (pkg/protocols/network/operators.go, pkg/protocols/dns/operators.go), and the `part` each
 * protocol reads by default. The ssl event is in ssl-event.ts.
 */
import type { Answer, Packet } from 'dns-packet';
import type { MatchEvent } from '../match/index.js';
import type { PartMapper } from './block-operators.js';
import { messageText, questionText, recordsText, recordValue } from './dns-text.js';

/** tcp: an empty part, `body` and `all` read `data` (the last read). */
export const TCP_PART: PartMapper = (part) => (part === undefined || part === '' || part === 'body' || part === 'all' ? 'data' : part);

/** dns: an empty part, `body` and `all` read `raw` (the whole answer as miekg/dns prints it). */
export const DNS_PART: PartMapper = (part) => (part === undefined || part === '' || part === 'body' || part === 'all' ? 'raw' : part);

/** ssl: an empty part reads `response` (the tlsx response as JSON). */
export const SSL_PART: PartMapper = (part) => (part === undefined || part === '' ? 'response' : part);

/** One tcp exchange as sent and received. */
export interface TcpExchange {
  /** The input as the scan gave it (`host:port`). */
  host: string;
  /** The address the request went to (`host:port`, after the template's `host:` entry). */
  matched: string;
  /** The address actually connected to. */
  ip: string;
  request: Buffer;
  /** The last read (`data`) and every read in order (`raw`). */
  data: Buffer;
  raw: Buffer;
  /** Reads of named inputs, by the input's name. */
  named: Record<string, Buffer>;
}

/**
 * The event of a tcp exchange: `host`, `matched`, `request`, `data`, `raw`, `type`, `ip`, then
 * the block's variables and payload values and the named reads on top (upstream's copy order),
 * payload values under everything. Texts are UTF-8; binary matchers read the bytes.
 */
export function buildTcpEvent(exchange: TcpExchange, vars: Record<string, unknown>, payload: Record<string, string>): MatchEvent {
  const text = (b: Buffer): string => b.toString('utf8');
  const named = Object.fromEntries(Object.entries(exchange.named).map(([k, v]) => [k, text(v)]));
  const data: Record<string, unknown> = {
    ...payload,
    host: exchange.host,
    matched: exchange.matched,
    request: text(exchange.request),
    data: text(exchange.data),
    raw: text(exchange.raw),
    type: 'tcp',
    ip: exchange.ip,
    ...vars,
    ...payload,
    ...named,
  };
  return { data, bytes: { data: exchange.data, raw: exchange.raw, request: exchange.request, ...exchange.named } };
}

/** dns: the `rcode` number of a decoded message (the low four bits of the header flags). */
function rcodeOf(packet: Packet): number {
  return ((packet as { flags?: number }).flags ?? 0) & 0xf;
}

/** nuclei's recordsKeyValue: per answer type (lower case), the record's data; a list when several. */
function recordEntries(answers: Answer[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const record of answers) {
    const key = record.type.toLowerCase();
    const value = recordValue(record);
    const previous = out[key];
    out[key] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return out;
}

/**
 * The event of a DNS exchange: `host` (the name asked about), `matched` (the question),
 * `request`, `rcode`, `question`, `extra`, `answer`, `ns`, `raw` (miekg/dns texts), `type`,
 * `trace` (empty: tracing is not done), the answers by type (`cname`, `a`...), the variables on top.
 */
export function buildDnsEvent(request: Packet, response: Packet, host: string, matched: string, vars: Record<string, unknown>): MatchEvent {
  const data: Record<string, unknown> = {
    host,
    matched,
    request: messageText(request),
    rcode: rcodeOf(response),
    question: (response.questions ?? []).map(questionText).join(''),
    extra: recordsText(response.additionals),
    answer: recordsText(response.answers),
    ns: recordsText(response.authorities),
    raw: messageText(response),
    type: 'dns',
    trace: '',
    ...recordEntries(response.answers ?? []),
    ...vars,
  };
  return { data, bytes: {} };
}
