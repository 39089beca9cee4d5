/**
 * Values of nuclei's DSL (govaluate as nuclei uses it) and the conversions the helper functions share.
 *
 * Glossary: a DslValue is what an expression yields: a string, a number (govaluate turns every
 * parameter number into float64, so one JS number kind is faithful), a boolean, null (govaluate's
 * nil, e.g. a ternary whose condition was false), a string list (split/sort/uniq results, `in`
 * arrays) or raw bytes (decoders whose output is not valid UTF-8: Go strings hold bytes).
 */
export type DslValue = string | number | boolean | null | DslValue[] | Uint8Array;

/** Variables an expression reads: response parts (body, status_code, body_2...), template variables. */
export type DslVariables = Readonly<Record<string, unknown>>;

/** An evaluation failure returned as a value: the matcher layer treats it as "no match". */
export class DslError {
  /** @param message why evaluation failed (unknown variable, wrong type, function error) */
  constructor(readonly message: string) {}
}

/** True when a result is an evaluation failure. */
export function isDslError(value: unknown): value is DslError {
  return value instanceof DslError;
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });
const lossyDecoder = new TextDecoder('utf-8');
const utf8Encoder = new TextEncoder();

/** Go's strconv.FormatFloat(f, 'f', -1, 64): shortest digits, never exponent notation. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
  const text = String(value);
  if (!/e/i.test(text)) return text;
  if (Number.isInteger(value)) return BigInt(value).toString();
  return value.toFixed(20).replace(/0+$/, '').replace(/\.$/, '');
}

/** The dsl package's toString: how every helper reads an argument as text. */
export function toText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return lossyDecoder.decode(value);
  if (Array.isArray(value)) return `[${value.map(toText).join(' ')}]`;
  return String(value);
}

/** The bytes Go would see for a value: UTF-8 of its text, or the raw bytes themselves. */
export function toBytes(value: unknown): Uint8Array {
  return value instanceof Uint8Array ? value : utf8Encoder.encode(toText(value));
}

/** Bytes back to a DSL value: a string when they are valid UTF-8 (lossless), else the bytes. */
export function fromBytes(bytes: Uint8Array): string | Uint8Array {
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    return bytes;
  }
}

/** The dsl package's toBool: "true"/"1"/1 are true, everything else false. */
export function toBool(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1;
  if (typeof value === 'string') {
    const text = value.trim();
    if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
    const parsed = Number(text);
    return text !== '' && !Number.isNaN(parsed) && parsed === 1;
  }
  return false;
}

/** The dsl package's toInt: a number or a numeric string, truncated; a DslError otherwise. */
export function toInteger(value: unknown): number | DslError {
  if (typeof value === 'number') return Math.trunc(value);
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value.trim());
    if (!Number.isNaN(parsed)) return Math.trunc(parsed);
  }
  return new DslError(`invalid number: ${toText(value)}`);
}

/** Converts a variable value from the caller into a DSL value (numbers of any kind become numbers). */
export function fromHost(value: unknown): DslValue {
  if (value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.map(fromHost);
  return toText(value);
}

/** reflect.DeepEqual as govaluate's == uses it: same kind and same content; 200 != "200". */
export function deepEqual(left: DslValue, right: DslValue): boolean {
  if (left instanceof Uint8Array || right instanceof Uint8Array) {
    if (!(left instanceof Uint8Array && right instanceof Uint8Array) || left.length !== right.length) return false;
    return left.every((byte, index) => byte === right[index]);
  }
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => deepEqual(item, right[index] as DslValue));
  }
  return left === right;
}
