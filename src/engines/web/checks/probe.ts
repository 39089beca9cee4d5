/**
 * Sending probes for the injection checks (XSS, template injection, CRLF, open redirect): one
 * input changed, one exchange, and the failures sorted. A failed exchange (reset, timeout, out of
 * scope) loses that probe only; a spent budget or an aborted scan ends the check without a report
 * (`whileBudgetLasts`), as the contract asks.
 */
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

/** Whether a browser renders the response as HTML (declared so, or undeclared and looking like markup; not a download). */
export function isHtml(response: WebResponse): boolean {
  if (/^\s*attachment/i.test(response.headers['content-disposition'] ?? '')) return false;
  const type = response.headers['content-type'];
  if (type === undefined) return /^\s*</.test(response.body);
  return /^\s*(?:text\/html|application\/xhtml\+xml)\b/i.test(type);
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
