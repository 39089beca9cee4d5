/**
 * Just enough BSON (bsonspec.org) for MongoDB's handshake commands: write a flat document of
 * strings, numbers and booleans; read any document into plain values, skipping what we never use.
 */

export type BsonValue = string | number | bigint | boolean | null | BsonDocument | BsonValue[] | Uint8Array;
export interface BsonDocument {
  [key: string]: BsonValue;
}

/** A flat document: `{ hello: 1, $db: 'admin' }`. Numbers are written as int32. */
export function writeBson(fields: Record<string, string | number | boolean>): Buffer {
  const parts: Buffer[] = [];
  for (const [key, value] of Object.entries(fields)) {
    const name = Buffer.from(`${key}\0`, 'utf8');
    if (typeof value === 'string') {
      const text = Buffer.from(`${value}\0`, 'utf8');
      const length = Buffer.alloc(4);
      length.writeInt32LE(text.length, 0);
      parts.push(Buffer.from([0x02]), name, length, text);
    } else if (typeof value === 'number') {
      const number = Buffer.alloc(4);
      number.writeInt32LE(value, 0);
      parts.push(Buffer.from([0x10]), name, number);
    } else {
      parts.push(Buffer.from([0x08]), name, Buffer.from([value ? 1 : 0]));
    }
  }
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(4);
  head.writeInt32LE(body.length + 5, 0);
  return Buffer.concat([head, body, Buffer.from([0])]);
}

/** Reads the document at `offset`; throws `RangeError` on malformed input (callers catch it). */
export function readBson(bytes: Buffer, offset = 0): BsonDocument {
  const length = bytes.readInt32LE(offset);
  const end = offset + length - 1;
  if (length < 5 || end >= bytes.length || bytes[end] !== 0) throw new RangeError('malformed BSON document');
  const document: BsonDocument = {};
  let at = offset + 4;
  while (at < end) {
    const type = bytes[at] ?? 0;
    const nameEnd = bytes.indexOf(0, at + 1);
    if (nameEnd < 0 || nameEnd >= end) throw new RangeError('malformed BSON name');
    const key = bytes.toString('utf8', at + 1, nameEnd);
    const [value, size] = readValue(bytes, type, nameEnd + 1);
    document[key] = value;
    at = nameEnd + 1 + size;
  }
  return document;
}

/** One value of `type` at `at`: the value and how many bytes it took. */
function readValue(bytes: Buffer, type: number, at: number): [BsonValue, number] {
  switch (type) {
    case 0x01:
      return [bytes.readDoubleLE(at), 8];
    case 0x02:
    case 0x0d:
    case 0x0e: {
      const size = bytes.readInt32LE(at);
      return [bytes.toString('utf8', at + 4, at + 4 + size - 1), 4 + size];
    }
    case 0x03:
    case 0x04: {
      const inner = readBson(bytes, at);
      return [type === 0x04 ? Object.values(inner) : inner, bytes.readInt32LE(at)];
    }
    case 0x05: {
      const size = bytes.readInt32LE(at);
      return [bytes.subarray(at + 5, at + 5 + size), 5 + size];
    }
    case 0x07:
      return [bytes.toString('hex', at, at + 12), 12];
    case 0x08:
      return [bytes[at] === 1, 1];
    case 0x09:
    case 0x11:
    case 0x12:
      return [bytes.readBigInt64LE(at), 8];
    case 0x0a:
    case 0x06:
    case 0x7f:
    case 0xff:
      return [null, 0];
    case 0x10:
      return [bytes.readInt32LE(at), 4];
    case 0x13:
      return [bytes.subarray(at, at + 16), 16];
    default:
      throw new RangeError(`unsupported BSON type 0x${type.toString(16)}`);
  }
}
