/** Validation helpers shared by services (the HTTP layer validates shapes with JSON Schema). */

/** The same rule as the `email` JSON Schema format (ajv-formats "fast" mode). */
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

export function isEmail(value: string): boolean {
  return EMAIL.test(value);
}
