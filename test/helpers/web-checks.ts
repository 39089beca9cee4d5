/**
 * Running web checks the way the engine does, without the crawler: a real `createWebClient` on the
 * loopback egress, endpoints built by hand, every input of every endpoint through `testInput`
 * (as the check's `appliesTo` selects them), then `testEndpoint`, then `testSite`; the drafts
 * the checks report are collected.
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { TestContext } from 'node:test';
import type { CheckContext, CrawledPage, Endpoint, FormField, InputPoint, WebCheck, WebClient, WebFindingDraft } from '../../src/engines/web/contract.js';
import { createWebClient } from '../../src/engines/web/http/client.js';
import { endpointKey, inputsOf } from '../../src/engines/web/inputs.js';
import { LOOPBACK_EGRESS } from './egress.js';

export const CANARY_HOST = 'canary.rampart.invalid';

/** A web client scoped to `start`, as a scan would make it (generous limits, no rate limit, unless `maxRequests` says). */
export function testWebClient(t: TestContext, start: string, maxRequests = 5_000): WebClient {
  const controller = new AbortController();
  // Every exchange in flight listens on the scan's signal: more than Node's default ten at once.
  setMaxListeners(0, controller.signal);
  t.after(() => controller.abort());
  return createWebClient({
    egress: LOOPBACK_EGRESS,
    start,
    signal: controller.signal,
    ratePerSecond: 0,
    maxConcurrency: 4,
    timeoutMs: 10_000,
    maxRequests,
    deadline: Date.now() + 120_000,
  });
}

/** A GET endpoint (a link with its query) or, with `fields`, a urlencoded POST form, at `path` of `base`. */
export function endpointAt(base: string, path: string, query: Array<[string, string]>, fields?: FormField[]): Endpoint {
  const url = new URL(path, base).href;
  const method = fields ? 'POST' : 'GET';
  return {
    method,
    url,
    query,
    ...(fields ? { body: { encoding: 'urlencoded' as const, fields } } : {}),
    foundOn: base,
    source: fields ? 'form' : 'link',
    key: endpointKey(method, url, query, fields),
  };
}

/** A text field of a form. */
export function field(name: string, value: string, type = 'text'): FormField {
  return { name, type, value };
}

/** The default inputs a check tests when it says nothing: query and body inputs that are not files. */
function applies(check: WebCheck, point: InputPoint): boolean {
  if (check.appliesTo) return check.appliesTo(point);
  return (point.location === 'query' || point.location === 'body') && point.fieldType !== 'file';
}

/**
 * Runs `checks` on `endpoints`; `pages` are fetched first and become the crawl's pages (what
 * stored XSS looks at again). Returns what the checks reported.
 */
export async function runChecks(
  client: WebClient,
  checks: WebCheck[],
  options: { start: string; endpoints: Endpoint[]; pages?: string[] },
): Promise<WebFindingDraft[]> {
  const pages: CrawledPage[] = [];
  for (const url of options.pages ?? []) pages.push({ url, response: await client.send({ method: 'GET', url }), depth: 1 });
  const drafts: WebFindingDraft[] = [];
  const ctx: CheckContext = {
    client,
    site: { start: options.start, pages, endpoints: options.endpoints },
    signal: new AbortController().signal,
    report: (draft) => drafts.push(draft),
    log: () => undefined,
    token: () => BigInt(`0x${randomBytes(6).toString('hex')}`).toString(36).padStart(8, '0').slice(-8),
    canaryHost: CANARY_HOST,
    allowDestructive: false,
  };
  for (const check of checks) {
    await Promise.all(options.endpoints.flatMap((endpoint) => inputsOf(endpoint).filter((point) => applies(check, point)).map((point) => check.testInput?.(point, ctx))));
    for (const endpoint of options.endpoints) await check.testEndpoint?.(endpoint, ctx);
    await check.testSite?.(ctx);
  }
  return drafts;
}

/** The findings as `ruleId METHOD path parameter`, sorted: what a test compares. */
export function summarise(drafts: WebFindingDraft[]): string[] {
  return drafts.map((d) => `${d.ruleId} ${d.method} ${new URL(d.url).pathname} ${d.parameter}`).sort();
}
