/**
 * The crawler: from the start URL, breadth first, it fetches every in-scope page it can reach
 * (links, GET forms, URLs in scripts, robots.txt and sitemap.xml seeds, redirects within scope)
 * and records every request shape it finds as an `Endpoint`, one per shape (inputs.ts
 * `endpointKey`: same method, path and parameter names), so `/item?id=1` and `/item?id=2` are
 * fetched once. POST forms are recorded, never submitted here: the checks submit them.
 *
 * It never fetches nor records what looks destructive or session-ending (destructive.ts) unless
 * the scan allows it, stays in the client's scope, and stops at the page and depth limits, when
 * the client's request budget or wall time is spent, or when the scan is stopped. When a response
 * shows the session was lost (session.ts), the page is fetched again after a new login.
 */
import { EgressError } from '../../../shared/egress.js';
import { runPool } from '../../../shared/pool.js';
import { BudgetExhausted, OutOfScope, type Endpoint, type SiteMap, type WebClient, type WebResponse } from '../contract.js';
import { looksDestructive } from './destructive.js';
import { endpointHref, formEndpoint, linkEndpoint } from './forms.js';
import { readPage, scriptUrls, type RawForm } from './html.js';
import { readRobots, readSitemap } from './seeds.js';
import { showsLostSession, type SessionKeeper } from './session.js';

export interface CrawlOptions {
  client: WebClient;
  /** The scan's start URL. */
  start: string;
  /** Filled in place as the crawl goes (the checks' context holds the same object). */
  site: SiteMap;
  signal: AbortSignal;
  maxPages: number;
  maxDepth: number;
  /** Pages fetched at once. */
  concurrency: number;
  allowDestructive: boolean;
  session: SessionKeeper;
  /** Called after each page (awaited: the engine streams its events here). */
  onProgress?(fetched: number, known: number): Promise<void> | void;
  log(level: 'info' | 'warn', message: string): void;
}

export interface CrawlOutcome {
  /** Why the crawl stopped before it ran out of pages: the page limit or the scan's budget. */
  stoppedBy: 'pages' | 'budget' | null;
  /** Pages whose request failed on the network. */
  failures: number;
  /** Links and forms left alone because they look destructive. */
  destructiveSkipped: string[];
  /** Where the start page redirected when that is outside the scope (not followed: little or nothing was crawled). */
  startLeftScope: string | null;
}

/** Files that hold no links and no inputs: never fetched. */
const STATIC_FILE = /\.(?:png|jpe?g|gif|ico|svg|webp|bmp|tiff?|woff2?|ttf|otf|eot|mp[34]|m4a|ogg|webm|avi|mov|zip|gz|tgz|bz2|xz|7z|rar|pdf|docx?|xlsx?|pptx?|exe|dmg|iso|css)$/i;
const SITEMAPS_MAX = 5;

interface Pending {
  endpoint: Endpoint;
  depth: number;
}

/** Crawls the site from `options.start` (see the module comment). Throws the start page's network error. */
export async function crawl(options: CrawlOptions): Promise<CrawlOutcome> {
  const { client, site, signal } = options;
  const seen = new Set<string>();
  const outcome: CrawlOutcome = { stoppedBy: null, failures: 0, destructiveSkipped: [], startLeftScope: null };
  let next: Pending[] = [];
  let fetched = 0;

  const record = (endpoint: Endpoint, depth: number, fetch: boolean, label = ''): void => {
    if (seen.has(endpoint.key)) return;
    const where = new URL(endpoint.url);
    if (!options.allowDestructive && looksDestructive(`${where.pathname}?${new URLSearchParams(endpoint.query).toString()}`, label)) {
      // Named once, however many pages link it (a sign-out link on every page).
      const named = `${endpoint.method} ${endpointHref(endpoint)}`;
      if (outcome.destructiveSkipped.length < 50 && !outcome.destructiveSkipped.includes(named)) outcome.destructiveSkipped.push(named);
      return;
    }
    seen.add(endpoint.key);
    site.endpoints.push(endpoint);
    if (fetch && depth <= options.maxDepth) next.push({ endpoint, depth });
  };
  const addLink = (url: string, foundOn: string, depth: number, source: Endpoint['source'], text = ''): void => {
    if (!client.inScope(url) || STATIC_FILE.test(new URL(url).pathname)) return;
    record(linkEndpoint(url, foundOn, source), depth, true, text);
  };
  const addForm = (form: RawForm, foundOn: string, depth: number): void => {
    if (!client.inScope(form.action)) return;
    record(formEndpoint(form, foundOn), depth, form.method === 'GET', form.submitLabels.join(' '));
  };

  const read = (response: WebResponse, depth: number): void => {
    const type = response.headers['content-type'] ?? '';
    const from = response.url;
    if (/html/i.test(type) || (type === '' && /^\s*</.test(response.body))) {
      const content = readPage(response.body, from);
      for (const link of content.links) addLink(link.url, from, depth + 1, link.source, link.text);
      for (const form of content.forms) addForm(form, from, depth + 1);
    } else if (/javascript|ecmascript/i.test(type)) {
      for (const url of scriptUrls(response.body, from)) addLink(url, from, depth + 1, 'script');
    }
    if (response.redirects.length > 0 && client.inScope(response.url)) record(linkEndpoint(response.url, response.request.url, 'redirect'), depth, false);
  };

  const fetchPage = async (item: Pending): Promise<void> => {
    if (fetched >= options.maxPages) {
      outcome.stoppedBy ??= 'pages';
      return;
    }
    fetched++;
    const href = endpointHref(item.endpoint);
    let response: WebResponse;
    try {
      response = await fetchInSession(options, href);
    } catch (error) {
      if (error instanceof EgressError && error.code !== 'aborted') {
        outcome.failures++;
        return;
      }
      if (error instanceof OutOfScope) return;
      throw error;
    }
    read(response, item.depth);
    site.pages.push({ url: href, response: withoutBody(response), depth: item.depth });
    await options.onProgress?.(fetched, fetched + next.length);
  };

  // The start page: its failure is the scan's (the host is down or refuses us).
  const startEndpoint = linkEndpoint(options.start, options.start, 'start');
  seen.add(startEndpoint.key);
  site.endpoints.push(startEndpoint);
  let first: WebResponse;
  try {
    first = await fetchInSession(options, options.start);
  } catch (error) {
    if (error instanceof BudgetExhausted) return { ...outcome, stoppedBy: 'budget' };
    throw error;
  }
  fetched++;
  const leaving = first.status >= 300 && first.status < 400 ? first.headers.location : undefined;
  if (leaving !== undefined) {
    try {
      const target = new URL(leaving, first.url).href;
      if (!options.client.inScope(target)) outcome.startLeftScope = target;
    } catch {
      // A Location that is no URL: nothing was left for.
    }
  }
  site.start = first.url;
  read(first, 0);
  site.pages.push({ url: options.start, response: withoutBody(first), depth: 0 });

  try {
    await readSeeds(options, (url, source) => addLink(url, options.start, 1, source));
    for (let depth = 1; next.length > 0 && !signal.aborted; depth++) {
      const level = next;
      next = [];
      await runPool(level[Symbol.iterator](), options.concurrency, fetchPage, signal);
      if (outcome.stoppedBy === 'pages') break;
    }
  } catch (error) {
    if (error instanceof BudgetExhausted) outcome.stoppedBy = 'budget';
    else if (!(error instanceof EgressError && error.code === 'aborted')) throw error;
  }
  return outcome;
}

/** A GET of `href`, again in a new session when the response showed the session was lost. */
async function fetchInSession(options: CrawlOptions, href: string): Promise<WebResponse> {
  const generation = options.session.generation;
  const response = await options.client.send({ method: 'GET', url: href }, { followRedirects: true });
  if (!options.session.active || !showsLostSession(response, href) || !(await options.session.restore(generation))) return response;
  return options.client.send({ method: 'GET', url: href }, { followRedirects: true });
}

/** robots.txt and sitemap.xml of the start URL's origin (read even when the scope is a sub-path: they are the site's map). */
async function readSeeds(options: CrawlOptions, add: (url: string, source: 'robots' | 'sitemap') => void): Promise<void> {
  const origin = new URL(options.start).origin;
  const sameOrigin = (url: string): boolean => {
    try {
      return new URL(url, origin).origin === origin;
    } catch {
      return false;
    }
  };
  const get = async (url: string): Promise<WebResponse | undefined> => {
    try {
      const response = await options.client.send({ method: 'GET', url }, { allowOutOfScope: !options.client.inScope(url) && sameOrigin(url) });
      return response.status === 200 ? response : undefined;
    } catch (error) {
      if (error instanceof EgressError && error.code !== 'aborted') return undefined;
      throw error;
    }
  };
  const sitemaps = new Set([`${origin}/sitemap.xml`]);
  const robots = await get(`${origin}/robots.txt`);
  if (robots && !/^\s*</.test(robots.body)) {
    const read = readRobots(robots.body, origin);
    for (const url of read.paths) add(url, 'robots');
    for (const url of read.sitemaps) if (sameOrigin(url)) sitemaps.add(new URL(url, origin).href);
  }
  const queue = [...sitemaps];
  for (let i = 0; i < queue.length && i < SITEMAPS_MAX; i++) {
    const response = await get(queue[i]!);
    if (!response || !/<(?:urlset|sitemapindex)[\s>]/i.test(response.body)) continue;
    const read = readSitemap(response.body);
    for (const url of read.urls) {
      if (read.isIndex) {
        if (sameOrigin(url) && !queue.includes(url)) queue.push(url);
      } else add(url, 'sitemap');
    }
  }
}

/**
 * A page as the site map keeps it: its body was read (links, forms, the passive checks) when it
 * came, and is not kept, so that memory does not grow with pages times their size.
 */
function withoutBody(response: WebResponse): WebResponse {
  return { ...response, body: '', request: { ...response.request, body: '' } };
}
