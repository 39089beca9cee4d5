/**
 * Where a browser may be sent back to after a form or a sign-in (`next`, `return_to`): only a
 * path of this site. `//host` and `/\host` are other sites to a browser, and control characters
 * could split a header, so anything but one leading `/` followed by a plain path is refused.
 */

/** `value` when it is a local path (at most 2,000 characters), else `fallback`. */
export function localPath(value: unknown, fallback = '/'): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2000) return fallback;
  if (!value.startsWith('/') || value.startsWith('//') || /[\\\u0000-\u001f\u007f]/.test(value)) return fallback;
  return value;
}
