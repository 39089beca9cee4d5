/** Schema helpers shared by route modules. */
import { Type, type Static, type TSchema } from 'typebox';

/** `schema` or null, as one JSON Schema `type` array (one clear validation message, not an anyOf). */
export function Nullable<T extends TSchema>(schema: T) {
  const inner = schema as unknown as Record<string, unknown>;
  // An enum lists every allowed value: null must be one of them too.
  const values = Array.isArray(inner.enum) ? { enum: [...(inner.enum as unknown[]), null] } : {};
  return Type.Unsafe<Static<T> | null>({ ...inner, type: [inner.type, 'null'], ...values });
}

/** A string enum as a plain JSON Schema `enum` (one "The selected x is invalid." message). */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** The largest value of a PostgreSQL `integer` column: a bound for integers a query compares with one. */
export const PG_INTEGER_MAX = 2_147_483_647;

/** Laravel's paginated-resource envelope around `item` (DESIGN.md "Pagination"). */
export const UuidParamsSchema = Type.Object({ uuid: Type.String({ description: 'The scan uuid' }) });
export const MessageSchema = Type.Object({ message: Type.String() });

/** The Laravel-style error bodies, for response schemas and the OpenAPI document. */
export const ErrorSchema = Type.Object({ message: Type.String() }, { $id: 'Error', description: 'An error' });
export const ValidationErrorSchema = Type.Object(
  { message: Type.String(), errors: Type.Record(Type.String(), Type.Array(Type.String())) },
  { $id: 'ValidationError', description: 'Validation failed: messages by field' },
);

/** Standard error responses of an authenticated route, for the OpenAPI document. */
export const authErrors = {
  401: Type.Ref('Error'),
  429: Type.Ref('Error'),
} as const;
