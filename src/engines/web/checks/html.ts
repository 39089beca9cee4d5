/** The elements of an HTML document and their attributes, read with parse5 (for checks that look at markup). */
import { parse } from 'parse5';

export interface Element {
  tag: string;
  attrs: Map<string, string>;
}

/** Every element of the document with its attributes (names lower-case), in document order. */
export function elementsOf(html: string): Element[] {
  const out: Element[] = [];
  type Node = { tagName?: string; attrs?: Array<{ name: string; value: string }>; childNodes?: Node[]; content?: Node };
  const walk = (node: Node): void => {
    if (node.tagName) out.push({ tag: node.tagName, attrs: new Map((node.attrs ?? []).map((a) => [a.name.toLowerCase(), a.value])) });
    for (const child of node.childNodes ?? []) walk(child);
    if (node.content) walk(node.content);
  };
  walk(parse(html) as unknown as Node);
  return out;
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
