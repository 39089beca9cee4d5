/**
 * Runs web checks the way the engine does, without the crawler: a real `createWebClient` on the
 * loopback egress whose every response goes through the given passive checks, a `CheckContext`
 * that collects what the checks report and log, and endpoints built by hand the way the crawler
 * would report them. The one harness of every `test/web-*.test.ts` that drives checks.
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { TestContext } from 'node:test';
import type { CheckContext, Endpoint, FormField, InputPoint, WebCheck, WebClient, WebFindingDraft, WebResponse } from '../../src/engines/web/contract.js';
import { createWebClient } from '../../src/engines/web/http/client.js';
import { linkEndpoint as crawledLink } from '../../src/engines/web/crawl/forms.js';
import { endpointKey, inputsOf, isTextInput } from '../../src/engines/web/inputs.js';
import { LOOPBACK_EGRESS } from './egress.js';

/** The host the checks put in their payloads as an outside site (open redirect, SSRF-like probes). */
export const CANARY_HOST = 'canary.rampart.invalid';

export interface CheckRun {
  ctx: CheckContext;
  client: WebClient;
  /** Every draft reported, in order. */
  drafts: WebFindingDraft[];
  /** Every line the checks logged, as `level: message`. */
  logs: string[];
  /** Every response the client received. */
  responses: WebResponse[];
  /** GETs a path of the site (redirects followed) as the crawler would, and records it as a crawled page. */
  visit(path: string): Promise<WebResponse>;
}

export interface CheckRunOptions {
  /** Passive checks that inspect every response. */
  passive?: WebCheck[];
  allowDestructive?: boolean;
  /** The client's request budget (a scan's max_requests). */
  maxRequests?: number;
}

/** A run of checks on the site at `base`; the scan's signal aborts when the test ends. */
export function startCheckRun(t: TestContext, base: string, options: CheckRunOptions = {}): CheckRun {
  const drafts: WebFindingDraft[] = [];
  const logs: string[] = [];
  const responses: WebResponse[] = [];
  const abort = new AbortController();
  // Every exchange in flight listens on the scan's signal: more than Node's default ten at once.
  setMaxListeners(0, abort.signal);
  t.after(() => abort.abort());
  const site: CheckContext['site'] = { start: base, pages: [], endpoints: [] };
  // The context is built before the client, which calls the passive checks with it.
  const ctx = {
    site,
    signal: abort.signal,
    report: (draft: WebFindingDraft) => drafts.push(draft),
    log: (level: string, message: string) => logs.push(`${level}: ${message}`),
    token: () => randomBytes(8).readBigUInt64BE().toString(36).padStart(8, '0').slice(-8),
    canaryHost: CANARY_HOST,
    allowDestructive: options.allowDestructive ?? false,
  } as Omit<CheckContext, 'client'> as CheckContext;
  const client = createWebClient({
    egress: LOOPBACK_EGRESS,
    start: base,
    signal: abort.signal,
    ratePerSecond: 0,
    maxConcurrency: 8,
    timeoutMs: 15_000,
    maxRequests: options.maxRequests ?? 5_000,
    deadline: Date.now() + 10 * 60_000,
    onResponse: (response) => {
      responses.push(response);
      for (const check of options.passive ?? []) check.inspect?.(response, ctx);
    },
  });
  (ctx as { client: WebClient }).client = client;
  return {
    ctx,
    client,
    drafts,
    logs,
    responses,
    async visit(path) {
      const response = await client.send({ method: 'GET', url: new URL(path, base).href }, { followRedirects: true });
      site.pages.push({ url: response.url, response, depth: 1 });
      return response;
    },
  };
}

/**
 * Runs `checks` on `endpoints` as the engine does: every `testInput` on every input it applies to
 * and every `testEndpoint`, all at once, then each `testSite`. The endpoints become the site's.
 */
export async function runChecks(run: CheckRun, checks: WebCheck[], endpoints: Endpoint[]): Promise<void> {
  run.ctx.site.endpoints.push(...endpoints);
  const work: Array<Promise<void> | undefined> = [];
  for (const endpoint of endpoints) {
    for (const check of checks) {
      for (const point of inputsOf(endpoint)) if ((check.appliesTo ?? isTextInput)(point)) work.push(check.testInput?.(point, run.ctx));
      work.push(check.testEndpoint?.(endpoint, run.ctx));
    }
  }
  await Promise.all(work);
  for (const check of checks) await check.testSite?.(run.ctx);
}

/** A link's endpoint: GET with its query, as the crawler makes it. */
export function linkEndpoint(base: string, pathAndQuery: string, foundOn = base): Endpoint {
  return crawledLink(new URL(pathAndQuery, base).href, foundOn, 'link');
}

/** A POST form's endpoint, found on `foundOn` (by default the page of its action). */
export function formEndpoint(base: string, action: string, fields: FormField[], options: { foundOn?: string; multipart?: boolean } = {}): Endpoint {
  const url = new URL(action, base).href;
  return {
    method: 'POST',
    url,
    query: [],
    body: { encoding: options.multipart ? 'multipart' : 'urlencoded', fields },
    foundOn: new URL(options.foundOn ?? action, base).href,
    source: 'form',
    key: endpointKey('POST', url, [], fields),
  };
}

/** A field of a form (a text field unless `type` says). */
export function field(name: string, value: string, type = 'text'): FormField {
  return { name, type, value };
}

/** The drafts on one path (the URL's pathname), for assertions. */
export function draftsOn(run: CheckRun, path: string): WebFindingDraft[] {
  return run.drafts.filter((draft) => new URL(draft.url).pathname === path);
}

/** The findings as `ruleId METHOD path parameter`, sorted: what a test compares. */
export function summarise(drafts: WebFindingDraft[]): string[] {
  return drafts.map((d) => `${d.ruleId} ${d.method} ${new URL(d.url).pathname} ${d.parameter}`).sort();
}
