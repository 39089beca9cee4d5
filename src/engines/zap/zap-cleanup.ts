/**
 * Leaving the daemon as the run found it: the scans a run started and has not seen finish are
 * stopped, its replacer rules and its context removed. Best effort, and never bounded by the
 * run's signal (which may be what ended the run): each call has its own time limit.
 */
import type { ZapApi } from './zap-api.js';

/** The scans started and not yet finished, stopped when the run is cut short. */
export interface Running {
  spider?: string;
  ajax?: boolean;
  ascan?: string;
}

const NEVER = new AbortController().signal;

/** Stops the scans still running; a scan ZAP no longer knows (`does_not_exist`) is already over. */
export async function stopScans(api: ZapApi, running: Running): Promise<void> {
  const stops: Array<Promise<unknown>> = [];
  if (running.spider !== undefined) stops.push(api.call('spider/action/stop', { scanId: running.spider }, NEVER));
  if (running.ajax) stops.push(api.call('ajaxSpider/action/stop', {}, NEVER));
  if (running.ascan !== undefined) stops.push(api.call('ascan/action/stop', { scanId: running.ascan }, NEVER));
  delete running.spider;
  delete running.ajax;
  delete running.ascan;
  await Promise.allSettled(stops);
}

/** Leaves the daemon as it was: scans stopped, session rules and the context removed (best effort). */
export async function cleanUp(api: ZapApi, contextName: string | undefined, rules: string[], running: Running): Promise<void> {
  await stopScans(api, running);
  await Promise.allSettled(rules.map((description) => api.call('replacer/action/removeRule', { description }, NEVER)));
  if (contextName) await api.call('context/action/removeContext', { contextName }, NEVER).catch(() => undefined);
}
