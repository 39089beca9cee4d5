/**
 * The little of ASN.1 BER (X.690) that SNMP needs: definite lengths, one-byte tags, INTEGER,
 * OCTET STRING, NULL, OBJECT IDENTIFIER and constructed values. The decoder reads bytes from the
 * network: it checks every length against the buffer and throws `BerError` on anything malformed.
 */

/** The tags SNMP uses: X.690 universal ones, SNMP's PDU tags and its varbind exceptions. */
export const BerTag = {
  integer: 0x02,
  octetString: 0x04,
  null: 0x05,
  oid: 0x06,
  sequence: 0x30,
  getRequest: 0xa0,
  getResponse: 0xa2,
  noSuchObject: 0x80,
  noSuchInstance: 0x81,
  endOfMibView: 0x82,
} as const;

/** Malformed BER in a reply. */
export class BerError extends Error {
  override name = 'BerError';
}

/** One decoded value: its tag and its content bytes (children still encoded). */
export interface Tlv {
  tag: number;
  content: Buffer;
}

/** Tag, length, value. */
export function encodeTlv(tag: number, content: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([tag]), encodeLength(content.length), content]);
}

/** Short form below 128, else 0x80 | byte count followed by the length, big-endian. */
function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** A constructed value (SEQUENCE, a PDU) of already encoded children. */
export function encodeConstructed(tag: number, children: readonly Buffer[]): Buffer {
  return encodeTlv(tag, Buffer.concat(children));
}

/** A signed 32-bit INTEGER in the fewest two's-complement bytes. */
export function encodeInteger(value: number): Buffer {
  if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) throw new RangeError(`${value} is not a 32-bit integer`);
  const bytes: number[] = [];
  let rest = value;
  for (;;) {
    const byte = rest & 0xff;
    bytes.unshift(byte);
    rest >>= 8;
    // Stop once the remaining bits are all sign bits and the last byte carries the sign.
    if ((rest === 0 && (byte & 0x80) === 0) || (rest === -1 && (byte & 0x80) !== 0)) break;
  }
  return encodeTlv(BerTag.integer, Buffer.from(bytes));
}

export function encodeOctetString(value: string | Uint8Array): Buffer {
  return encodeTlv(BerTag.octetString, typeof value === 'string' ? Buffer.from(value, 'latin1') : value);
}

export function encodeNull(): Buffer {
  return encodeTlv(BerTag.null, Buffer.alloc(0));
}

/** An OBJECT IDENTIFIER from dotted form, e.g. `1.3.6.1.2.1.1.1.0`. */
export function encodeOid(oid: string): Buffer {
  const arcs = oid.split('.').map(Number);
  const [first, second, ...rest] = arcs;
  if (first === undefined || second === undefined || arcs.some((arc) => !Number.isSafeInteger(arc) || arc < 0)) {
    throw new RangeError(`Bad OID ${oid}`);
  }
  const bytes: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    const groups = [arc & 0x7f];
    for (let n = Math.floor(arc / 128); n > 0; n = Math.floor(n / 128)) groups.unshift((n & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return encodeTlv(BerTag.oid, Buffer.from(bytes));
}

/** Decodes the value at `offset`; `next` is the offset just past it. */
export function decodeTlv(buffer: Buffer, offset = 0): { tlv: Tlv; next: number } {
  if (offset + 2 > buffer.length) throw new BerError('truncated header');
  const tag = buffer[offset]!;
  if ((tag & 0x1f) === 0x1f) throw new BerError('multi-byte tags are not used by SNMP');
  let length = buffer[offset + 1]!;
  let start = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    // 0x80 is the indefinite form, which SNMP forbids; four bytes already allow 4 GiB.
    if (count === 0 || count > 4) throw new BerError('unsupported length form');
    if (start + count > buffer.length) throw new BerError('truncated length');
    length = buffer.readUIntBE(start, count);
    start += count;
  }
  const end = start + length;
  if (end > buffer.length) throw new BerError('value runs past the end');
  return { tlv: { tag, content: buffer.subarray(start, end) }, next: end };
}

/** Decodes a whole buffer as exactly one value. */
export function decodeOne(buffer: Buffer): Tlv {
  const { tlv, next } = decodeTlv(buffer);
  if (next !== buffer.length) throw new BerError('trailing bytes');
  return tlv;
}

/** The children of a constructed value. */
export function decodeChildren(parent: Tlv): Tlv[] {
  const children: Tlv[] = [];
  for (let offset = 0; offset < parent.content.length; ) {
    const { tlv, next } = decodeTlv(parent.content, offset);
    children.push(tlv);
    offset = next;
  }
  return children;
}

/** A signed INTEGER of up to six bytes (anything SNMP puts in a request id or status). */
export function decodeInteger(tlv: Tlv): number {
  if (tlv.tag !== BerTag.integer) throw new BerError(`expected INTEGER, got tag 0x${tlv.tag.toString(16)}`);
  if (tlv.content.length < 1 || tlv.content.length > 6) throw new BerError('INTEGER length out of range');
  return tlv.content.readIntBE(0, tlv.content.length);
}

/** An OBJECT IDENTIFIER in dotted form. */
export function decodeOid(tlv: Tlv): string {
  if (tlv.tag !== BerTag.oid || tlv.content.length === 0) throw new BerError('expected OBJECT IDENTIFIER');
  const arcs: number[] = [];
  let arc = 0;
  for (const byte of tlv.content) {
    arc = arc * 128 + (byte & 0x7f);
    if (arc > Number.MAX_SAFE_INTEGER) throw new BerError('OID arc too large');
    if ((byte & 0x80) === 0) {
      if (arcs.length === 0) arcs.push(Math.min(2, Math.floor(arc / 40)), arc - Math.min(2, Math.floor(arc / 40)) * 40);
      else arcs.push(arc);
      arc = 0;
    }
  }
  if (tlv.content[tlv.content.length - 1]! & 0x80) throw new BerError('OID ends inside an arc');
  return arcs.join('.');
}
