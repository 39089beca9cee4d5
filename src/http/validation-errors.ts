/**
 * Turns JSON Schema (ajv) validation errors into Laravel's per-field messages, so a 422 reads
 * `{"message": "The scan name field is required. (and 1 more error)", "errors": {"scan_name": [...]}}`.
 */
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import type { FieldErrors } from '../shared/errors.js';

/** `/events/0` -> `events.0`; a missing property is named by its own key. */
function fieldOf(error: FastifySchemaValidationError): string {
  const base = error.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    return base ? `${base}.${params.missingProperty}` : params.missingProperty;
  }
  return base || 'body';
}

/** A field as messages name it: `scan_name` -> `scan name`. */
export function fieldLabel(field: string): string {
  return field.replace(/_/g, ' ');
}

/** " Valid: a, b, c." from an enum's (or const's) allowed values, null left out; "" when there are none. */
function validValues(params: Record<string, unknown>): string {
  const allowed = Array.isArray(params.allowedValues) ? params.allowedValues : 'allowedValue' in params ? [params.allowedValue] : [];
  const values = allowed.filter((value) => value !== null).map((value) => String(value));
  return values.length > 0 ? ` Valid: ${values.join(', ')}.` : '';
}

function messageOf(error: FastifySchemaValidationError, field: string): string {
  const f = fieldLabel(field);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `The ${f} field is required.`;
    case 'type': {
      // A nullable field reports `string,null`: name the real type.
      const type = String(p.type).split(',')[0] ?? 'value';
      if (type === 'boolean') return `The ${f} field must be true or false.`;
      if (type === 'integer') return `The ${f} field must be an integer.`;
      if (type === 'array') return `The ${f} field must be an array.`;
      if (type === 'object') return field === 'body' ? 'The request body must be a JSON object.' : `The ${f} field must be an object.`;
      return `The ${f} field must be a ${type}.`;
    }
    case 'maxLength':
      return `The ${f} field must not be greater than ${String(p.limit)} characters.`;
    case 'minLength':
      return Number(p.limit) === 1 ? `The ${f} field is required.` : `The ${f} field must be at least ${String(p.limit)} characters.`;
    case 'maximum':
      return `The ${f} field must not be greater than ${String(p.limit)}.`;
    case 'minimum':
      return `The ${f} field must be at least ${String(p.limit)}.`;
    case 'minItems':
      return `The ${f} field must have at least ${String(p.limit)} item${Number(p.limit) === 1 ? '' : 's'}.`;
    case 'maxItems':
      return `The ${f} field must not have more than ${String(p.limit)} items.`;
    case 'enum':
    case 'const':
      return `The selected ${f} is invalid.${validValues(p)}`;
    case 'anyOf':
      return `The selected ${f} is invalid.`;
    case 'format':
      if (p.format === 'email') return `The ${f} field must be a valid email address.`;
      if (p.format === 'uri' || p.format === 'url') return `The ${f} field must be a valid URL.`;
      if (p.format === 'uuid') return `The ${f} field must be a valid UUID.`;
      return `The ${f} field format is invalid.`;
    case 'additionalProperties':
      return `The ${String(p.additionalProperty)} field is not allowed.`;
    default:
      return `The ${f} field is invalid.`;
  }
}

/**
 * Messages by field, fields in the order the schema declares them (as Laravel reports them in the
 * order of its rules), whatever order the validator found them in.
 */
export function toFieldErrors(errors: FastifySchemaValidationError[], fieldOrder: string[] = []): FieldErrors {
  const rank = (field: string) => {
    const i = fieldOrder.indexOf(field.split('.')[0] ?? field);
    return i === -1 ? fieldOrder.length : i;
  };
  // Ranked once per error: a body may bring one error per item of a long array.
  const sorted = errors
    .map((error, index) => {
      const path = fieldOf(error);
      const field = error.keyword === 'additionalProperties' ? String((error.params as Record<string, unknown>).additionalProperty) : path;
      return { error, index, field, rank: rank(path) };
    })
    .sort((a, b) => a.rank - b.rank || a.index - b.index);
  const out: FieldErrors = {};
  for (const { error, field } of sorted) {
    const message = messageOf(error, field);
    const list = (out[field] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return out;
}
