/**
 * The address guard: which addresses a managed scan or a webhook delivery may contact
 * (DESIGN.md "Safety of scanning"). Everything that is not plainly public is refused unless the
 * deployment's allow list (`RAMPART_ALLOW_TARGETS`) covers it, because a scanner that reaches its
 * own network is a server-side request forgery tool.
 *
 * Every address lives in one 128-bit space: IPv4 a.b.c.d is held as ::ffff:a.b.c.d, so one table,
 * one allow list and one range walk serve both families, and an IPv4-mapped IPv6 address can never
 * slip past as "some IPv6 address". The most specific block containing an address gives its class;
 * the table of blocks, and why each is refused, is in address-blocks.ts.
 *
 * IPv4 allow-list entries also cover their NAT64 images, for the same reason as NAT64 blocks are
 * judged by their embedded IPv4 (see the 64:ff9b::/96 row there).
 */
import { lookup as lookupDns } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { IPV4_BLOCKS, IPV6_BLOCKS, type AddressClass } from './address-blocks.js';

export type { AddressClass } from './address-blocks.js';

export interface AddressVerdict {
  allowed: boolean;
  /** The class of the address; for a refusal, why (e.g. 'loopback'). */
  class: AddressClass;
}

export interface AddressGuard {
  /** Whether one IPv4 or IPv6 address may be contacted. */
  check(address: string): AddressVerdict;
}

/** An inclusive interval of the unified 128-bit space. */
interface Span {
  start: bigint;
  end: bigint;
}

interface Block extends Span {
  prefix: number;
  class: AddressClass;
}

const IPV4_MAPPED = 0xffffn << 32n;
const NAT64 = 0x64ff9bn << 96n;
const IPV4_SIZE = 1n << 32n;

/** Most specific first, so the first block that contains an address decides its class. */
const BLOCKS: Block[] = buildBlocks();

function buildBlocks(): Block[] {
  const blocks: Block[] = [];
  for (const [cidr, cls] of [...IPV4_BLOCKS, ...IPV6_BLOCKS]) {
    const span = parseStrictCidr(cidr);
    if (typeof span === 'string') throw new Error(`Bad built-in block ${cidr}: ${span}`);
    blocks.push({ ...span, class: cls });
    const image = toNat64Image(span);
    if (image) blocks.push({ ...image, prefix: span.prefix, class: cls });
  }
  return blocks.sort((a, b) => b.prefix - a.prefix);
}

/** The same span seen through the NAT64 prefix, when the span is IPv4; prefixes are unchanged. */
function toNat64Image(span: Span): Span | undefined {
  if (span.start < IPV4_MAPPED || span.end >= IPV4_MAPPED + IPV4_SIZE) return undefined;
  return { start: span.start - IPV4_MAPPED + NAT64, end: span.end - IPV4_MAPPED + NAT64 };
}

function toBigInt(address: ipaddr.IPv4 | ipaddr.IPv6): bigint {
  let value = 0n;
  for (const byte of address.toByteArray()) value = (value << 8n) | BigInt(byte);
  return address.kind() === 'ipv4' ? value | IPV4_MAPPED : value;
}

/**
 * Parses an address leniently, as the system resolver would (127.1, 0x7f.0.0.1, zone ids), so a
 * strange spelling is judged by what it actually reaches. Undefined when it is no address.
 */
function parseLenientAddress(address: string): bigint | undefined {
  try {
    return toBigInt(ipaddr.parse(address));
  } catch {
    return undefined;
  }
}

/** Parses `address[/prefix]` strictly (dotted quad or plain IPv6, no zone); an error text otherwise. */
function parseStrictCidr(text: string): (Span & { prefix: number; hostBitsSet: boolean }) | string {
  const [address = '', prefixText, extra] = text.split('/');
  const family = address.includes('%') ? 0 : isIP(address);
  if (family === 0 || extra !== undefined) return 'not an IP address or CIDR range';
  const width = family === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^(0|[1-9][0-9]{0,2})$/.test(prefixText)) return 'bad prefix length';
  const prefix = prefixText === undefined ? width : Number(prefixText);
  if (prefix > width) return `prefix length above ${width}`;
  const unifiedPrefix = prefix + 128 - width;
  const hostMask = (1n << BigInt(128 - unifiedPrefix)) - 1n;
  const value = toBigInt(ipaddr.parse(address));
  const start = value & ~hostMask;
  return { start, end: start | hostMask, prefix: unifiedPrefix, hostBitsSet: start !== value };
}

function classifyValue(value: bigint): AddressClass {
  const block = BLOCKS.find((b) => b.start <= value && value <= b.end);
  // ::/0 is in the table, so a block always matches; 'reserved' only satisfies the type checker.
  return block?.class ?? 'reserved';
}

/** The class of one IPv4/IPv6 address (IPv4-mapped IPv6 like ::ffff:127.0.0.1 is classified as its IPv4). Throws a TypeError for text that is no address. */
export function classifyAddress(address: string): AddressClass {
  const value = parseLenientAddress(address);
  if (value === undefined) throw new TypeError(`Not an IP address: "${address}"`);
  return classifyValue(value);
}

/** Parses RAMPART_ALLOW_TARGETS text (commas/spaces/newlines) into entries. */
export function parseAllowList(text: string): string[] {
  return text.split(/[\s,]+/).filter((entry) => entry !== '');
}

interface AllowList {
  spans: Span[];
  /** Single addresses named exactly: the only way to open a metadata address. */
  exact: Set<bigint>;
}

function compileAllowList(entries: string[]): AllowList {
  const allow: AllowList = { spans: [], exact: new Set() };
  for (const entry of entries) {
    const span = parseStrictCidr(entry.trim());
    if (typeof span === 'string') throw new Error(`Invalid allow-list entry "${entry}": ${span}.`);
    if (span.hostBitsSet) {
      const network = formatCidr(span, entry.includes(':'));
      throw new Error(`Invalid allow-list entry "${entry}": host bits are set (did you mean ${network}?).`);
    }
    for (const s of [span, toNat64Image(span)]) {
      if (!s) continue;
      allow.spans.push(s);
      if (s.start === s.end) allow.exact.add(s.start);
    }
  }
  return allow;
}

/** Writes a network back in the family it was given in, for error messages. */
function formatCidr(span: Span & { prefix: number }, asIPv6: boolean): string {
  if (!asIPv6) {
    const v4 = Number(span.start - IPV4_MAPPED);
    return `${[24, 16, 8, 0].map((shift) => (v4 >>> shift) & 0xff).join('.')}/${span.prefix - 96}`;
  }
  const parts = Array.from({ length: 8 }, (_, i) => Number((span.start >> BigInt(112 - 16 * i)) & 0xffffn));
  return `${new ipaddr.IPv6(parts).toString()}/${span.prefix}`;
}

function isPieceAllowed(start: bigint, cls: AddressClass, allow: AllowList): boolean {
  if (cls === 'public') return true;
  // A metadata endpoint hands out the cloud credentials of the machine running Rampart; a broad
  // entry such as 169.254.0.0/16 (meant for lab devices) must not open it by accident, so only
  // an entry naming the address itself (/32 or /128) does.
  if (cls === 'metadata') return allow.exact.has(start);
  return allow.spans.some((s) => s.start <= start && start <= s.end);
}

/**
 * Walks a span in pieces cut at every block and allow-list boundary, so each piece has a single
 * class and lies wholly inside or wholly outside each allow entry.
 */
function judgeSpan(span: Span, allow: AllowList): AddressVerdict {
  const cuts = new Set<bigint>([span.start]);
  for (const s of [...BLOCKS, ...allow.spans]) {
    if (s.end < span.start || s.start > span.end) continue;
    if (s.start > span.start) cuts.add(s.start);
    if (s.end < span.end) cuts.add(s.end + 1n);
  }
  const starts = [...cuts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let firstNonPublic: AddressClass | undefined;
  for (const start of starts) {
    const cls = classifyValue(start);
    if (!isPieceAllowed(start, cls, allow)) return { allowed: false, class: cls };
    if (cls !== 'public') firstNonPublic ??= cls;
  }
  return { allowed: true, class: firstNonPublic ?? 'public' };
}

/**
 * A guard that refuses every non-public class unless the address lies in one of `allow` (CIDRs or
 * single addresses, v4 or v6), e.g. from RAMPART_ALLOW_TARGETS="127.0.0.0/8,::1/128,10.0.0.0/8".
 * Throws an Error naming the bad entry if an entry is not a valid CIDR/address, or has host bits
 * set (10.0.0.5/8 is more likely a typo than a wish to open all of 10/8).
 * Text that is no address is refused as 'reserved' rather than thrown on: the guard fails closed.
 */
export function createAddressGuard(allow: string[]): AddressGuard & {
  /** Whether every address of the range may be contacted: a CIDR that overlaps any refused range is refused unless the overlap lies wholly inside the allow list. Returns the verdict with the class of the first refused part (for an allowed range, of its first non-public part). */
  checkRange(cidr: string): AddressVerdict;
} {
  const list = compileAllowList(allow);
  return {
    check(address: string): AddressVerdict {
      const value = parseLenientAddress(address);
      if (value === undefined) return { allowed: false, class: 'reserved' };
      const cls = classifyValue(value);
      return { allowed: isPieceAllowed(value, cls, list), class: cls };
    },
    checkRange(cidr: string): AddressVerdict {
      const span = parseStrictCidr(cidr);
      if (typeof span === 'string') return { allowed: false, class: 'reserved' };
      return judgeSpan(span, list);
    },
  };
}

/** The outcome of `resolveAndCheck`: the addresses to connect to, or why there are none. */
export type ResolveResult =
  | { ok: true; addresses: string[] }
  | { ok: false; reason: 'unresolvable' | 'refused'; message: string; addresses: string[] };

/**
 * Resolves a hostname to all its A and AAAA addresses with a timeout (default 5000 ms), then
 * checks each with the guard. Never throws for DNS failures: returns a result. An IP literal
 * (brackets allowed, as URL.hostname gives them) is checked without DNS.
 * Callers must connect to the returned addresses, not resolve the name again: a second answer may
 * differ (DNS rebinding).
 */
export async function resolveAndCheck(
  hostname: string,
  guard: AddressGuard,
  options: { timeoutMs?: number; lookup?: (hostname: string) => Promise<string[]> } = {},
): Promise<ResolveResult> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await lookupWithTimeout(host, options.lookup ?? lookupAllAddresses, options.timeoutMs ?? 5000);
  } catch (error) {
    const message = `The host "${host}" could not be resolved (${describeDnsError(error)}).`;
    return { ok: false, reason: 'unresolvable', message, addresses: [] };
  }
  addresses = [...new Set(addresses)];
  if (addresses.length === 0) {
    return { ok: false, reason: 'unresolvable', message: `The host "${host}" has no IPv4 or IPv6 address.`, addresses };
  }
  return judgeAddresses(host, addresses, guard);
}

function judgeAddresses(host: string, addresses: string[], guard: AddressGuard): ResolveResult {
  const refused = addresses.flatMap((address) => {
    const verdict = guard.check(address);
    return verdict.allowed ? [] : [`${address} (${verdict.class})`];
  });
  if (refused.length === 0) return { ok: true, addresses };
  const message = `The host "${host}" resolves to ${refused.join(', ')}, which this service is not allowed to contact.`;
  return { ok: false, reason: 'refused', message, addresses };
}

async function lookupAllAddresses(hostname: string): Promise<string[]> {
  const records = await lookupDns(hostname, { all: true, verbatim: true });
  return records.map((record) => record.address);
}

/**
 * Bounds a lookup in time. The system resolver cannot be cancelled, so a late answer is merely
 * ignored; the timer is always cleared so nothing keeps the process alive.
 */
async function lookupWithTimeout(
  hostname: string,
  lookup: (hostname: string) => Promise<string[]>,
  timeoutMs: number,
): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    // Started inside the promise chain so a lookup that throws synchronously is caught too.
    return await Promise.race([Promise.resolve().then(() => lookup(hostname)), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function describeDnsError(error: unknown): string {
  if (error instanceof Error) return (error as NodeJS.ErrnoException).code ?? error.message;
  return String(error);
}
