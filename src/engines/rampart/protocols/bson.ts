/**
 * The least of BSON (https://bsonspec.org/spec.html) that Rampart's MongoDB code needs, shared by
 * service detection (`services/mongodb.ts`) and the no-auth check (`checks/unauth-mongodb.ts`):
 * encode a command document, decode a reply. Decoding is strict and bounded by the buffer: a
 * malformed document throws `BsonError` rather than reading past its end.
 */

/** A decoded BSON value; binary, ObjectId, decimal128 and other exotic types become placeholders. */
export type BsonValue = string | number | bigint | boolean | null | Date | BsonDocument | BsonValue[] | { $type: string };
/** A decoded document: keys in the order received. */
export interface BsonDocument {
  [key: string]: BsonValue;
}

/** A document that does not parse (bad lengths, truncation, an unknown type, too deep). */
export class BsonError extends Error {
  override name = 'BsonError';
}

/** What `encodeBson` can write. */
export type BsonInput = string | number | boolean | null | BsonInput[] | { [key: string]: BsonInput };

/** Encodes strings, numbers (int32 when integral and in range, else double), booleans, null, arrays and documents. */
export function encodeBson(document: { [key: string]: BsonInput } | BsonInput[]): Buffer {
  const parts: Buffer[] = [];
  for (const [key, value] of Object.entries(document)) {
    const name = Buffer.from(`${key}\0`, 'utf8');
    if (typeof value === 'string') {
      const text = Buffer.from(value, 'utf8');
      const length = Buffer.alloc(4);
      length.writeInt32LE(text.length + 1);
      parts.push(Buffer.from([0x02]), name, length, text, Buffer.from([0]));
    } else if (typeof value === 'number' && Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31) {
      const number = Buffer.alloc(4);
      number.writeInt32LE(value);
      parts.push(Buffer.from([0x10]), name, number);
    } else if (typeof value === 'number') {
      const number = Buffer.alloc(8);
      number.writeDoubleLE(value);
      parts.push(Buffer.from([0x01]), name, number);
    } else if (typeof value === 'boolean') {
      parts.push(Buffer.from([0x08]), name, Buffer.from([value ? 1 : 0]));
    } else if (value === null) {
      parts.push(Buffer.from([0x0a]), name);
    } else {
      parts.push(Buffer.from([Array.isArray(value) ? 0x04 : 0x03]), name, encodeBson(value));
    }
  }
  const body = Buffer.concat(parts);
  const header = Buffer.alloc(4);
  header.writeInt32LE(body.length + 5);
  return Buffer.concat([header, body, Buffer.from([0])]);
}

/** Decodes the document at `offset`; throws `BsonError` when malformed. */
export function decodeBson(buffer: Buffer, offset = 0, depth = 0): BsonDocument {
  return decodeEntries(buffer, offset, depth, false) as BsonDocument;
}

/** Nesting we follow at most: a reply deeper than this is hostile, not a MongoDB answer. */
const MAX_DEPTH = 32;

/** An int64 as a number when exact, else as a bigint. */
const toNumberIfSafe = (long: bigint): number | bigint =>
  long >= BigInt(Number.MIN_SAFE_INTEGER) && long <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(long) : long;

/** Types of a fixed size: how many bytes the value takes and what it decodes to. */
const FIXED_TYPES: ReadonlyMap<number, { size: number; decode: (bytes: Buffer) => BsonValue }> = new Map([
  [0x01, { size: 8, decode: (bytes: Buffer) => bytes.readDoubleLE(0) }],
  [0x06, { size: 0, decode: () => null }], // undefined (deprecated)
  [0x07, { size: 12, decode: () => ({ $type: 'objectId' }) }],
  [0x08, { size: 1, decode: (bytes: Buffer) => bytes[0] === 1 }],
  [0x09, { size: 8, decode: (bytes: Buffer) => new Date(Number(bytes.readBigInt64LE(0))) }],
  [0x0a, { size: 0, decode: () => null }],
  [0x10, { size: 4, decode: (bytes: Buffer) => bytes.readInt32LE(0) }],
  [0x11, { size: 8, decode: () => ({ $type: 'timestamp' }) }],
  [0x12, { size: 8, decode: (bytes: Buffer) => toNumberIfSafe(bytes.readBigInt64LE(0)) }],
  [0x13, { size: 16, decode: () => ({ $type: 'decimal128' }) }],
  [0x7f, { size: 0, decode: () => null }], // max key
  [0xff, { size: 0, decode: () => null }], // min key
]);

function decodeEntries(buffer: Buffer, start: number, depth: number, asArray: boolean): BsonDocument | BsonValue[] {
  if (depth > MAX_DEPTH) throw new BsonError('BSON nested too deeply');
  const size = readInt32(buffer, start);
  const end = start + size;
  if (size < 5 || end > buffer.length || buffer[end - 1] !== 0) throw new BsonError('bad BSON document length');
  const document: BsonDocument = {};
  const array: BsonValue[] = [];
  let at = start + 4;
  while (at < end - 1) {
    const type = buffer[at]!;
    const nameEnd = buffer.indexOf(0, at + 1);
    if (nameEnd < 0 || nameEnd >= end) throw new BsonError('unterminated BSON key');
    const key = buffer.toString('utf8', at + 1, nameEnd);
    const [value, length] = decodeValue(buffer, type, nameEnd + 1, end, depth);
    at = nameEnd + 1 + length;
    if (at > end - 1) throw new BsonError('BSON value overruns its document');
    if (asArray) array.push(value);
    else document[key] = value;
  }
  return asArray ? array : document;
}

/** The value of `type` at `at` inside a document ending at `end`, and how many bytes it took. */
function decodeValue(buffer: Buffer, type: number, at: number, end: number, depth: number): [BsonValue, number] {
  const fixed = FIXED_TYPES.get(type);
  if (fixed) return [fixed.decode(readFixed(buffer, at, fixed.size, end)), fixed.size];
  switch (type) {
    // string, JavaScript code, symbol (deprecated): all an int32 length and NUL-terminated text
    case 0x02:
    case 0x0d:
    case 0x0e: {
      const length = readInt32(buffer, at);
      if (length < 1 || at + 4 + length > end) throw new BsonError('bad BSON string length');
      return [buffer.toString('utf8', at + 4, at + 4 + length - 1), 4 + length];
    }
    case 0x03:
    case 0x04:
      return [decodeEntries(buffer, at, depth + 1, type === 0x04), readInt32(buffer, at)];
    case 0x05: {
      const length = readInt32(buffer, at);
      if (length < 0 || at + 5 + length > end) throw new BsonError('bad BSON binary length');
      return [{ $type: 'binary' }, 5 + length];
    }
    default:
      throw new BsonError(`unsupported BSON type 0x${type.toString(16)}`);
  }
}

function readInt32(buffer: Buffer, at: number): number {
  if (at + 4 > buffer.length) throw new BsonError('truncated BSON');
  return buffer.readInt32LE(at);
}

function readFixed(buffer: Buffer, at: number, length: number, end: number): Buffer {
  if (at + length > end) throw new BsonError('truncated BSON value');
  return buffer.subarray(at, at + length);
}
