/**
 * Sending probes for the active checks: one input changed, one exchange, and the failures sorted.
 * Two ways to meet a failed exchange: `sendProbe`/`probeInput` lose that probe only (null) and the
 * check goes on (XSS, template injection, CRLF, open redirect, traversal, CSRF, upload), while
 * `sendWith` throws and `onInput` ends the check on that input with a log line (SQL and command
 * injection, whose proofs are sequences of probes that one lost answer breaks). Either way a spent
 * budget or an aborted scan ends the check without a report, as the contract asks.
 */
import { randomInt } from 'node:crypto';
import { EgressError } from '../../../shared/egress-error.js';
import { BudgetExhausted, OutOfScope, type CheckContext, type InputPoint, type SendOptions, type WebFindingDraft, type WebRequest, type WebResponse } from '../contract.js';
import { requestFor } from '../inputs.js';

/** Sends `request`; null when this exchange failed for a reason that concerns it alone. */
export async function sendProbe(ctx: CheckContext, request: WebRequest, options: SendOptions = {}): Promise<WebResponse | null> {
  if (ctx.signal.aborted) throw new BudgetExhausted('the scan was stopped.');
  try {
    return await ctx.client.send(request, options);
  } catch (error) {
    if (error instanceof OutOfScope) return null;
    if (error instanceof EgressError && error.code !== 'aborted') return null;
    throw error;
  }
}

/** The input's endpoint sent with the input set to `value`, every other input at its baseline. */
export function probeInput(ctx: CheckContext, point: InputPoint, value: string, options: SendOptions = {}): Promise<WebResponse | null> {
  return sendProbe(ctx, requestFor(point.endpoint, { point, value }), options);
}

/** Runs a check's work; a spent budget or an aborted scan ends it quietly (nothing half-proven is reported). */
export async function whileBudgetLasts(ctx: CheckContext, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof BudgetExhausted || ctx.signal.aborted || (error instanceof EgressError && error.code === 'aborted')) return;
    throw error;
  }
}

/** How the evidence names an input: `query parameter q`. */
export function describeInput(point: InputPoint): string {
  const where = { query: 'query parameter', body: 'form field', header: 'header', cookie: 'cookie' }[point.location];
  return `${where} ${point.name}`;
}

/** The location fields of a finding on an input: its endpoint's URL and method, its name and where it is. */
export function locationOf(point: InputPoint): Pick<WebFindingDraft, 'url' | 'method' | 'parameter' | 'location'> {
  return { url: point.endpoint.url, method: point.endpoint.method, parameter: point.name, location: point.location };
}

/** The endpoint sent with this one input set to `value`; network failures throw (see `onInput`). */
export function sendWith(ctx: CheckContext, point: InputPoint, value: string, options?: SendOptions): Promise<WebResponse> {
  return ctx.client.send(requestFor(point.endpoint, { point, value }), options);
}

/** Reports what was proven on one input: the location is the input's, the rest the check's. */
export function reportOn(ctx: CheckContext, point: InputPoint, proven: Pick<WebFindingDraft, 'ruleId' | 'name' | 'proof' | 'summary' | 'highlight'>): void {
  const { highlight, ...rest } = proven;
  ctx.report({ ...locationOf(point), ...rest, ...(highlight ? { highlight } : {}) });
}

/** The input as a log line names it: `POST http://host/path (body name)`. */
export function inputLine(point: InputPoint): string {
  return `${point.endpoint.method} ${point.endpoint.url} (${point.location} ${point.name})`;
}

/**
 * Runs a check's work on one input. A spent budget or a stopped scan ends it without a word; a
 * network failure ends it with a log line: either way nothing half-proven is reported, since
 * `work` reports only once its proof is complete.
 */
export async function onInput(ctx: CheckContext, check: string, point: InputPoint, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof BudgetExhausted || ctx.signal.aborted) return;
    if (error instanceof EgressError) {
      ctx.log('info', `${check}: ${inputLine(point)} not tested to the end: ${error.message}`);
      return;
    }
    throw error;
  }
}

/** The value HTML-escaped as pages commonly do it (named, decimal and hex entities for the quote). */
function escapings(value: string): string[] {
  const base = value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const withQuotes = (apos: string, quot: string): string => base.replace(/'/g, apos).replace(/"/g, quot);
  return [value, withQuotes('&#39;', '&quot;'), withQuotes('&#039;', '&#034;'), withQuotes('&#x27;', '&#x22;'), withQuotes('&apos;', '&quot;'), encodeURIComponent(value)];
}

/**
 * The body with every echo of `probe` (as sent, HTML-escaped or URL-encoded) turned back into the
 * same echo of `original`: a page that only reflects what it was sent then reads as the baseline.
 */
export function unreflect(body: string, probe: string, original: string): string {
  if (probe === original || probe === '') return body;
  const from = escapings(probe);
  const to = escapings(original);
  let out = body;
  // Longest first, so that an escaped echo is replaced whole before a raw substring of it.
  const order = from.map((text, i) => i).sort((a, b) => from[b]!.length - from[a]!.length);
  for (const i of order) if (from[i]!) out = out.split(from[i]!).join(to[i]!);
  return out;
}

/** Two random four-digit factors and their product (seven or eight digits: never there by chance). */
export function randomProduct(): { expression: string; product: string } {
  const a = randomInt(1000, 10000);
  const b = randomInt(1000, 10000);
  return { expression: `${a}*${b}`, product: String(a * b) };
}
