/** What the passive checks read of a response: whether it is an HTML page, its origin, and the location of a page-level finding. */
import type { WebResponse } from '../../contract.js';
import { isHtml } from '../html.js';

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
