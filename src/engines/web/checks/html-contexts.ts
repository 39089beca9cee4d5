/**
 * Reading HTML the way a browser does (parse5), for the XSS and open-redirect checks: where a
 * reflected marker lands (`reflectionContexts`), and whether a payload's code arrived where a
 * browser would run it (`findExecutable`). Escaped or encoded reflections parse as text or as an
 * attribute's value, so they never count: only the parsed tree decides.
 *
 * Glossary: the *marker* is a harmless unique token sent first to see where input lands; the
 * *code* is the payload's JavaScript (`console.log(/<token>/)`), unique per payload, looked for in
 * an executable position once the payload was sent.
 */
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import { compilesAsHandler, compilesAsScript, jsStateAt, runsAsCode, type JsState } from './js-scan.js';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

/** The JavaScript a payload runs: harmless (it logs), and unique per payload so that its arrival is unambiguous. */
export function xssCode(token: string): string {
  return `console.log(/${token}/)`;
}

/** Where a marker landed in a page. */
export type ReflectionContext =
  /** Text between tags (`<p>marker</p>`). */
  | { kind: 'text' }
  /** Text of an element whose content is not markup (`<textarea>`, `<title>`, `<style>`...): closing it is the way out. */
  | { kind: 'raw-text'; tag: string }
  | { kind: 'comment' }
  /** An attribute's value; `url`: a URL attribute whose value starts with the marker; `js`: the state there when the attribute is an event handler. */
  | { kind: 'attribute'; tag: string; name: string; quote: '"' | "'" | ''; url: boolean; js?: JsState }
  /** Inside an executable script, in the given lexical state. */
  | { kind: 'script'; state: JsState };

/** Elements whose content the HTML parser does not read as markup. */
const RAW_TEXT = new Set(['textarea', 'title', 'style', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'plaintext']);

/** Attributes where a `javascript:` URL runs, by element. */
const URL_ATTRIBUTES: Record<string, string[]> = {
  a: ['href'],
  area: ['href'],
  iframe: ['src'],
  frame: ['src'],
  form: ['action'],
  button: ['formaction'],
  input: ['formaction'],
  object: ['data'],
  embed: ['src'],
};

/** MIME types (and `module`) that make a `<script>` executable. */
const SCRIPT_TYPES = /^(?:|module|(?:text|application)\/(?:x-)?(?:javascript|ecmascript)|text\/jscript|text\/livescript)$/;

/** The page's tree, with source locations (to tell how an attribute was quoted). */
export function parseHtml(html: string): DefaultTreeAdapterMap['document'] {
  return parse(html, { sourceCodeLocationInfo: true });
}

/** Every element of the tree in document order (template contents are inert and left out). */
export function* elementsOf(node: Node): Generator<Element> {
  if ('tagName' in node) yield node;
  if ('childNodes' in node) for (const child of node.childNodes) yield* elementsOf(child);
}

/** Whether a `<script>` element would run (its type is JavaScript). */
export function isExecutableScript(element: Element): boolean {
  const type = element.attrs.find((a) => a.name === 'type')?.value.trim().toLowerCase().replace(/;.*$/, '') ?? '';
  return element.tagName === 'script' && SCRIPT_TYPES.test(type);
}

/** The text content of an element (a script's source). */
export function textOf(element: Element): string {
  return element.childNodes.map((child) => (child.nodeName === '#text' && 'value' in child ? child.value : '')).join('');
}

/** Every context `marker` appears in, once each. */
export function reflectionContexts(html: string, marker: string): ReflectionContext[] {
  if (!html.includes(marker)) return [];
  const found = new Map<string, ReflectionContext>();
  const add = (context: ReflectionContext): void => {
    found.set(JSON.stringify(context), context);
  };
  const visit = (node: Node): void => {
    if (node.nodeName === '#comment' && 'data' in node && node.data.includes(marker)) add({ kind: 'comment' });
    if (node.nodeName === '#text' && 'value' in node && node.value.includes(marker)) {
      const parent = node.parentNode && 'tagName' in node.parentNode ? node.parentNode : null;
      if (parent && isExecutableScript(parent)) add({ kind: 'script', state: jsStateAt(textOf(parent), textOf(parent).indexOf(marker)) });
      else if (parent && (RAW_TEXT.has(parent.tagName) || parent.tagName === 'script')) add({ kind: 'raw-text', tag: parent.tagName });
      else add({ kind: 'text' });
    }
    if ('tagName' in node) {
      for (const attr of node.attrs) {
        if (!attr.value.includes(marker)) continue;
        const url = (URL_ATTRIBUTES[node.tagName] ?? []).includes(attr.name) && attr.value.trim().startsWith(marker);
        const handler = /^on[a-z]+$/.test(attr.name);
        add({ kind: 'attribute', tag: node.tagName, name: attr.name, quote: quoteOf(html, node, attr.name), url, ...(handler ? { js: jsStateAt(attr.value, attr.value.indexOf(marker)) } : {}) });
      }
    }
    if ('childNodes' in node) for (const child of node.childNodes) visit(child);
  };
  visit(parseHtml(html));
  return [...found.values()];
}

/** How an attribute was quoted in the source. */
function quoteOf(html: string, element: Element, name: string): '"' | "'" | '' {
  const location = element.sourceCodeLocation?.attrs?.[name];
  if (!location) return '"';
  const source = html.slice(location.startOffset, location.endOffset);
  const value = source.replace(/^[^=]*=\s*/, '');
  return value.startsWith('"') ? '"' : value.startsWith("'") ? "'" : '';
}

/** Where and how a payload's code would run. */
export interface ExecutableHit {
  /** `handler`: an event handler attribute; `script`: a script element's code; `url`: a `javascript:` URL. */
  kind: 'handler' | 'script' | 'url';
  tag: string;
  attribute?: string;
  /** The attribute's value or the script's source, as the browser reads it. */
  source: string;
}

/**
 * Where `code` would run if a browser loaded `html`: in an event handler attribute (decoded, as
 * the browser compiles it), in an executable script, or in a `javascript:` URL where one runs;
 * always outside strings and comments, and in JavaScript that compiles. Null: nowhere.
 */
export function findExecutable(html: string, code: string): ExecutableHit | null {
  for (const element of elementsOf(parseHtml(html))) {
    if (isExecutableScript(element)) {
      const source = textOf(element);
      if (runsAsCode(source, code, compilesAsScript)) return { kind: 'script', tag: 'script', source };
    }
    // A hidden input is never shown: its event handlers never fire.
    const hidden = element.tagName === 'input' && element.attrs.some((a) => a.name === 'type' && a.value.trim().toLowerCase() === 'hidden');
    for (const attr of element.attrs) {
      if (/^on[a-z]+$/.test(attr.name) && !hidden && runsAsCode(attr.value, code, compilesAsHandler)) return { kind: 'handler', tag: element.tagName, attribute: attr.name, source: attr.value };
      if ((URL_ATTRIBUTES[element.tagName] ?? []).includes(attr.name)) {
        const script = javascriptUrl(attr.value);
        if (script !== null && runsAsCode(script, code, compilesAsScript)) return { kind: 'url', tag: element.tagName, attribute: attr.name, source: attr.value };
      }
    }
  }
  return null;
}

/** How the summary names where the code would run. */
export function describeHit(hit: ExecutableHit): string {
  if (hit.kind === 'script') return 'code of a <script> element, outside any string or comment';
  if (hit.kind === 'url') return `a javascript: URL in the ${hit.attribute} attribute of ${anElement(hit.tag)}`;
  return `an ${hit.attribute} event handler of ${anElement(hit.tag)}`;
}

/** `a <div> element`, `an <img> element`. */
export function anElement(tag: string): string {
  return `${/^[aeiou]/.test(tag) ? 'an' : 'a'} <${tag}> element`;
}

/** The script of a `javascript:` URL as a browser runs it (percent-decoded), or null. */
function javascriptUrl(value: string): string | null {
  // Browsers strip leading and trailing C0 controls and spaces, and every tab and newline.
  const url = value.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
  if (!/^javascript:/i.test(url)) return null;
  try {
    return decodeURIComponent(url.slice('javascript:'.length));
  } catch {
    return null;
  }
}
