/**
 * What the crawler reads from an HTML page (parse5, the browsers' parsing rules, so broken markup
 * still gives a tree): the links (a, area, link, iframe, frame, script src, meta refresh), the
 * forms with every field, and the URL-like string literals of inline scripts and event handlers.
 * URLs are resolved against the page (or its `<base href>`); nothing here decides scope.
 */
import { parse } from 'parse5';

/** A link found on a page: its absolute URL (fragment removed) and the text a user would click. */
export interface PageLink {
  url: string;
  text: string;
  source: 'link' | 'script';
}

/** One field of a form as written in the HTML (value as the markup gives it; empty text inputs are filled later). */
export interface RawField {
  name: string;
  type: string;
  value: string;
  options?: string[];
  /** Checkboxes and radios: whether the markup checks it. */
  checked?: boolean;
}

/** A form as written in the HTML. */
export interface RawForm {
  /** The resolved action (the page itself when empty), fragment removed. */
  action: string;
  method: 'GET' | 'POST';
  enctype: 'urlencoded' | 'multipart';
  fields: RawField[];
  /** The labels of its submit buttons (value or text), for the destructive-action rule. */
  submitLabels: string[];
}

export interface PageContent {
  links: PageLink[];
  forms: RawForm[];
}

/** The few members of parse5's default tree this module reads. */
interface Node {
  nodeName: string;
  tagName?: string;
  value?: string;
  attrs?: Array<{ name: string; value: string }>;
  childNodes?: Node[];
  content?: Node;
}

const LINK_ATTRIBUTES: Record<string, string> = { a: 'href', area: 'href', link: 'href', iframe: 'src', frame: 'src', script: 'src' };
/** `<link rel>` values that name no page (hints to the browser). */
const LINK_RELS_SKIPPED = /\b(?:preconnect|dns-prefetch)\b/i;

const attr = (node: Node, name: string): string | undefined => node.attrs?.find((a) => a.name === name)?.value;

function textOf(node: Node): string {
  if (node.nodeName === '#text') return node.value ?? '';
  return (node.childNodes ?? []).map(textOf).join('');
}

/** `href` resolved against `base`, without fragment; undefined for non-HTTP schemes and junk. */
export function resolveUrl(href: string, base: string): string | undefined {
  const trimmed = href.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return undefined;
  try {
    const url = new URL(trimmed, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

/** String literals in script text that look like paths or URLs of a site. */
const LITERAL = /(["'`])((?:\\.|(?!\1)[^\\\n])*)\1/g;
const PATH_LIKE = /^(?:https?:\/\/[^\s"'<>]+|\/(?!\/)[^\s"'<>]*|\.{1,2}\/[^\s"'<>]*|[\w-]+\.(?:php|html?|aspx?|jsp|cgi|do|action)(?:\?[^\s"'<>]*)?)$/i;

/** The URL-like string literals of a script, resolved against `base`. */
export function scriptUrls(code: string, base: string): string[] {
  const found: string[] = [];
  for (const match of code.matchAll(LITERAL)) {
    const text = match[2]!;
    // Template-literal holes and obvious regexes are not URLs.
    if (text.length < 2 || text.includes('${') || !PATH_LIKE.test(text)) continue;
    const url = resolveUrl(text, base);
    if (url) found.push(url);
  }
  return found;
}

/** Reads the links, forms and script URLs of an HTML page fetched from `pageUrl`. */
export function readPage(html: string, pageUrl: string): PageContent {
  const document = parse(html) as unknown as Node;
  let base = pageUrl;
  const links: PageLink[] = [];
  const forms: RawForm[] = [];

  const addLink = (href: string | undefined, text: string, source: PageLink['source'] = 'link'): void => {
    if (href === undefined) return;
    const url = resolveUrl(href, base);
    if (url) links.push({ url, text: text.trim().replace(/\s+/g, ' ').slice(0, 200), source });
  };

  const visit = (node: Node, form: RawForm | undefined): void => {
    const tag = node.tagName;
    let inner = form;
    if (tag) {
      for (const { name, value } of node.attrs ?? []) {
        if (name.startsWith('on')) for (const url of scriptUrls(value, base)) links.push({ url, text: '', source: 'script' });
      }
      if (tag === 'base') {
        const href = attr(node, 'href');
        const resolved = href ? resolveUrl(href, pageUrl) : undefined;
        if (resolved) base = resolved;
      } else if (tag in LINK_ATTRIBUTES) {
        if (!(tag === 'link' && LINK_RELS_SKIPPED.test(attr(node, 'rel') ?? ''))) addLink(attr(node, LINK_ATTRIBUTES[tag]!), tag === 'a' || tag === 'area' ? textOf(node) || (attr(node, 'title') ?? '') : '');
        if (tag === 'script' && attr(node, 'src') === undefined) {
          for (const url of scriptUrls(textOf(node), base)) links.push({ url, text: '', source: 'script' });
        }
      } else if (tag === 'meta' && /^refresh$/i.test(attr(node, 'http-equiv') ?? '')) {
        const target = /url\s*=\s*['"]?([^'"]+)/i.exec(attr(node, 'content') ?? '')?.[1];
        addLink(target, '');
      } else if (tag === 'form') {
        const method = (attr(node, 'method') ?? 'get').toLowerCase() === 'post' ? 'POST' : 'GET';
        const action = resolveUrl(attr(node, 'action') || pageUrl, attr(node, 'action') ? base : pageUrl) ?? pageUrl.replace(/#.*$/, '');
        const enctype = /multipart\/form-data/i.test(attr(node, 'enctype') ?? '') ? 'multipart' : 'urlencoded';
        inner = { action, method, enctype, fields: [], submitLabels: [] };
        forms.push(inner);
      } else if (inner && (tag === 'input' || tag === 'button' || tag === 'select' || tag === 'textarea')) {
        readField(node, inner);
      }
    }
    for (const child of node.childNodes ?? []) visit(child, inner);
    if (node.content) visit(node.content, inner);
  };
  visit(document, undefined);
  return { links, forms };
}

function readField(node: Node, form: RawForm): void {
  const tag = node.tagName!;
  const name = attr(node, 'name') ?? '';
  if (tag === 'select') {
    const options = collect(node, 'option');
    const values = options.map((o) => attr(o, 'value') ?? textOf(o).trim());
    const selected = options.findIndex((o) => attr(o, 'selected') !== undefined);
    if (name) form.fields.push({ name, type: 'select', value: values[Math.max(0, selected)] ?? '', options: values });
    return;
  }
  if (tag === 'textarea') {
    if (name) form.fields.push({ name, type: 'textarea', value: textOf(node) });
    return;
  }
  const type = (attr(node, 'type') ?? (tag === 'button' ? 'submit' : 'text')).toLowerCase();
  if (type === 'submit' || type === 'image') form.submitLabels.push(attr(node, 'value') ?? textOf(node).trim());
  if (!name) return;
  const field: RawField = { name, type, value: attr(node, 'value') ?? (type === 'checkbox' || type === 'radio' ? 'on' : '') };
  if (type === 'checkbox' || type === 'radio') field.checked = attr(node, 'checked') !== undefined;
  form.fields.push(field);
}

function collect(node: Node, tag: string): Node[] {
  const out: Node[] = [];
  for (const child of node.childNodes ?? []) {
    if (child.tagName === tag) out.push(child);
    else out.push(...collect(child, tag));
  }
  return out;
}
