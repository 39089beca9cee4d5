/**
 * Runs web checks the way the engine does, without the engine: a real `createWebClient` on the
 * loopback egress, a `CheckContext` that collects what the checks report, and hand-built
 * endpoints of the vulnerable test application.
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { TestContext } from 'node:test';
import type { CheckContext, Endpoint, FormField, WebCheck, WebClient, WebFindingDraft } from '../../src/engines/web/contract.js';
import { createWebClient } from '../../src/engines/web/http/client.js';
import { endpointKey, inputsOf } from '../../src/engines/web/inputs.js';
import { LOOPBACK_EGRESS } from './egress.js';

export interface CheckRun {
  ctx: CheckContext;
  client: WebClient;
  /** What the checks reported, in order. */
  drafts: WebFindingDraft[];
  logs: string[];
}

/** A context for checks on the site at `start`; the scan's signal aborts when the test ends. */
export function checkContext(t: TestContext, start: string): CheckRun {
  const controller = new AbortController();
  // Every exchange in flight listens to the scan's signal: many at once is the normal case here.
  setMaxListeners(0, controller.signal);
  t.after(() => controller.abort());
  const client = createWebClient({
    egress: LOOPBACK_EGRESS,
    start,
    signal: controller.signal,
    ratePerSecond: 0,
    maxConcurrency: 16,
    timeoutMs: 15_000,
    maxRequests: 5000,
    deadline: Date.now() + 10 * 60_000,
  });
  const drafts: WebFindingDraft[] = [];
  const logs: string[] = [];
  const ctx: CheckContext = {
    client,
    site: { start, pages: [], endpoints: [] },
    signal: controller.signal,
    report: (draft) => drafts.push(draft),
    log: (level, message) => logs.push(`${level}: ${message}`),
    token: () => randomBytes(8).readBigUInt64BE().toString(36).padStart(8, '0').slice(-8),
    canaryHost: 'rampart-canary.example',
    allowDestructive: false,
  };
  return { ctx, client, drafts, logs };
}

/** A link with its query, as the crawler would find it. */
export function linkEndpoint(base: string, link: string): Endpoint {
  const url = new URL(link, base);
  const query = [...url.searchParams.entries()];
  const path = `${url.origin}${url.pathname}`;
  return { method: 'GET', url: path, query, foundOn: base, source: 'link', key: endpointKey('GET', path, query) };
}

/** A POST form with urlencoded text fields (name and value), as the crawler would read it. */
export function formEndpoint(base: string, action: string, fields: Array<[string, string]>): Endpoint {
  const url = new URL(action, base).href;
  const formFields: FormField[] = fields.map(([name, value]) => ({ name, type: 'text', value }));
  return { method: 'POST', url, query: [], body: { encoding: 'urlencoded', fields: formFields }, foundOn: url, source: 'form', key: endpointKey('POST', url, [], formFields) };
}

/** Runs every check's `testInput` on every input it applies to, all inputs at once (as the engine does). */
export async function runInputChecks(run: CheckRun, checks: WebCheck[], endpoints: Endpoint[]): Promise<void> {
  const work: Array<Promise<void>> = [];
  for (const endpoint of endpoints) {
    for (const point of inputsOf(endpoint)) {
      for (const check of checks) {
        if (check.testInput && (check.appliesTo?.(point) ?? true)) work.push(check.testInput(point, run.ctx));
      }
    }
  }
  await Promise.all(work);
}

/** The drafts on one path (the URL's pathname), for assertions. */
export function draftsOn(run: CheckRun, path: string): WebFindingDraft[] {
  return run.drafts.filter((draft) => new URL(draft.url).pathname === path);
}
