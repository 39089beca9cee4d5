/**
 * A form as the crawler found it, turned into the endpoint a browser would submit: radio groups
 * as one field (the checked or first option), checkboxes sent checked (so the checks reach the
 * code behind them), the first named submit button, and a plausible value in every empty field
 * a user would type into, chosen by its type and name so that validation on the server lets the
 * request through to the code the checks test.
 */
import type { Endpoint, FormField } from '../contract.js';
import { endpointKey } from '../inputs.js';
import type { RawField, RawForm } from './html.js';

/** Values by input type, for empty fields. */
const BY_TYPE: Record<string, string> = {
  email: 'rampart@example.com',
  url: 'https://example.com/',
  tel: '5555550100',
  number: '1',
  range: '1',
  date: '2024-01-01',
  'datetime-local': '2024-01-01T12:00',
  month: '2024-01',
  week: '2024-W01',
  time: '12:00',
  color: '#336699',
  password: 'Rampart-Passw0rd!',
  search: 'test',
};

/** Values by field name, for empty text fields (first match wins). */
const BY_NAME: Array<[RegExp, string]> = [
  [/e-?mail/i, BY_TYPE.email!],
  [/(?:^|_)(?:url|uri|link|website|site|homepage)$/i, BY_TYPE.url!],
  [/phone|mobile|tel/i, BY_TYPE.tel!],
  [/zip|postal|postcode/i, '12345'],
  [/date|birthday|dob/i, BY_TYPE.date!],
  [/(?:^|_)(?:id|age|qty|quantity|count|amount|num|number|page|year|port)$/i, '1'],
  [/^(?:q|query|search|s|keyword|keywords|term)$/i, 'test'],
  [/user|login|name|first|last|nick/i, 'rampart'],
  [/pass|pwd/i, BY_TYPE.password!],
  [/host|ip|addr/i, '127.0.0.1'],
  [/file|path|doc/i, 'index.html'],
];

/** A plausible value for an empty field a user would fill. */
export function plausibleValue(type: string, name: string): string {
  if (type !== 'text' && type !== 'textarea' && BY_TYPE[type] !== undefined) return BY_TYPE[type]!;
  for (const [pattern, value] of BY_NAME) if (pattern.test(name)) return value;
  return type === 'textarea' ? 'Rampart test comment' : 'rampart';
}

/** The fields a browser would send, filled. */
export function formFields(raw: RawField[]): FormField[] {
  const fields: FormField[] = [];
  const radios = new Map<string, FormField>();
  let submit = false;
  for (const field of raw) {
    if (field.type === 'radio') {
      const group = radios.get(field.name);
      if (group) {
        group.options!.push(field.value);
        if (field.checked) group.value = field.value;
        continue;
      }
      const made: FormField = { name: field.name, type: 'radio', value: field.value, options: [field.value] };
      radios.set(field.name, made);
      fields.push(made);
      continue;
    }
    if (field.type === 'submit' || field.type === 'image') {
      // A browser sends the button clicked: the first one.
      if (submit) continue;
      submit = true;
      fields.push({ name: field.name, type: 'submit', value: field.value });
      continue;
    }
    if (field.type === 'button' || field.type === 'reset') continue;
    const empty = field.value === '' && field.type !== 'hidden' && field.type !== 'file' && field.type !== 'select';
    fields.push({ name: field.name, type: field.type, value: empty ? plausibleValue(field.type, field.name) : field.value, ...(field.options ? { options: field.options } : {}) });
  }
  return fields;
}

/** The endpoint of a form found on `foundOn`. */
export function formEndpoint(form: RawForm, foundOn: string): Endpoint {
  const action = new URL(form.action);
  const fields = formFields(form.fields);
  const url = `${action.origin}${action.pathname}`;
  if (form.method === 'GET') {
    // A GET form replaces the action's query with its fields, as browsers do.
    const query = fields.filter((f) => f.type !== 'file').map((f): [string, string] => [f.name, f.value]);
    return { method: 'GET', url, query, foundOn, source: 'form', key: endpointKey('GET', url, query) };
  }
  const query = [...action.searchParams.entries()];
  const encoding = form.enctype === 'multipart' || fields.some((f) => f.type === 'file') ? 'multipart' : 'urlencoded';
  return { method: 'POST', url, query, body: { encoding, fields }, foundOn, source: 'form', key: endpointKey('POST', url, query, fields) };
}

/** The endpoint of a link (a GET of its URL). */
export function linkEndpoint(href: string, foundOn: string, source: Endpoint['source']): Endpoint {
  const parsed = new URL(href);
  const url = `${parsed.origin}${parsed.pathname}`;
  const query = [...parsed.searchParams.entries()];
  return { method: 'GET', url, query, foundOn, source, key: endpointKey('GET', url, query) };
}

/** The URL a GET endpoint is fetched at. */
export function endpointHref(endpoint: Endpoint): string {
  const search = new URLSearchParams(endpoint.query).toString();
  return search ? `${endpoint.url}?${search}` : endpoint.url;
}
