/**
 * The query strings of the findings and targets pages. The pages validate their query with the
 * API's own schemas (attached, not thrown, so a bad value is a 422 page with the message beside
 * its filter field, not an error page), and keep what the person typed from the raw URL.
 */
import type { FastifyRequest } from 'fastify';
import type { FieldErrors } from '../../shared/errors.js';
import { toFieldErrors } from '../../http/validation-errors.js';
import { localPath } from '../../shared/local-path.js';

/** A query as the address bar has it: every value text, as typed. */
export type RawQuery = Record<string, string | undefined>;

/**
 * preValidation hook of the GET forms: a field left empty ("any severity", no search) arrives as
 * `severity=`; it means "no filter", as an absent parameter does, not an invalid value.
 */
export async function dropEmptyQueryValues(request: FastifyRequest): Promise<void> {
  const query = request.query as Record<string, unknown>;
  for (const [key, value] of Object.entries(query)) if (value === '') delete query[key];
}

/** The raw query of the request (the first value of a repeated parameter). */
export function rawQueryOf(request: FastifyRequest): RawQuery {
  const params = new URL(request.url, 'http://page.invalid').searchParams;
  const raw: RawQuery = {};
  for (const [key, value] of params) if (!(key in raw) && value !== '') raw[key] = value;
  return raw;
}

/**
 * The API's validation messages by field (the same words as a 422 of the API), or undefined when
 * the query is valid. `schema` is the route's query schema: its properties give the field order.
 */
export function queryErrorsOf(request: FastifyRequest, schema: { properties: Record<string, unknown> }): FieldErrors | undefined {
  const failure = request.validationError as (Error & { validation?: Parameters<typeof toFieldErrors>[0] }) | undefined;
  if (!failure?.validation) return undefined;
  return toFieldErrors(failure.validation, Object.keys(schema.properties));
}

/** `path?query` with the given parameters (empty and undefined ones left out). */
export function hrefOf(path: string, query: RawQuery): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, value);
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** The same query with some parameters replaced or removed (undefined). */
export function withQuery(query: RawQuery, changes: RawQuery): RawQuery {
  return { ...query, ...changes };
}

/**
 * Where a triage form returns to: a path of the findings or targets pages (from the form's hidden
 * `back` field), never another site or page, so the field cannot become an open redirect.
 */
export function safeBack(value: unknown, fallback: string): string {
  const path = localPath(value, fallback);
  return /^\/(vulnerabilities|targets)(\/[0-9]+)?(\?[^\s]*)?$/.test(path) ? path : fallback;
}
