/**
 * How the active checks of this folder send probes: a network failure of one probe proves nothing
 * either way (null, the check moves on), while a spent budget or a stopped scan ends the check
 * quietly, with nothing half-proven reported.
 */
import { EgressError } from '../../../shared/egress.js';
import { BudgetExhausted, OutOfScope, type CheckContext, type SendOptions, type WebRequest, type WebResponse } from '../contract.js';

/** Ends a check's run (budget spent or scan stopped); caught by `untilStopped`. */
class CheckStopped extends Error {}

/** Sends one probe; null when this exchange failed on the network or left the scope. */
export async function sendProbe(ctx: CheckContext, request: WebRequest, options: SendOptions = {}): Promise<WebResponse | null> {
  if (ctx.signal.aborted) throw new CheckStopped();
  try {
    return await ctx.client.send(request, options);
  } catch (error) {
    if (error instanceof BudgetExhausted || ctx.signal.aborted) throw new CheckStopped();
    if (error instanceof EgressError || error instanceof OutOfScope) return null;
    throw error;
  }
}

/** Runs a check's body; returns quietly once the budget is spent or the scan stops. */
export async function untilStopped(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    if (error instanceof CheckStopped) return;
    throw error;
  }
}
