/** Validation helpers shared by services (the HTTP layer validates shapes with JSON Schema). */

/** The same rule as the `email` JSON Schema format (ajv-formats "fast" mode). */
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

export function isEmail(value: string): boolean {
  return EMAIL.test(value);
}

/**
 * An integer id from a path, or undefined when the text cannot be one (not digits, zero, beyond
 * 2^53): such an id is simply "not found", like an unknown one, never a validation error.
 */
export function parsePathId(raw: string): number | undefined {
  const id = /^[0-9]{1,16}$/.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(id) && id >= 1 ? id : undefined;
}

/**
 * The fields of a request body that the operation does not take, in the order sent. JSON Schema
 * validation here keeps unknown fields without complaint; an update must refuse them by name
 * rather than answer success for a change it did not make.
 */
export function unknownFields(body: object, allowed: readonly string[]): string[] {
  return Object.keys(body).filter((field) => !allowed.includes(field));
}
