/** Which responses are HTML documents, and their elements and attributes read with parse5 (for checks that look at markup). */
import { parse } from 'parse5';
import type { WebResponse } from '../contract.js';
import { elementsOf as elementsOfTree } from './html-contexts.js';

/** Whether a browser renders the response as HTML (declared so, or undeclared and looking like markup; not a download). */
export function isHtml(response: WebResponse): boolean {
  if (/^\s*attachment/i.test(response.headers['content-disposition'] ?? '')) return false;
  const type = response.headers['content-type'];
  if (type === undefined) return /^\s*</.test(response.body);
  return /^\s*(?:text\/html|application\/xhtml\+xml)\b/i.test(type);
}

export interface Element {
  tag: string;
  attrs: Map<string, string>;
}

/** Every element of the document with its attributes (names lower-case), in document order (template contents, inert, left out). */
export function elementsOf(html: string): Element[] {
  return [...elementsOfTree(parse(html))].map((element) => ({ tag: element.tagName, attrs: new Map(element.attrs.map((a) => [a.name.toLowerCase(), a.value])) }));
}

/** Absolute URLs of the document's links and sources (href, src, action), resolved against the page's URL. */
export function linksOf(html: string, base: string): string[] {
  const out: string[] = [];
  for (const element of elementsOf(html)) {
    for (const attribute of ['href', 'src', 'action']) {
      const value = element.attrs.get(attribute);
      if (!value) continue;
      try {
        out.push(new URL(value, base).href);
      } catch {
        // An unparsable URL leads nowhere.
      }
    }
  }
  return out;
}
