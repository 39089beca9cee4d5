/**
 * A streaming XML reader that refuses what makes XML dangerous. The file is fed to saxes chunk by
 * chunk and never held whole; an importer names the elements it wants as *records* (an nmap
 * `host`, a GMP `result`, a ZAP `alertitem`), and only those subtrees are built, one at a time.
 *
 * Safety: a DOCTYPE with an internal subset (`[...]`, where entities are declared) or an external
 * identifier (SYSTEM / PUBLIC) is refused before anything else is read, so there is no XXE and no
 * billion laughs; saxes itself expands only the five predefined entities and character references.
 * A bare `<!DOCTYPE nmaprun>`, as nmap writes it, is accepted.
 */
import { SaxesParser } from 'saxes';
import { AppError } from '../../shared/errors.js';

/** One element of a record, with its attributes, its own text and its child elements. */
export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  /** The element's own text (text and CDATA directly inside it, concatenated). */
  text: string;
  children: XmlNode[];
}

/** What the reader yields: an element opened outside any record, or a whole record. */
export type XmlItem =
  | { kind: 'open'; path: readonly string[]; node: XmlNode }
  | { kind: 'record'; path: readonly string[]; node: XmlNode };

/** Decides whether an element (by its path from the root, itself last) is a record. */
export type RecordPredicate = (path: readonly string[]) => boolean;

/** Elements in one record at most: a record larger than this is a hostile or broken file. */
const MAX_RECORD_NODES = 200_000;
/** Deepest nesting accepted (scanner reports nest a dozen levels; 25 MB of `<a>` would nest millions). */
const MAX_DEPTH = 256;

function refuseDoctype(doctype: string): void {
  if (/\[/.test(doctype) || /\b(SYSTEM|PUBLIC)\b/.test(doctype) || /<!ENTITY/i.test(doctype)) {
    throw new AppError('validation_failed', 'XML with a DOCTYPE that declares entities, an internal subset or external references is refused.');
  }
}

/**
 * Reads XML from a byte stream, yielding `open` for every element opened outside a record and
 * `record` for every complete record. Parse errors throw AppError('validation_failed').
 */
export async function* readXml(source: AsyncIterable<Uint8Array | string>, isRecord: RecordPredicate): AsyncGenerator<XmlItem> {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const path: string[] = [];
  const pending: XmlItem[] = [];
  // The open elements of the record being built; empty when outside a record.
  const building: XmlNode[] = [];
  let recordDepth = -1;
  let recordNodes = 0;
  let failure: unknown = null;

  parser.on('doctype', (doctype) => {
    try {
      refuseDoctype(doctype);
    } catch (error) {
      failure = error;
    }
  });
  parser.on('opentag', (tag) => {
    const attrs: Record<string, string> = {};
    for (const [key, value] of Object.entries(tag.attributes)) attrs[key] = String(value);
    const node: XmlNode = { name: tag.name, attrs, text: '', children: [] };
    path.push(tag.name);
    if (path.length > MAX_DEPTH) failure ??= new AppError('validation_failed', `The XML nests deeper than ${MAX_DEPTH} elements.`);
    // After a failure the rest of the chunk is only skimmed: nothing is built or queued.
    if (failure !== null) return;
    if (building.length > 0) {
      if (++recordNodes > MAX_RECORD_NODES) failure ??= new AppError('validation_failed', `An XML <${path[recordDepth]}> element is too large to import.`);
      building[building.length - 1]!.children.push(node);
      building.push(node);
    } else if (isRecord(path)) {
      recordDepth = path.length - 1;
      recordNodes = 1;
      building.push(node);
    } else {
      pending.push({ kind: 'open', path: [...path], node });
    }
  });
  const onText = (text: string): void => {
    if (building.length > 0) building[building.length - 1]!.text += text;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    if (failure !== null) {
      path.pop();
      return;
    }
    if (building.length > 0) {
      const node = building.pop()!;
      if (building.length === 0) {
        pending.push({ kind: 'record', path: [...path], node });
        recordDepth = -1;
      }
    }
    path.pop();
  });
  parser.on('error', (error) => {
    failure ??= new AppError('validation_failed', `The XML is not well-formed: ${error.message}`);
  });

  const decoder = new TextDecoder('utf-8');
  const feed = (text: string): void => {
    if (failure === null && text.length > 0) parser.write(text);
  };
  for await (const chunk of source) {
    feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    if (failure !== null) throw failure;
    yield* pending.splice(0);
  }
  feed(decoder.decode());
  if (failure === null) parser.close();
  if (failure !== null) throw failure;
  yield* pending.splice(0);
}

/** The first child element called `name`. */
export function child(node: XmlNode | undefined, name: string): XmlNode | undefined {
  return node?.children.find((c) => c.name === name);
}

/** Every child element called `name`. */
export function childrenNamed(node: XmlNode | undefined, name: string): XmlNode[] {
  return node ? node.children.filter((c) => c.name === name) : [];
}

/** The trimmed text of the first child called `name`, or '' when absent. */
export function childText(node: XmlNode | undefined, name: string): string {
  return child(node, name)?.text.trim() ?? '';
}

/** All the text in an element and its descendants, in document order. */
export function deepText(node: XmlNode): string {
  return node.text + node.children.map(deepText).join('');
}
