/**
 * IP address text <-> integer conversions, just enough for CIDR arithmetic. Written here rather
 * than taken from a package so that expansion can stay a tight loop over integers: a /16 is
 * walked by incrementing a number, never by building address objects.
 */
import net from 'node:net';

/** The IPv4 address as an unsigned 32-bit integer, or null when the text is not one. */
export function parseIPv4(text: string): number | null {
  if (!net.isIPv4(text)) return null;
  let value = 0;
  for (const part of text.split('.')) value = value * 256 + Number(part);
  return value;
}

/** Dotted-quad text of an unsigned 32-bit integer. */
export function formatIPv4(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

/**
 * The IPv6 address as a 128-bit integer, or null when the text is not one. Zone ids (`%eth0`)
 * are refused: an address with a zone names an interface-local host, not a network range.
 */
export function parseIPv6(text: string): bigint | null {
  if (!net.isIPv6(text) || text.includes('%')) return null;
  let body = text;
  // An embedded IPv4 tail (`::ffff:192.0.2.1`) becomes two ordinary hex groups.
  const lastColon = body.lastIndexOf(':');
  const tail = body.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4(tail);
    if (v4 === null) return null;
    body = `${body.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', rest] = body.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = rest === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(zeros).fill('0'), ...tailGroups];
  if (groups.length !== 8) return null;
  let value = 0n;
  for (const group of groups) value = (value << 16n) | BigInt(parseInt(group, 16));
  return value;
}

/**
 * RFC 5952 text of a 128-bit integer: lower case, the longest run of two or more zero groups as
 * `::`, and an IPv4-mapped address with its IPv4 part dotted (`::ffff:192.0.2.1`, RFC 5952 §5),
 * the form an address guard is surest to recognise as the IPv4 address it is.
 */
export function formatIPv6(value: bigint): string {
  if (value >> 32n === 0xffffn) return `::ffff:${formatIPv4(Number(value & 0xffffffffn))}`;
  const groups: number[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(Number((value >> shift) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1; // a single zero group is never compressed
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (list: number[]): string => list.map((g) => g.toString(16)).join(':');
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}
