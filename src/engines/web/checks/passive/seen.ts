/**
 * What the passive checks share: which responses are HTML pages, and the memory of what was
 * already reported in a scan, so that a weakness every page shows is reported once (the engine's
 * own de-duplication is the backstop; this keeps the checks from rebuilding the same draft on
 * every response).
 */
import type { CheckContext, WebResponse } from '../../contract.js';

const reported = new WeakMap<CheckContext, Set<string>>();

/** True the first time `key` is seen in this scan (this context), false after. */
export function firstTime(ctx: CheckContext, key: string): boolean {
  let keys = reported.get(ctx);
  if (!keys) reported.set(ctx, (keys = new Set()));
  if (keys.has(key)) return false;
  keys.add(key);
  return true;
}

/** An HTML document the server answered with (content-type says so). */
export function isHtml(response: WebResponse): boolean {
  return /\b(?:text\/html|application\/xhtml\+xml)\b/i.test(response.headers['content-type'] ?? '');
}

/** A successful HTML page (2xx). */
export function isHtmlPage(response: WebResponse): boolean {
  return response.status >= 200 && response.status < 300 && isHtml(response);
}

/** `https://host:port` of a URL, or null for URLs that do not parse. */
export function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** The URL without query and fragment: the location of a page-level finding. */
export function withoutQuery(url: string): string {
  return url.replace(/[?#].*$/, '');
}

export function isHttps(url: string): boolean {
  return url.toLowerCase().startsWith('https:');
}
