/**
 * Two rules the schemas cannot state, checked on every route for the request parts it declares a
 * schema for (path, query string, body), answered with a 422 naming each field:
 * - No text with a NUL character (U+0000). PostgreSQL cannot store NUL in text (PGlite neither),
 *   so such a value would otherwise fail deep in a query as a 500. Checked before validation.
 * - No number beyond the doubles. The validator turns the text "1e400" into Infinity when it
 *   coerces a query parameter to a number, and then skips the minimum and maximum checks (ajv 8
 *   checks finiteness only before coercing); Infinity would reach SQL. Checked after validation.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { validationError, type FieldErrors } from '../shared/errors.js';
import { fieldLabel } from './validation-errors.js';

/** At most this many fields are named; one is enough to refuse the request. */
const MAX_FIELDS = 20;

const hasNul = (value: unknown) => typeof value === 'string' && value.includes('\u0000');
const isNonFinite = (value: unknown) => typeof value === 'number' && !Number.isFinite(value);

/**
 * Fields (`events.0`, `search`) whose value fails `test`, in order. Iterative, because a body may
 * nest far deeper than the call stack.
 */
function findFields(value: unknown, test: (value: unknown) => boolean): string[] {
  const found: string[] = [];
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0 && found.length < MAX_FIELDS) {
    const [item, path] = stack.pop()!;
    if (test(item)) {
      found.push(path || 'body');
    } else if (item !== null && typeof item === 'object') {
      const entries = Array.isArray(item) ? item.map((v, i) => [String(i), v] as const) : Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], path ? `${path}.${entries[i]![0]}` : entries[i]![0]]);
    }
  }
  return found;
}

type PartSchema = { properties?: Record<string, { type?: unknown }> } | undefined;

/** The parts of the request that the route declares a schema for, with their schemas. */
function declaredParts(request: FastifyRequest): [PartSchema, unknown][] {
  const schema = request.routeOptions.schema;
  if (!schema) return [];
  const parts: [unknown, unknown][] = [
    [schema.params, request.params],
    [schema.querystring, request.query],
    [schema.body, request.body],
  ];
  return parts.filter(([declared]) => declared !== undefined) as [PartSchema, unknown][];
}

function refuseNul(request: FastifyRequest): void {
  const errors: FieldErrors = {};
  for (const [, value] of declaredParts(request)) {
    for (const field of findFields(value, hasNul)) errors[field] = [`The ${fieldLabel(field)} field must not contain NUL characters.`];
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);
}

function refuseNonFinite(request: FastifyRequest): void {
  const errors: FieldErrors = {};
  for (const [schema, value] of declaredParts(request)) {
    for (const field of findFields(value, isNonFinite)) {
      const integer = [schema?.properties?.[field]?.type].flat().includes('integer');
      errors[field] = [`The ${fieldLabel(field)} field must be ${integer ? 'an integer' : 'a number'}.`];
    }
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);
}

/** Adds both checks around schema validation (after authentication and the rate limit). */
export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => refuseNul(request));
  app.addHook('preHandler', async (request) => refuseNonFinite(request));
}
