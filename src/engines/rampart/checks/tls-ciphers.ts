/**
 * Which cipher suites a TLS service accepts at each protocol version, and whether it enforces its
 * own preference order, by the standard technique (sslscan, testssl.sh): offer every known suite
 * in a hand-built ClientHello, note the one the ServerHello chose, offer the rest again, until
 * the server refuses. A suite is listed only when the server chose it: a refusal, a timeout or
 * a bound reached never adds one. One connection at a time, each through the job's egress and
 * rate limit, with its timeouts; at most `MAX_HELLOS` connections per port.
 */
import type { Endpoint } from './check.js';
import { sendClientHello, type HelloResult, type HelloVersion } from './tls-hello.js';
import { LEGACY_SUITES, TLS13_SUITES } from './tls-suites.js';

/** Newest first: most servers answer the first hello, and a silent port costs two connections (see `SILENT_AFTER`). */
export const HELLO_VERSIONS: readonly HelloVersion[] = ['TLSv1.3', 'TLSv1.2', 'TLSv1.1', 'TLSv1', 'SSLv3'];

/**
 * The most ClientHellos per port. A server accepting every suite OpenSSL's `ALL:eNULL` has needs
 * about 60 at TLS 1.2 and 40 at each of TLS 1.0 and 1.1; past the bound the list says incomplete.
 */
export const MAX_HELLOS = 200;

/**
 * Unanswered hellos, before any answer, after which the port is taken as silent (not speaking
 * TLS) and nothing more is tried. Two, not one: a TLS 1.2 server behind a broken middlebox may
 * drop a TLS 1.3 ClientHello without a word and still answer a TLS 1.2 one.
 */
const SILENT_AFTER = 2;

/** Whose order picks the suite when a client offers several the server accepts. */
export type OrderResult = 'server' | 'client' | 'unclear';

/** What the enumeration learned about one port. */
export interface SuiteEnumeration {
  /** Suites the server chose, per version, in the order it chose them (its preference, if it has one). */
  accepted: Map<HelloVersion, number[]>;
  /** Versions whose list may be incomplete, and why (no answer, the bound, a suite never offered). */
  incomplete: Map<HelloVersion, string>;
  /** The preference test: two accepted suites offered in both orders at `version`. */
  order: { version: HelloVersion; pair: [number, number]; result: OrderResult } | null;
  /** Connections made (ClientHellos sent). */
  hellos: number;
  /** The first `SILENT_AFTER` hellos got no answer (a silent or non-TLS port): nothing else was tried. */
  silent: boolean;
  /** The job was aborted during the enumeration. */
  aborted: boolean;
}

/** Enumerates the accepted suites of every version, then tests the server's preference order. */
export async function enumerateSuites(endpoint: Endpoint, maxHellos = MAX_HELLOS): Promise<SuiteEnumeration> {
  const result: SuiteEnumeration = { accepted: new Map(), incomplete: new Map(), order: null, hellos: 0, silent: false, aborted: false };
  let answered = false;
  let unanswered = 0;
  const hello = async (version: HelloVersion, suites: readonly number[]): Promise<HelloResult> => {
    try {
      await endpoint.bucket?.take(endpoint.signal);
    } catch {
      return { kind: 'failed', reason: 'aborted' };
    }
    result.hellos++;
    const answer = await sendClientHello(endpoint, version, suites);
    if (answer.kind !== 'failed') answered = true;
    else unanswered++;
    return answer;
  };

  for (const version of HELLO_VERSIONS) {
    let remaining = [...(version === 'TLSv1.3' ? TLS13_SUITES : LEGACY_SUITES)];
    const accepted: number[] = [];
    for (;;) {
      if (result.hellos >= maxHellos) {
        result.incomplete.set(version, `stopped at the bound of ${maxHellos} connections`);
        break;
      }
      const answer = await hello(version, remaining);
      if (endpoint.signal.aborted || (answer.kind === 'failed' && answer.reason === 'aborted')) {
        result.aborted = true;
        return result;
      }
      if (answer.kind === 'failed') {
        if (!answered && unanswered >= SILENT_AFTER) {
          result.silent = true;
          return result;
        }
        result.incomplete.set(version, `no answer (${answer.reason})`);
        break;
      }
      if (answer.kind === 'refused') break;
      if (!remaining.includes(answer.suite)) {
        // A server that picks a suite it was not offered is broken; what it says next is not evidence.
        result.incomplete.set(version, `the server chose a suite it was not offered (0x${answer.suite.toString(16).padStart(4, '0')})`);
        break;
      }
      accepted.push(answer.suite);
      remaining = remaining.filter((suite) => suite !== answer.suite);
      if (remaining.length === 0) break;
    }
    if (accepted.length > 0) result.accepted.set(version, accepted);
  }

  // The preference test at the newest version below 1.3 with two suites (servers configure those
  // orders by hand; TLS 1.3's three suites are all strong), else at TLS 1.3.
  const version = [...HELLO_VERSIONS.filter((candidate) => candidate !== 'TLSv1.3'), 'TLSv1.3' as const]
    .find((candidate) => (result.accepted.get(candidate)?.length ?? 0) >= 2);
  const pair = version === undefined ? undefined : result.accepted.get(version);
  if (version !== undefined && pair !== undefined && result.hellos + 2 <= maxHellos) {
    const [first, second] = pair as [number, number];
    const forward = await hello(version, [first, second]);
    const backward = await hello(version, [second, first]);
    if (endpoint.signal.aborted) {
      result.aborted = true;
      return result;
    }
    result.order = { version, pair: [first, second], result: judgeOrder(forward, backward, first, second) };
  }
  return result;
}

function judgeOrder(forward: HelloResult, backward: HelloResult, first: number, second: number): OrderResult {
  if (forward.kind !== 'chosen' || backward.kind !== 'chosen') return 'unclear';
  if (forward.suite === backward.suite) return 'server';
  if (forward.suite === first && backward.suite === second) return 'client';
  return 'unclear';
}
