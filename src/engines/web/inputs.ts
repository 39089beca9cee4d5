/**
 * Endpoints and their inputs: the key that makes two links one endpoint, the inputs a check may
 * change, and the request that sends an endpoint with one input changed (every other input keeps
 * its baseline value). Checks build every probe with `requestFor`, so that query, form-encoded and
 * multipart bodies, headers and cookies are encoded in one place.
 */
import { randomBytes } from 'node:crypto';
import type { Endpoint, FormField, InputPoint, WebRequest } from './contract.js';

/** Same method, path and parameter names: one endpoint (values do not matter). */
export function endpointKey(method: string, url: string, query: Array<[string, string]>, fields: FormField[] = []): string {
  const names = (list: string[]): string => [...new Set(list)].sort().join('&');
  return `${method} ${url.replace(/[?#].*$/, '')}?${names(query.map(([name]) => name))}|${names(fields.map((field) => field.name))}`;
}

/** Query and form inputs, file fields excepted (the upload check's): what a check tests unless its `appliesTo` says otherwise. */
export function isTextInput(point: InputPoint): boolean {
  return (point.location === 'query' || point.location === 'body') && point.fieldType !== 'file';
}

/** The inputs of an endpoint a check may change: its query parameters and its form fields. */
export function inputsOf(endpoint: Endpoint): InputPoint[] {
  const points: InputPoint[] = [];
  const seen = new Set<string>();
  for (const [name, value] of endpoint.query) {
    if (seen.has(`q:${name}`)) continue;
    seen.add(`q:${name}`);
    points.push({ endpoint, location: 'query', name, value });
  }
  for (const field of endpoint.body?.fields ?? []) {
    if (!field.name || field.type === 'submit' || field.type === 'button' || field.type === 'image' || field.type === 'reset') continue;
    if (seen.has(`b:${field.name}`)) continue;
    seen.add(`b:${field.name}`);
    points.push({ endpoint, location: 'body', name: field.name, value: field.value, fieldType: field.type });
  }
  return points;
}

/** A file sent in a multipart field. */
export interface UploadFile {
  filename: string;
  contentType: string;
  content: string | Uint8Array;
}

/** What to change in the baseline request. */
export interface Change {
  /** The input and its new value. */
  point?: InputPoint;
  value?: string;
  /** For `file` fields of multipart forms: the file to send in that field. */
  files?: Record<string, UploadFile>;
  /** Extra headers (a check probing a header input sets it here). */
  headers?: Record<string, string>;
}

/** The endpoint sent with its own values. */
export function baselineRequest(endpoint: Endpoint): WebRequest {
  return requestFor(endpoint, {});
}

/** The endpoint with one input set to `value` (header and cookie inputs become request headers). */
export function requestFor(endpoint: Endpoint, change: Change): WebRequest {
  const { point, value } = change;
  const query = endpoint.query.map(([name, current]): [string, string] => [name, point?.location === 'query' && point.name === name ? (value ?? '') : current]);
  const url = new URL(endpoint.url);
  url.search = '';
  const search = new URLSearchParams(query).toString();
  const href = search ? `${url.href}?${search}` : url.href;
  const headers: Record<string, string> = { ...(change.headers ?? {}) };
  if (point?.location === 'header') headers[point.name] = value ?? '';
  if (point?.location === 'cookie') headers.cookie = `${point.name}=${value ?? ''}`;
  if (endpoint.method === 'GET' || !endpoint.body) return { method: endpoint.method, url: href, headers };
  const fields = endpoint.body.fields.map((field) => (point?.location === 'body' && point.name === field.name ? { ...field, value: value ?? '' } : field));
  if (endpoint.body.encoding === 'multipart') {
    const { body, contentType } = multipart(fields, change.files ?? {});
    return { method: 'POST', url: href, headers: { ...headers, 'content-type': contentType }, body };
  }
  const form = new URLSearchParams();
  for (const field of fields) if (field.name && field.type !== 'file') form.append(field.name, field.value);
  return { method: 'POST', url: href, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() };
}

/** A multipart/form-data body: text fields as they are, file fields empty unless `files` names them. */
export function multipart(fields: FormField[], files: Record<string, UploadFile>): { body: Uint8Array; contentType: string } {
  const boundary = `----RampartBoundary${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  const quote = (text: string): string => text.replace(/["\r\n]/g, (c) => encodeURIComponent(c));
  for (const field of fields) {
    if (!field.name) continue;
    if (field.type === 'file') {
      const file = files[field.name] ?? { filename: '', contentType: 'application/octet-stream', content: '' };
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quote(field.name)}"; filename="${quote(file.filename)}"\r\nContent-Type: ${file.contentType}\r\n\r\n`));
      parts.push(Buffer.from(file.content));
      parts.push(Buffer.from('\r\n'));
    } else {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quote(field.name)}"\r\n\r\n${field.value}\r\n`));
    }
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}
