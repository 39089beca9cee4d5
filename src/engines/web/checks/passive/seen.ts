/** What the passive checks share: which responses are HTML pages, and the location of a page-level finding. */
import type { WebResponse } from '../../contract.js';

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
