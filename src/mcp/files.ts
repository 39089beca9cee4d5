/**
 * The two operations whose answer is a file: a run's report and the vulnerability export.
 * Text (CSV, HTML, TXT, XML) comes back in the tool result, cut at INLINE_TEXT_BYTES on a line
 * boundary; the whole file, and every PDF, is a resource link. The link is the file's API URL,
 * which an MCP client reads with `resources/read` on the same session (and an HTTP client with
 * the same bearer token).
 */
import type { FastifyInstance } from 'fastify';
import type { CallToolResult, ReadResourceResult, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { REPORT_FORMATS, REPORT_MEDIA_TYPES, reportUrl, type ReportFormat } from '../reports/reports.service.js';
import { fieldError } from '../shared/errors.js';
import { callApi, isSuccess, toolError, type ApiResponse } from './dispatch.js';
import { inputSchemaOf, type RouteSchema } from './tools.js';

/** The most text a tool result carries inline (agents read it into a context window). */
export const INLINE_TEXT_BYTES = 256 * 1024;
/** The largest file `resources/read` returns (it is sent whole, in one JSON-RPC message). */
export const RESOURCE_BYTES = 25 * 1024 * 1024;

type JsonSchema = Record<string, unknown>;

export interface FileTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  call(args: Record<string, unknown>, token: string): Promise<CallToolResult>;
}

const FileOutputSchema = {
  type: 'object',
  properties: {
    uri: { type: 'string', description: 'The whole file: read it with resources/read, or GET it with the bearer token' },
    filename: { type: 'string' },
    media_type: { type: 'string' },
    bytes: { type: 'integer', description: 'Size of the whole file' },
    truncated: { type: 'boolean', description: 'The inline text is only the beginning of the file' },
  },
  required: ['uri', 'filename', 'media_type', 'bytes', 'truncated'],
} as const;

function filenameOf(response: ApiResponse): string {
  return /filename="([^"]+)"/.exec(String(response.headers['content-disposition'] ?? ''))?.[1] ?? 'download';
}

/** A tool result for a downloaded file: inline text (cut if long) and a link to the whole. */
function fileResult(response: ApiResponse, uri: string, extra: Record<string, unknown>): CallToolResult {
  const mediaType = String(response.headers['content-type'] ?? 'application/octet-stream');
  const filename = filenameOf(response);
  const bytes = response.rawPayload.length;
  const binary = !mediaType.startsWith('text/') && !mediaType.startsWith('application/xml');
  let text = binary ? '' : response.rawPayload.subarray(0, INLINE_TEXT_BYTES).toString('utf8');
  const truncated = !binary && bytes > INLINE_TEXT_BYTES;
  // Cut at the last complete line; a character split by the byte limit decodes as U+FFFD.
  if (truncated) text = text.slice(0, Math.max(0, text.lastIndexOf('\n') + 1));
  const link = { type: 'resource_link' as const, uri, name: filename, mimeType: mediaType.split(';')[0]!, size: bytes };
  const note = binary
    ? `${filename} (${bytes} bytes) is at ${uri}; read it with resources/read.`
    : truncated
      ? `The first ${Buffer.byteLength(text)} of ${bytes} bytes of ${filename} follow; the whole file is at ${uri}.`
      : undefined;
  return {
    content: [...(note ? [{ type: 'text' as const, text: note }] : []), ...(text ? [{ type: 'text' as const, text }] : []), link],
    structuredContent: { uri, filename, media_type: mediaType, bytes, truncated, ...extra },
  };
}

function queryString(args: Record<string, unknown>, names: string[]): string {
  const params = new URLSearchParams();
  for (const name of names) if (args[name] !== undefined && args[name] !== null && args[name] !== '') params.set(name, String(args[name]));
  const text = params.toString();
  return text ? `?${text}` : '';
}

export function fileTools(app: FastifyInstance, routes: { get(method: string, url: string): RouteSchema | undefined }, shared: Record<string, unknown>): FileTool[] {
  const base = app.ctx.config.baseUrl;
  const reportRoute = routes.get('GET', '/api/scans/pdf/:uuid')!;
  const report = inputSchemaOf(reportRoute, shared);
  const exportRoute = routes.get('GET', '/api/vulnerabilities/export')!;
  const exported = inputSchemaOf(exportRoute, shared);
  return [
    {
      name: 'scans_report',
      title: "Download a run's report",
      description:
        "A run's report in one of five formats (the latest completed run when run_index is left out). CSV, HTML, TXT and XML come back as text " +
        `(the first ${INLINE_TEXT_BYTES / 1024} KiB when longer) with a link to the whole file; a PDF comes back as a resource link. ` +
        'Fails when the scan or the run does not exist or the run has not finished.',
      inputSchema: {
        ...report.schema,
        properties: { ...(report.schema.properties as JsonSchema), format: { type: 'string', enum: [...REPORT_FORMATS], description: 'pdf, csv, html, txt or xml' } },
        required: [...((report.schema.required as string[] | undefined) ?? []), 'format'],
      },
      outputSchema: { ...FileOutputSchema, properties: { ...FileOutputSchema.properties, run_index: { type: 'integer' } }, required: [...FileOutputSchema.required, 'run_index'] },
      async call(args, token) {
        const format = args.format as ReportFormat;
        if (!REPORT_FORMATS.includes(format)) throw fieldError('format', `The selected format is invalid. Valid: ${REPORT_FORMATS.join(', ')}.`);
        const url = `/api/scans/${format}/:uuid`;
        const response = await callApi(app, { method: 'GET', url, args, places: report.places, token });
        if (!isSuccess(response)) return toolError(response);
        const runIndex = Number(/-run-(\d+)\.\w+$/.exec(filenameOf(response))?.[1]);
        const uri = reportUrl(base, String(args.uuid), runIndex, format);
        return fileResult(response, uri, { run_index: runIndex });
      },
    },
    {
      name: 'vulnerabilities_export',
      title: 'Export vulnerabilities as CSV',
      description: `${exportRoute.summary}. ${exportRoute.description} The first ${INLINE_TEXT_BYTES / 1024} KiB come back as text, with a link to the whole file.`,
      inputSchema: exported.schema,
      outputSchema: FileOutputSchema,
      async call(args, token) {
        const response = await callApi(app, { method: 'GET', url: '/api/vulnerabilities/export', args, places: exported.places, token });
        if (!isSuccess(response)) return toolError(response);
        return fileResult(response, `${base}/api/vulnerabilities/export${queryString(args, exported.places.query)}`, {});
      },
    },
  ];
}

export function fileResourceTemplates(base: string): ResourceTemplate[] {
  return [
    { uriTemplate: `${base}/api/scans/{format}/{uuid}{?run_index}`, name: 'report', title: "A run's report", description: 'format: pdf, csv, html, txt or xml' },
    {
      uriTemplate: `${base}/api/vulnerabilities/export{?severity,status,lifecycle,target,search}`,
      name: 'vulnerability-export',
      title: 'The vulnerability export (CSV)',
      mimeType: 'text/csv',
    },
  ];
}

const READABLE = [/^\/api\/scans\/(pdf|csv|html|txt|xml)\/[^/]+$/, /^\/api\/vulnerabilities\/export$/];

/**
 * `resources/read` of a report or export URL: fetched like the API would serve it to this token.
 * Errors are thrown (the SDK answers them as JSON-RPC errors) with the API's message.
 */
export async function readFileResource(app: FastifyInstance, uri: string, token: string): Promise<ReadResourceResult> {
  const base = new URL(app.ctx.config.baseUrl);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new Error(`Not a Rampart resource: ${uri}`);
  }
  const path = url.pathname.slice(base.pathname.replace(/\/$/, '').length);
  if (url.origin !== base.origin || !READABLE.some((pattern) => pattern.test(path))) throw new Error(`Not a Rampart resource: ${uri}`);
  const query = Object.fromEntries(url.searchParams);
  const response = await callApi(app, {
    method: 'GET',
    url: path,
    args: query,
    places: { path: [], query: Object.keys(query), body: [], hasBody: false },
    token,
  });
  if (!isSuccess(response)) throw new Error(toolError(response).content.map((c) => (c.type === 'text' ? c.text : '')).join('\n'));
  if (response.rawPayload.length > RESOURCE_BYTES) {
    throw new Error(`The file is ${response.rawPayload.length} bytes, more than the ${RESOURCE_BYTES} a resource read returns; download it over HTTP with the bearer token.`);
  }
  const mimeType = String(response.headers['content-type'] ?? '').split(';')[0]!;
  const format = /\/api\/scans\/(\w+)\//.exec(path)?.[1] as ReportFormat | undefined;
  const binary = format === 'pdf';
  return {
    contents: [binary ? { uri, mimeType: REPORT_MEDIA_TYPES.pdf, blob: response.rawPayload.toString('base64') } : { uri, mimeType, text: response.rawPayload.toString('utf8') }],
  };
}
