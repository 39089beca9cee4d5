/**
 * Runs a tool as the API request it stands for, inside this process (`app.inject`): the same
 * bearer token, validation, plan rules, services and messages as a client calling the API. The
 * request carries a per-process secret so the rate limiter counts it once, as the MCP request
 * that caused it, not twice.
 */
import type { FastifyInstance } from 'fastify';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { INTERNAL_HEADER, INTERNAL_SECRET } from '../http/rate-limit.js';
import { AppError, fieldError, statusOf, type FieldErrors } from '../shared/errors.js';
import type { ArgumentPlaces } from './tools.js';

export interface ApiCall {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';
  /** The route, `:name` segments filled from the arguments. */
  url: string;
  args: Record<string, unknown>;
  places: ArgumentPlaces;
  token: string;
}

export interface ApiResponse {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  rawPayload: Buffer;
  body: string;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A path or query argument as the text an HTTP client would send: objects and arrays as their
 * JSON (the API then judges the text as it would from any client), and a lone surrogate, which no
 * UTF-8 URL can carry, as U+FFFD.
 */
function argumentText(value: unknown): string {
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/** Runs the API request; a path argument left out is a 422 (an AppError), as the API would give. */
export async function callApi(app: FastifyInstance, call: ApiCall): Promise<ApiResponse> {
  let url = call.url;
  for (const name of call.places.path) {
    const value = call.args[name];
    if (value === undefined || value === null || value === '') throw fieldError(name, `The ${name} field is required.`);
    url = url.replace(`:${name}`, encodeURIComponent(argumentText(value)));
  }
  const query: Record<string, string> = {};
  for (const name of call.places.query) {
    const value = call.args[name];
    if (value !== undefined && value !== null) query[name] = argumentText(value);
  }
  const body: Record<string, unknown> = {};
  for (const name of call.places.body) if (call.args[name] !== undefined) body[name] = call.args[name];
  const response = await app.inject({
    method: call.method,
    url,
    query,
    headers: { authorization: `Bearer ${call.token}`, [INTERNAL_HEADER]: INTERNAL_SECRET, ...(call.places.hasBody ? { 'content-type': 'application/json' } : {}) },
    ...(call.places.hasBody ? { payload: JSON.stringify(body) } : {}),
  });
  return { statusCode: response.statusCode, headers: response.headers, rawPayload: response.rawPayload, body: response.body };
}

/** An error as an MCP tool error: `HTTP <status>: <message>`, then one line per field error. */
function errorResult(status: number, message: string | undefined, errors: FieldErrors | undefined): CallToolResult {
  const lines = [`HTTP ${status}: ${message ?? 'The request failed.'}`];
  for (const [field, messages] of Object.entries(errors ?? {})) lines.push(`${field}: ${messages.join(' ')}`);
  return { isError: true, content: [{ type: 'text', text: lines.join('\n') }] };
}

/** An API error reply as an MCP tool error, with the API's message and field errors. */
export function toolError(response: ApiResponse): CallToolResult {
  let detail: { message?: string; errors?: FieldErrors } = {};
  try {
    detail = JSON.parse(response.body) as typeof detail;
  } catch {
    detail = { message: response.body };
  }
  return errorResult(response.statusCode, detail.message, detail.errors);
}

/** A service error raised before any request was made, as the API would have answered it. */
export function appErrorResult(error: AppError): CallToolResult {
  return errorResult(statusOf(error.code), error.message, error.errors);
}

/** A JSON success as structured output, with the same JSON as text for clients that read only text. */
export function toolResult(response: ApiResponse): CallToolResult {
  const json = JSON.parse(response.body) as Record<string, unknown>;
  return { content: [{ type: 'text', text: response.body }], structuredContent: json };
}

export const isSuccess = (response: ApiResponse) => response.statusCode >= 200 && response.statusCode < 300;
