/**
 * The HTTP check's crawl: from the page `/` lands on, follow links within the site (same scheme,
 * host and port) to find what the fixed probe list misses: directory listings (also of the
 * directories that linked files live in), status and info pages, and linked dumps or backups.
 * Depth 2 (links of `/`, then links of those pages), at most `MAX_CRAWL_REQUESTS` requests, three
 * at a time, paced by the job's rate when it has one; GET only, bodies capped as every request of
 * the check. Links that may change state in a careless application (logout, delete...) and static
 * assets (images, scripts, styles, documents) are never fetched; an asset's directory is.
 *
 * Glossary: a *candidate* is a path the crawl may fetch, with the depth it was found at; a
 * *listing* is an auto-generated directory index (`directoryListing`).
 */
import type { EngineLimits } from '../../engine.js';
import type { TokenBucket } from '../rate-limit.js';
import { directoryListing, exposureHit, recogniseLinkedFile, serverInfo, statusPage, type ExposureHit } from './http-exposures.js';
import { statusThreat } from './http-server-pages.js';
import type { HttpResponse } from './http-request.js';
import { printable } from './evidence.js';
import { describeSensitive } from './sensitive-names.js';

/** Link levels followed from the start page. */
export const MAX_CRAWL_DEPTH = 2;
/** Requests the crawl may send per port (on top of the fixed probes). */
export const MAX_CRAWL_REQUESTS = 100;
/** Links taken from one page at most. */
const MAX_LINKS_PER_PAGE = 200;
/** Names of a listing quoted in evidence at most. */
const MAX_NAMES_SHOWN = 30;
const PARALLEL_REQUESTS = 3;

/** GETs that a badly built application may treat as an action: never followed. */
const UNSAFE_LINK = /log-?out|sign-?out|logoff|delete|remove|destroy|unsubscribe|reset|install|setup|admin\/.*(?:drop|truncate)/i;
/** Extensions of pages worth reading for links (besides directories and extension-less paths). */
const PAGE_EXTENSION = /\.(html?|php\d?|aspx?|jsp|cgi|pl|shtml|do|action)$/i;

/** What the crawl needs of the check: the site's origin, a GET (cached and counted by the caller), the catch-all test. */
export interface CrawlSite {
  /** `http://host:port` as links to this site spell it. */
  origin: string;
  get(path: string): Promise<HttpResponse | null>;
  /** True when a 200 answer shows something the site's catch-all page does not. */
  proves(response: HttpResponse | null): response is HttpResponse;
  limits: EngineLimits;
  signal: AbortSignal;
  /** The job's rate limit (`RAMPART_SCAN_RATE`, shared by every check of the run): one token per request. */
  bucket?: Pick<TokenBucket, 'take'> | undefined;
}

interface Candidate {
  path: string;
  depth: number;
}

/**
 * Crawls from `start` (the page `/` lands on, already fetched and judged no catch-all) and returns
 * the exposures seen and the requests sent.
 */
export async function crawlSite(
  site: CrawlSite,
  start: { path: string; response: HttpResponse; catchAll: boolean } | null,
  seeds: readonly string[],
): Promise<{ hits: ExposureHit[]; requests: number }> {
  const hits: ExposureHit[] = [];
  const seen = new Set<string>(start === null ? [] : [start.path]);
  let requests = 0;
  // An aborted wait ends the crawl through the signal check of the loop.
  const pace = async (): Promise<void> => site.bucket?.take(site.signal).catch(() => undefined);
  const examine = (path: string, response: HttpResponse, depth: number): Candidate[] => examinePage(site.origin, path, response, depth, hits);

  // A catch-all start page proves nothing itself, but its links are still the site's links.
  let startLinks: Candidate[] = [];
  if (start !== null) {
    startLinks = start.catchAll ? linkedPaths(start.response.body, start.path, site.origin).map((path) => ({ path, depth: 1 })) : examine(start.path, start.response, 0);
  }
  let level = [...startLinks, ...seeds.map((path) => ({ path, depth: 1 }))];
  for (let depth = 1; depth <= MAX_CRAWL_DEPTH && level.length > 0 && !site.signal.aborted; depth++) {
    const fresh = order(level.filter((candidate) => !seen.has(candidate.path)));
    for (const candidate of fresh) seen.add(candidate.path);
    const next: Candidate[] = [];
    await forEachLimited(fresh, PARALLEL_REQUESTS, async ({ path }) => {
      if (requests >= MAX_CRAWL_REQUESTS || site.signal.aborted) return;
      requests++;
      await pace();
      const response = await site.get(path);
      if (site.proves(response)) next.push(...examine(path, response, depth));
    });
    level = next;
  }
  // Requests finish in any order: evidence in path order.
  return { hits: hits.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), requests };
}

/** Directories first (listings are what the crawl is for), then pages, then linked files. */
function order(candidates: Candidate[]): Candidate[] {
  const rank = (path: string): number => (path.endsWith('/') ? 0 : isPage(path) ? 1 : 2);
  return [...new Map(candidates.map((candidate) => [candidate.path, candidate])).values()].sort((a, b) => rank(a.path) - rank(b.path));
}

/** Records what one proven page shows; returns the paths it leads to (none past the last depth). */
function examinePage(origin: string, path: string, response: HttpResponse, depth: number, hits: ExposureHit[]): Candidate[] {
  const body = response.body;
  const listing = directoryListing(body);
  if (listing !== null) {
    const names = listingNames(body, path);
    // Names are the server's bytes: escaped for evidence.
    const quote = (list: string[]): string => printable(list.slice(0, MAX_NAMES_SHOWN).join(', '), 2000) + (list.length > MAX_NAMES_SHOWN ? ', ...' : '');
    const shown = names.length === 0 ? '' : `; lists ${names.length} entr${names.length === 1 ? 'y' : 'ies'}: ${quote(names)}`;
    hits.push(exposureHit('directory-listing', path, `${listing}${shown}`));
    const sensitive = describeSensitive(names);
    if (sensitive.length > 0) hits.push(exposureHit('listing-sensitive-files', path, quote(sensitive)));
    if (depth >= MAX_CRAWL_DEPTH) return [];
    // Subdirectories, and listed files that may be dumps or backups (their content decides).
    const directory = path.split('?')[0]!.replace(/\/?$/, '/');
    return names
      .filter((name) => name.endsWith('/') || isFetchableFile(name))
      .map((name) => ({ path: `${directory}${encodeURIComponent(name.replace(/\/$/, ''))}${name.endsWith('/') ? '/' : ''}`, depth: depth + 1 }));
  }
  const status = statusPage(body);
  if (status !== null) hits.push(exposureHit('status-page', path, statusThreat(status)));
  const info = serverInfo(body);
  if (info !== null) hits.push(exposureHit('server-info', path, info));
  const file = recogniseLinkedFile(path, body);
  if (file !== null) hits.push(exposureHit(file.kind, path, file.seen));
  if (depth >= MAX_CRAWL_DEPTH || !looksLikeHtml(response)) return [];
  return linkedPaths(body, path, origin).map((linked) => ({ path: linked, depth: depth + 1 }));
}

/** A linked file fetched for its content: a name suggesting a dump or backup the recognisers know. */
function isFetchableFile(name: string): boolean {
  return /\.(sql|sql\.gz|dump|zip|tar\.gz|tgz|gz|bak|old|orig|save|backup)$|~$|(^|\/)\.env(\.[\w-]+)?$/i.test(name);
}

function isPage(path: string): boolean {
  const last = path.split('?')[0]!.split('/').pop() ?? '';
  return !last.includes('.') || PAGE_EXTENSION.test(last);
}

function looksLikeHtml(response: HttpResponse): boolean {
  const type = String(response.headers['content-type'] ?? '');
  return /html/i.test(type) || (type === '' && /^\s*<(!doctype|html)/i.test(response.body.subarray(0, 200).toString('latin1')));
}

/** The attribute values that are links: href and src, quoted or not. */
const LINK_ATTRIBUTE = /\s(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/gi;

/**
 * The same-site paths a page links to that are worth a request: directories, pages, and files
 * whose names suggest dumps or backups; plus the directories every linked path lives in.
 */
export function linkedPaths(body: Buffer, pagePath: string, origin: string): string[] {
  const base = new URL(pagePath, `${origin}/`);
  const paths: string[] = [];
  for (const match of body.toString('latin1').matchAll(LINK_ATTRIBUTE)) {
    if (paths.length >= MAX_LINKS_PER_PAGE) break;
    const href = (match[1] ?? match[2] ?? match[3] ?? '').trim().replace(/&amp;/g, '&');
    if (href === '' || href.startsWith('#') || /^(mailto|javascript|data|tel):/i.test(href)) continue;
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      continue;
    }
    if (url.origin !== base.origin || UNSAFE_LINK.test(`${url.pathname}${url.search}`) || url.search.length > 200 || url.pathname.length > 500) continue;
    const path = `${url.pathname}${url.search}`;
    if (isPage(url.pathname) || isFetchableFile(url.pathname)) paths.push(path);
    paths.push(...parentDirectories(url.pathname));
  }
  return [...new Set(paths)];
}

/** `/a/b/c.pdf` -> `/a/b/`, `/a/` (never `/`: it is the start page). */
function parentDirectories(pathname: string): string[] {
  const segments = pathname.split('/').slice(1, -1);
  return segments.map((_, index) => `/${segments.slice(0, index + 1).join('/')}/`).reverse();
}

/**
 * The entries of a directory listing at `listingPath`, as names (directories end in `/`):
 * links that lead one level below it, whatever the server's format (relative names in Apache,
 * nginx and Python; absolute paths in IIS). Sort links (`?C=N;O=D`) and the parent are skipped.
 */
export function listingNames(body: Buffer, listingPath: string): string[] {
  const base = new URL(listingPath.endsWith('/') ? listingPath : `${listingPath}/`, 'http://site.invalid/');
  const names: string[] = [];
  for (const match of body.toString('latin1').matchAll(LINK_ATTRIBUTE)) {
    const href = (match[1] ?? match[2] ?? match[3] ?? '').replace(/&amp;/g, '&');
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      continue;
    }
    if (url.origin !== base.origin || url.search !== '' || !url.pathname.startsWith(base.pathname)) continue;
    const rest = url.pathname.slice(base.pathname.length);
    if (rest === '' || /\/./.test(rest)) continue;
    let name: string;
    try {
      name = decodeURIComponent(rest);
    } catch {
      name = rest;
    }
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** Runs `task` over `items` with at most `limit` in flight. */
export async function forEachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
