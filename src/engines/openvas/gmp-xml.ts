/**
 * The XML side of GMP (Greenbone Management Protocol): commands built as elements with every text
 * and attribute escaped (a scan name or password may hold `<`, `&` or quotes), and the reading of
 * a reply's status. A command is one XML element; gvmd answers with one `<{command}_response
 * status="..." status_text="...">` document (../shared/reference/engines.md section 2).
 */

/** One GMP command, ready to write: its name (for the protocol rules) and its bytes. */
export interface GmpCommand {
  name: string;
  xml: string;
}

/** A child element: a name, its attributes, and its text or its own children. */
export interface GmpElement {
  name: string;
  attrs?: Record<string, string>;
  content?: string | GmpElement[];
}

/** Escapes text content (`&`, `<`, `>`) and, with `attribute`, quotes too. */
export function escapeXml(text: string, attribute = false): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  // Characters XML 1.0 cannot carry at all are dropped rather than sent to break the document.
  const clean = escaped.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');
  return attribute ? clean.replace(/"/g, '&quot;').replace(/'/g, '&apos;') : clean;
}

function render(element: GmpElement): string {
  const attrs = Object.entries(element.attrs ?? {})
    .map(([key, value]) => ` ${key}="${escapeXml(value, true)}"`)
    .join('');
  const { content } = element;
  if (content === undefined || (Array.isArray(content) && content.length === 0)) return `<${element.name}${attrs}/>`;
  const inner = typeof content === 'string' ? escapeXml(content) : content.map(render).join('');
  return `<${element.name}${attrs}>${inner}</${element.name}>`;
}

/** A GMP command: `gmpCommand('delete_task', { task_id, ultimate: '1' })`. */
export function gmpCommand(name: string, attrs: Record<string, string> = {}, children: GmpElement[] = []): GmpCommand {
  return { name, xml: render({ name, attrs, content: children }) };
}

/** A reply's status, as its root element's attributes give it. */
export interface GmpStatus {
  code: number;
  text: string;
}

/** The status of a reply's root element (a missing or garbled status reads as 0). */
export function statusOf(attrs: Record<string, string>): GmpStatus {
  const code = Number(attrs.status);
  return { code: Number.isInteger(code) ? code : 0, text: attrs.status_text ?? '' };
}

/** Whether a status is a success (gvmd answers 200, 201 or 202). */
export function isSuccess(status: GmpStatus): boolean {
  return status.code >= 200 && status.code < 300;
}
