/**
 * Runs web checks the way the engine does, without the crawler: a real `createWebClient` on
 * loopback whose every response goes through the given passive checks, a `CheckContext` that
 * collects the drafts, and endpoints built by hand the way the crawler would report them.
 */
import { randomBytes } from 'node:crypto';
import type { TestContext } from 'node:test';
import type { CheckContext, Endpoint, FormField, WebCheck, WebClient, WebFindingDraft, WebResponse } from '../../src/engines/web/contract.js';
import { createWebClient } from '../../src/engines/web/http/client.js';
import { endpointKey } from '../../src/engines/web/inputs.js';
import { LOOPBACK_EGRESS } from './egress.js';

export interface CheckRun {
  ctx: CheckContext;
  client: WebClient;
  /** Every draft reported, in order. */
  drafts: WebFindingDraft[];
  /** Every response the client received. */
  responses: WebResponse[];
  /** GETs a path of the site (redirects followed) as the crawler would, and records it as a crawled page. */
  visit(path: string): Promise<WebResponse>;
}

export function startCheckRun(t: TestContext, base: string, options: { passive?: WebCheck[]; allowDestructive?: boolean; maxRequests?: number } = {}): CheckRun {
  const drafts: WebFindingDraft[] = [];
  const responses: WebResponse[] = [];
  const abort = new AbortController();
  t.after(() => abort.abort());
  const site = { start: base, pages: [] as CheckContext['site']['pages'], endpoints: [] as Endpoint[] };
  // The context is built before the client, which calls the passive checks with it.
  const ctx = {
    site,
    signal: abort.signal,
    report: (draft: WebFindingDraft) => drafts.push(draft),
    log: () => undefined,
    token: () => randomBytes(4).toString('hex'),
    canaryHost: 'rampart-redirect-check.example',
    allowDestructive: options.allowDestructive ?? false,
  } as Omit<CheckContext, 'client'> as CheckContext;
  const client = createWebClient({
    egress: LOOPBACK_EGRESS,
    start: base,
    signal: abort.signal,
    ratePerSecond: 0,
    maxConcurrency: 4,
    timeoutMs: 10_000,
    maxRequests: options.maxRequests ?? 5_000,
    deadline: Date.now() + 5 * 60_000,
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
    responses,
    async visit(path) {
      const response = await client.send({ method: 'GET', url: new URL(path, base).href }, { followRedirects: true });
      site.pages.push({ url: response.url, response, depth: 1 });
      return response;
    },
  };
}

/** A link's endpoint: GET with its query. */
export function linkEndpoint(base: string, pathAndQuery: string, foundOn = base): Endpoint {
  const url = new URL(pathAndQuery, base);
  const query = [...url.searchParams.entries()];
  const path = url.href.replace(/[?#].*$/, '');
  return { method: 'GET', url: path, query, foundOn, source: 'link', key: endpointKey('GET', path, query) };
}

/** A POST form's endpoint, found on `foundOn`. */
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
