/**
 * XPath over HTML and XML bodies, as nuclei does with antchfx htmlquery/xmlquery: a body that
 * starts with `<?xml` is parsed as XML (@xmldom/xmldom, no external entities), anything else as
 * HTML with parse5 (the browsers' parsing rules, so broken markup still gives a tree), copied into
 * an xmldom document so the `xpath` package (XPath 1.0) can query it.
 * Additions for what the corpus uses: XPath 2.0 `matches(text, pattern[, flags])` with a Go
 * regex; prefixed names (`wfs:Name`) resolve with the document's own `xmlns:` declarations;
 * unprefixed names match elements of any namespace.
 */
import { createRequire } from 'node:module';
import { DOMImplementation, DOMParser } from '@xmldom/xmldom';
import type { Document as XmlDocument, Node as XmlNode, Element as XmlElement } from '@xmldom/xmldom';
import { parse as parseHtml } from 'parse5';
import { compileGoRegex } from './re2.js';
import { OperatorCompileError } from './types.js';

/** The few members of xmldom nodes this module reads. */
interface DomNode {
  nodeType: number;
  nodeValue: string | null;
  textContent: string | null;
  getAttribute?(name: string): string | null;
  hasAttribute?(name: string): boolean;
  attributes?: { length: number; item(i: number): { name: string; value: string } | null };
  childNodes?: { length: number; item(i: number): DomNode | null };
}

/** The result of an XPath value, as the `xpath` package gives it to custom functions. */
interface XPathValue {
  stringValue(): string;
}

interface XPathEvaluator {
  evaluate(options: Record<string, unknown>): { nodeset?(): unknown } & XPathValue & { booleanValue(): boolean };
}

interface XPathModule {
  parse(expression: string): XPathEvaluator;
  XBoolean: new (value: boolean) => unknown;
  XNodeSet: new () => unknown;
}

// Loaded untyped on purpose: the package's typings pull the browser DOM lib into the whole build.
const xp = createRequire(import.meta.url)('xpath') as XPathModule;

/** A compiled XPath expression (compilation catches syntax errors at template load). */
export interface CompiledXPath {
  source: string;
  evaluator: XPathEvaluator;
}

/** Compiles an XPath expression or throws OperatorCompileError. */
export function compileXPath(expression: string): CompiledXPath {
  try {
    return { source: expression, evaluator: xp.parse(expression) };
  } catch (error) {
    throw new OperatorCompileError(`xpath not supported (${(error as Error).message}): ${expression}`);
  }
}

interface Parse5Node {
  nodeName: string;
  tagName?: string;
  value?: string;
  data?: string;
  attrs?: Array<{ name: string; value: string }>;
  childNodes?: Parse5Node[];
}

/** A parsed document plus the namespace prefixes it declares. */
export interface ParsedDocument {
  root: DomNode;
  namespaces: Record<string, string>;
}

function copyHtml(source: Parse5Node, doc: XmlDocument, into: XmlNode): void {
  for (const child of source.childNodes ?? []) {
    if (child.nodeName === '#text') {
      into.appendChild(doc.createTextNode(child.value ?? ''));
    } else if (child.nodeName === '#comment') {
      into.appendChild(doc.createComment(child.data ?? ''));
    } else if (child.tagName !== undefined) {
      let element: XmlElement;
      try {
        element = doc.createElement(child.tagName);
      } catch {
        continue; // a tag name XML refuses: neither it nor its subtree can be queried
      }
      for (const a of child.attrs ?? []) {
        try {
          element.setAttribute(a.name, a.value);
        } catch {
          // an attribute name XML refuses (`@click`): dropped
        }
      }
      into.appendChild(element);
      copyHtml(child, doc, element);
    }
  }
}

function collectNamespaces(node: DomNode, out: Record<string, string>, depth = 0): void {
  if (depth > 200) return;
  const attrs = node.attributes;
  if (attrs) {
    for (let i = 0; i < attrs.length; i++) {
      const a = attrs.item(i);
      if (a && a.name.startsWith('xmlns:') && out[a.name.slice(6)] === undefined) out[a.name.slice(6)] = a.value;
    }
  }
  const kids = node.childNodes;
  if (kids) for (let i = 0; i < kids.length; i++) {
    const k = kids.item(i);
    if (k && k.nodeType === 1) collectNamespaces(k, out, depth + 1);
  }
}

/** Parses a body as XML (when it starts with `<?xml`) or HTML; undefined when XML is malformed. */
export function parseDocument(corpus: string): ParsedDocument | undefined {
  if (corpus.startsWith('<?xml')) {
    try {
      const doc = new DOMParser({
        onError: (level: string, message: string) => {
          if (level !== 'warning') throw new Error(message);
        },
      }).parseFromString(corpus, 'text/xml') as unknown as DomNode;
      const namespaces: Record<string, string> = {};
      collectNamespaces(doc, namespaces);
      return { root: doc, namespaces };
    } catch {
      return undefined;
    }
  }
  const html = parseHtml(corpus) as unknown as Parse5Node;
  const doc = new DOMImplementation().createDocument(null, '', null);
  copyHtml(html, doc, doc);
  return { root: doc as unknown as DomNode, namespaces: {} };
}

const functions = {
  matches(_context: unknown, text: XPathValue, pattern: XPathValue, flags?: XPathValue): unknown {
    const source = pattern.stringValue();
    const f = flags?.stringValue() ?? '';
    try {
      const re = compileGoRegex(f.includes('i') ? `(?i)${source}` : source);
      return new xp.XBoolean(re.test(text.stringValue()));
    } catch {
      return new xp.XBoolean(false);
    }
  },
};

/** One value an XPath query selected: a node (element, attribute, text) or a computed value. */
export interface XPathHit {
  node?: DomNode;
  value: string;
}

/**
 * Runs a query: the selected nodes with their text (an attribute's value, an element's inner
 * text); a query that computes a value (`concat(...)`) gives that value when non-empty.
 * A query that fails at run time gives nothing.
 */
export function queryDocument(doc: ParsedDocument, query: CompiledXPath): XPathHit[] {
  let result;
  try {
    result = query.evaluator.evaluate({
      node: doc.root,
      namespaces: doc.namespaces,
      functions,
      allowAnyNamespaceForNoPrefix: true,
    });
  } catch {
    return [];
  }
  if (result instanceof (xp.XNodeSet as unknown as new () => object) && typeof result.nodeset === 'function') {
    const nodes = (result.nodeset() as { toArray(): DomNode[] }).toArray();
    return nodes.map((node) => ({ node, value: node.nodeType === 2 ? node.nodeValue ?? '' : node.textContent ?? '' }));
  }
  if (result instanceof (xp.XBoolean as unknown as new () => object)) {
    return result.booleanValue() ? [{ value: 'true' }] : [];
  }
  const value = result.stringValue();
  return value === '' ? [] : [{ value }];
}

/** The value of an attribute of a selected element ('' when absent or not an element). */
export function attributeOf(hit: XPathHit, name: string): string {
  const node = hit.node;
  if (!node || node.nodeType !== 1 || !node.getAttribute) return '';
  return node.getAttribute(name) ?? '';
}
