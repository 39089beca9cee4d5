/**
 * What the injection checks (sqli, cmdi) share: which inputs they test, how one probe is sent, and
 * how a check ends on an input when the scan stops, the budget is spent or the target fails.
 */
import { EgressError } from '../../../shared/egress-error.js';
import { BudgetExhausted, type CheckContext, type InputPoint, type SendOptions, type WebFindingDraft, type WebResponse } from '../contract.js';
import { requestFor } from '../inputs.js';

/** Query and form inputs, file fields excepted (the upload check's). */
export function isTextInput(point: InputPoint): boolean {
  return (point.location === 'query' || point.location === 'body') && point.fieldType !== 'file';
}

/** The endpoint sent with this one input set to `value`. */
export function sendWith(ctx: CheckContext, point: InputPoint, value: string, options?: SendOptions): Promise<WebResponse> {
  return ctx.client.send(requestFor(point.endpoint, { point, value }), options);
}

/** Reports what was proven on one input: the location is the input's, the rest the check's. */
export function reportOn(ctx: CheckContext, point: InputPoint, proven: Pick<WebFindingDraft, 'ruleId' | 'name' | 'proof' | 'summary' | 'highlight'>): void {
  const { highlight, ...rest } = proven;
  ctx.report({
    url: point.endpoint.url,
    method: point.endpoint.method,
    parameter: point.name,
    location: point.location,
    ...rest,
    ...(highlight ? { highlight } : {}),
  });
}

/** The input as a log line names it: `POST http://host/path (body name)`. */
export function describeInput(point: InputPoint): string {
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
      ctx.log('info', `${check}: ${describeInput(point)} not tested to the end: ${error.message}`);
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
