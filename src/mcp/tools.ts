/**
 * The MCP tools: one per API operation. A tool is named here and tied to its route; its input
 * schema is the route's own path, query and body schemas merged into one object, its output
 * schema the route's success response, and its description the route's summary and description.
 * So a tool can never drift from the endpoint it stands for.
 */
import type { RouteOptions } from 'fastify';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

type JsonSchema = Record<string, unknown>;

/** How a tool maps onto its route. */
export interface ToolSpec {
  name: string;
  title: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The route as Fastify knows it, e.g. `/api/scans/:uuid`. */
  url: string;
  annotations: ToolAnnotations;
  /** Said before the route's own description. */
  note?: string;
}

const read = (title: string): ToolAnnotations => ({ title, readOnlyHint: true, openWorldHint: false });
const write = (title: string, options: { destructive?: boolean; idempotent?: boolean; openWorld?: boolean } = {}): ToolAnnotations => ({
  title,
  readOnlyHint: false,
  destructiveHint: options.destructive ?? false,
  idempotentHint: options.idempotent ?? false,
  openWorldHint: options.openWorld ?? false,
});

function spec(name: string, method: ToolSpec['method'], url: string, annotations: ToolAnnotations, note?: string): ToolSpec {
  return { name, title: annotations.title!, method, url, annotations, ...(note ? { note } : {}) };
}

/**
 * Every API operation an agent may call, in the order tools are listed. The admins' accounts
 * routes (/api/admin/users) are left out on purpose (docs/DECISIONS.md "Changing a plan").
 */
export const ROUTE_TOOLS: ToolSpec[] = [
  spec('user_show', 'GET', '/api/user', read('Show the signed-in account')),
  spec('scans_list', 'GET', '/api/scans', read('List scans')),
  spec('scans_create', 'POST', '/api/new-scan', write('Create a scan', { openWorld: true }), 'Managed scans reach the network: only scan targets you are allowed to test.'),
  spec('scans_show', 'GET', '/api/scans/:uuid', read('Show a scan')),
  spec('scans_update', 'PUT', '/api/scans/:uuid', write('Update a scan', { idempotent: true })),
  spec('scans_delete', 'DELETE', '/api/scans/:uuid', write('Delete a scan', { destructive: true, idempotent: true })),
  spec('scans_rerun', 'POST', '/api/scans/:uuid/rerun', write('Run a scan again now', { openWorld: true })),
  spec('scans_runs', 'GET', '/api/scans/:uuid/runs', read("List a scan's runs")),
  spec('scans_schedule', 'GET', '/api/scans/:uuid/schedule', read("Preview a scan's next runs")),
  spec('vulnerabilities_list', 'GET', '/api/vulnerabilities', read('List vulnerabilities')),
  spec('vulnerabilities_show', 'GET', '/api/vulnerabilities/:id', read('Show a vulnerability')),
  spec('vulnerabilities_accept', 'POST', '/api/vulnerabilities/:id/accept', write('Accept a vulnerability', { idempotent: true })),
  spec('vulnerabilities_false_positive', 'POST', '/api/vulnerabilities/:id/false-positive', write('Mark a vulnerability as a false positive', { idempotent: true })),
  spec('vulnerabilities_undo', 'POST', '/api/vulnerabilities/:id/undo', write("Reset a vulnerability's status to Unresolved", { idempotent: true })),
  spec('targets_list', 'GET', '/api/targets', read('List targets')),
  spec('targets_show', 'GET', '/api/targets/:id', read('Show a target')),
  spec('targets_delete', 'DELETE', '/api/targets/:id', write('Delete a target and its vulnerabilities', { destructive: true, idempotent: true })),
  spec('targets_vulnerabilities', 'GET', '/api/targets/:id/vulnerabilities', read("List a target's vulnerabilities")),
  spec('webhooks_list', 'GET', '/api/webhooks', read('List webhooks')),
  spec('webhooks_create', 'POST', '/api/webhooks', write('Create a webhook')),
  spec('webhooks_update', 'PUT', '/api/webhooks/:id', write('Update a webhook', { idempotent: true })),
  spec('webhooks_delete', 'DELETE', '/api/webhooks/:id', write('Delete a webhook', { destructive: true, idempotent: true })),
  spec('webhooks_test', 'POST', '/api/webhooks/:id/test', write('Send a test event to a webhook', { openWorld: true })),
  spec('webhooks_deliveries', 'GET', '/api/webhooks/:id/deliveries', read("List a webhook's recent deliveries")),
];

/** The parts of a route's schema a tool is built from. */
export interface RouteSchema {
  summary?: string;
  description?: string;
  params?: JsonSchema;
  querystring?: JsonSchema;
  body?: JsonSchema;
  response?: Record<string, JsonSchema>;
}

/** Remembers each route's schema as it is registered (an `onRoute` hook), by `METHOD url`. */
export function routeCatalog(): { record(route: RouteOptions): void; get(method: string, url: string): RouteSchema | undefined } {
  const routes = new Map<string, RouteSchema>();
  return {
    record(route) {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) routes.set(`${method} ${route.url}`, (route.schema ?? {}) as RouteSchema);
    },
    get: (method, url) => routes.get(`${method} ${url}`),
  };
}

/**
 * `{ type: [T, 'null'] }` (how the API's schemas say "nullable", for one clear validation message)
 * as `anyOf` branches of one type each: clients that map tool schemas onto single-type dialects
 * (the OpenAPI subset some model providers use) accept that spelling.
 */
function singleTypes(schema: Record<string, unknown>): Record<string, unknown> {
  const type = schema.type;
  if (!Array.isArray(type) || type.length !== 2 || !type.includes('null')) return schema;
  const { type: _type, description, title, default: fallback, enum: values, ...rest } = schema;
  const branch = { type: type.find((t) => t !== 'null'), ...rest, ...(Array.isArray(values) ? { enum: values.filter((v) => v !== null) } : {}) };
  return {
    ...(title !== undefined ? { title } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(fallback !== undefined ? { default: fallback } : {}),
    anyOf: [branch, { type: 'null' }],
  };
}

/**
 * A schema as plain, portable JSON Schema: `$ref`s to shared schemas (`Type.Ref('Scan')`)
 * replaced by the schema, nullable types spelled as `anyOf`.
 */
export function inlineRefs(schema: unknown, shared: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inlineRefs(item, shared));
  if (schema === null || typeof schema !== 'object') return schema;
  const object = schema as Record<string, unknown>;
  if (typeof object.$ref === 'string') {
    const target = shared[object.$ref];
    if (!target) throw new Error(`unknown schema reference ${object.$ref}`);
    return inlineRefs(target, shared);
  }
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) if (key !== '$id') copy[key] = inlineRefs(value, shared);
  return singleTypes(copy);
}

/** Where each argument of a tool goes: the path, the query string or the body. */
export interface ArgumentPlaces {
  path: string[];
  query: string[];
  body: string[];
  /** The route takes a JSON body (possibly an empty object). */
  hasBody: boolean;
}

const propertiesOf = (schema: JsonSchema | undefined) => Object.keys((schema?.properties as JsonSchema | undefined) ?? {});

/** One input object from the route's path, query and body schemas. */
export function inputSchemaOf(route: RouteSchema, shared: Record<string, unknown>): { schema: JsonSchema; places: ArgumentPlaces } {
  const parts = [route.params, route.querystring, route.body].map((part) => (part ? (inlineRefs(part, shared) as JsonSchema) : undefined));
  const properties: JsonSchema = {};
  const required: string[] = [];
  for (const part of parts) {
    Object.assign(properties, (part?.properties as JsonSchema | undefined) ?? {});
    required.push(...(((part?.required as string[] | undefined) ?? [])));
  }
  return {
    schema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}) },
    places: { path: propertiesOf(route.params), query: propertiesOf(route.querystring), body: propertiesOf(route.body), hasBody: route.body !== undefined },
  };
}

/** The route's success response (200, 201 or 202) as a self-contained schema, when it is JSON. */
export function outputSchemaOf(route: RouteSchema, shared: Record<string, unknown>): JsonSchema | undefined {
  const response = route.response ?? {};
  const success = response['200'] ?? response['201'] ?? response['202'];
  const schema = success ? (inlineRefs(success, shared) as JsonSchema) : undefined;
  return schema?.type === 'object' ? schema : undefined;
}

/** The tool's description: its note, then the route's summary and description. */
export function descriptionOf(tool: ToolSpec, route: RouteSchema): string {
  return [tool.note, route.summary ? `${route.summary}.` : undefined, route.description].filter(Boolean).join(' ');
}
