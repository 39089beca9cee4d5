/**
 * Parsing of a scan's `scan_target` text into normalised targets.
 *
 * Network scans (Rampart, OpenVas, Nuclei) take IP addresses, CIDR ranges and hostnames; Rampart and
 * OpenVas never a port (ports are a separate scan option); ZAP takes http(s) URLs only; Nuclei takes http(s)
 * URLs too (the web service there is scanned directly, its path kept as the templates' base) and
 * `host:port` services (`[ipv6]:port`), whose protocol the scan detects. Targets are
 * normalised so that spellings of the same target collapse into one: IPv6 in RFC 5952 form, CIDRs
 * with host bits cleared, hostnames lowercased without the trailing dot, URLs as WHATWG `href`.
 * Whether a target may be contacted is not decided here: that is the address guard's work, after
 * DNS resolution (src/shared/address-guard.ts).
 */
import type { JobTarget } from '../engines/engine.js';
import { isIPv4, isIPv6 } from 'node:net';
import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';
import { joinHostPort, splitHostPort } from '../shared/host-port.js';

/** The engines a scan can run on. */
export type ScanType = 'Rampart' | 'OpenVas' | 'ZAP' | 'Nuclei';

/**
 * One normalised target: exactly what engines take as a job target, so a scan's stored targets
 * go to the engine unchanged. `url` targets exist for ZAP and Nuclei scans only, `service` ones for Nuclei only.
 */
export type ParsedTarget = JobTarget;

/** The targets of one scan, deduplicated, with the number of addresses they cover. */
export interface TargetList {
  targets: ParsedTarget[];
  /** IPs, hostnames, services and URLs count 1; a CIDR its size. A bigint, because an IPv6 /64 is huge. */
  addressCount: bigint;
}

type ItemResult = { ok: true; target: ParsedTarget; count: bigint } | { ok: false; error: string };

const MAX_ITEM_ERRORS = 10;
const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

/**
 * Parses a scan_target string for a scan type. Targets are separated by commas, spaces or
 * newlines (any mix, repeated separators fine), so a comma inside a URL must be written %2C.
 * Errors are sentences fit for a 422 on `scan_target`, naming the offending item.
 */
export function parseScanTargets(
  text: string,
  scanType: ScanType,
  options: { maxAddresses: number },
): { ok: true; value: TargetList } | { ok: false; errors: string[] } {
  const items = text.split(/[\s,]+/).filter((item) => item !== '');
  if (items.length === 0) return { ok: false, errors: ['The scan target field is required.'] };
  const targets = new Map<string, { target: ParsedTarget; count: bigint }>();
  const itemErrors = new Set<string>();
  for (const item of items) {
    const result = scanType === 'ZAP' || (scanType === 'Nuclei' && SCHEME.test(item)) ? parseUrlItem(item, scanType) : parseHostItem(item, scanType);
    if (!result.ok) itemErrors.add(result.error);
    else targets.set(`${result.target.kind} ${result.target.value}`, result);
  }
  const addressCount = [...targets.values()].reduce((sum, t) => sum + t.count, 0n);
  const errors = limitItemErrors([...itemErrors]);
  // Counted over the valid items only: if they alone exceed the cap, the fixed list will too.
  if (exceedsCap(addressCount, options.maxAddresses)) errors.push(describeCapExceeded(addressCount, options.maxAddresses));
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: { targets: [...targets.values()].map((t) => t.target), addressCount } };
}

/** The host part of a target, for the address guard and the Target resource: the IP, the hostname, the URL's or service's host (IPv6 without brackets), or for a CIDR its network address. */
export function hostOf(target: ParsedTarget): string {
  switch (target.kind) {
    case 'ip':
    case 'hostname':
      return target.value;
    case 'service':
      return splitHostPort(target.value)?.host ?? target.value;
    case 'cidr':
      return target.value.slice(0, target.value.indexOf('/'));
    case 'url':
      return new URL(target.value).hostname.replace(/^\[(.*)\]$/, '$1');
  }
}

function limitItemErrors(errors: string[]): string[] {
  if (errors.length <= MAX_ITEM_ERRORS) return errors;
  const more = errors.length - MAX_ITEM_ERRORS;
  return [...errors.slice(0, MAX_ITEM_ERRORS), `And ${more} more invalid target${more === 1 ? '' : 's'}.`];
}

/** `Infinity` means no cap (BigInt() would throw on it); NaN still throws, being a config bug. */
function exceedsCap(count: bigint, max: number): boolean {
  return max !== Infinity && count > BigInt(Math.floor(max));
}

function describeCapExceeded(count: bigint, max: number): string {
  return `The scan targets cover ${count} addresses; at most ${max} ${max === 1 ? 'is' : 'are'} allowed per scan.`;
}

/** Quotes an item for a message, cut short so a pasted blob cannot flood the reply. */
function quote(item: string): string {
  return JSON.stringify(item.length > 80 ? `${item.slice(0, 77)}...` : item);
}

function parseHostItem(item: string, scanType: ScanType): ItemResult {
  const scheme = SCHEME.exec(item);
  if (scheme) {
    const error = `${quote(item)} has a scheme; drop "${scheme[0]}" for a ${scanType} scan, or use a ZAP scan to scan a URL.`;
    return { ok: false, error };
  }
  const bracketed = /^\[([^\]]*)\](:\d*)?$/.exec(item);
  if (scanType === 'Nuclei' && (bracketed?.[2] || /^[^:/[\]]+:\d+$/.test(item))) return parseServiceItem(item);
  if (bracketed) {
    const error = bracketed[2]
      ? `${quote(item)} includes a port; give the address alone, without brackets (ports are a separate scan option).`
      : `${quote(item)}: write IPv6 addresses without brackets.`;
    return { ok: false, error };
  }
  if (item.includes('/')) return parseCidrItem(item);
  return parseAddressItem(item) ?? parseHostnameItem(item);
}

/**
 * A Nuclei `host:port` (`[ipv6]:port`) item: one service, whose protocol the scan's discovery
 * detects on that port alone. The host is normalised as a host item would be.
 */
function parseServiceItem(item: string): ItemResult {
  const colon = item.lastIndexOf(':');
  const portText = item.slice(colon + 1);
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
  if (!(port >= 1 && port <= 65535)) return { ok: false, error: `${quote(item)} has an invalid port; ports are 1 to 65535.` };
  const hostText = item.slice(0, colon);
  const inBrackets = /^\[(.*)\]$/.exec(hostText)?.[1];
  if (inBrackets !== undefined) {
    const zone = describeZoneId(inBrackets);
    if (zone) return { ok: false, error: zone };
    if (!isIPv6(inBrackets)) return { ok: false, error: `${quote(item)}: only IPv6 addresses go in brackets, and this is not a valid one.` };
    return { ok: true, target: { kind: 'service', value: joinHostPort(formatIPv6(inBrackets), port) }, count: 1n };
  }
  const host = parseAddressItem(hostText) ?? parseHostnameItem(hostText);
  if (!host.ok) return host;
  return { ok: true, target: { kind: 'service', value: joinHostPort(host.target.value, port) }, count: 1n };
}

/** An IP item, or an error for something address-shaped; undefined when it may be a hostname. */
function parseAddressItem(item: string): ItemResult | undefined {
  const zone = describeZoneId(item);
  if (zone) return { ok: false, error: zone };
  if (isIPv4(item)) return { ok: true, target: { kind: 'ip', value: item }, count: 1n };
  if (isIPv6(item)) return { ok: true, target: { kind: 'ip', value: formatIPv6(item) }, count: 1n };
  if (/^[^:]+:\d+$/.test(item)) {
    return { ok: false, error: `${quote(item)} includes a port; give the host alone (ports are a separate scan option).` };
  }
  if (/:.*:/.test(item)) return { ok: false, error: `${quote(item)} is not a valid IPv6 address.` };
  if (item.includes(':')) {
    return { ok: false, error: `${quote(item)} is not a valid IP address, CIDR range or hostname.` };
  }
  if (/^[0-9.]+$/.test(item)) return { ok: false, error: `${quote(item)} is not a valid IPv4 address.` };
  return undefined;
}

/** Zone ids (fe80::1%eth0) name an interface of the machine they were written on, not ours. */
function describeZoneId(address: string): string | undefined {
  const percent = address.indexOf('%');
  if (percent < 0 || !isIPv6(address.slice(0, percent))) return undefined;
  return `${quote(address)} has an IPv6 zone id (${address.slice(percent)}), which is not supported; remove it.`;
}

function formatIPv6(address: string): string {
  return ipaddr.IPv6.parse(address).toString();
}

function parseCidrItem(item: string): ItemResult {
  const [address = '', prefixText = '', extra] = item.split('/');
  const zone = describeZoneId(address);
  if (zone) return { ok: false, error: zone };
  const width = isIPv4(address) ? 32 : isIPv6(address) ? 128 : 0;
  if (width === 0 || extra !== undefined) {
    const error = `${quote(item)} is not a valid CIDR range; write an address and a prefix length, like 10.0.0.0/24 or 2001:db8::/64.`;
    return { ok: false, error };
  }
  const prefix = /^(0|[1-9][0-9]{0,2})$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix <= width)) {
    const error = `${quote(item)} has an invalid prefix length; ${width === 32 ? 'IPv4' : 'IPv6'} ranges take /0 to /${width}.`;
    return { ok: false, error };
  }
  const family = width === 32 ? ipaddr.IPv4 : ipaddr.IPv6;
  const network = family.networkAddressFromCIDR(`${address}/${prefix}`).toString();
  if (prefix === width) return { ok: true, target: { kind: 'ip', value: network }, count: 1n };
  return { ok: true, target: { kind: 'cidr', value: `${network}/${prefix}` }, count: 1n << BigInt(width - prefix) };
}

function parseHostnameItem(item: string): ItemResult {
  const name = item.toLowerCase().replace(/\.$/, '');
  const problem = findHostnameProblem(name);
  if (problem) return { ok: false, error: `${quote(item)} is not a valid hostname: ${problem}.` };
  return { ok: true, target: { kind: 'hostname', value: name }, count: 1n };
}

/** Why a lowercase name without trailing dot is not an acceptable hostname, or undefined. */
function findHostnameProblem(name: string): string | undefined {
  if (/[^\x00-\x7f]/.test(name)) {
    const ascii = domainToASCII(name);
    return `it contains non-ASCII characters; write it in punycode${ascii ? ` (${ascii})` : ''}`;
  }
  if (name.length > 253) return 'it is longer than 253 characters';
  if (!name.includes('.') && name !== 'localhost') {
    return 'it needs at least one dot (like host.example.com); only "localhost" may stand alone';
  }
  const labels = name.split('.');
  for (const label of labels) {
    if (label === '') return 'it has an empty label';
    if (label.length > 63) return `the label "${label.slice(0, 20)}..." is longer than 63 characters`;
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(label)) {
      return `the label ${quote(label)} may hold only letters, digits and hyphens, and may not start or end with a hyphen`;
    }
  }
  // An all-digit last label would make the name read as an IPv4 address to many parsers.
  if (/^[0-9]+$/.test(labels[labels.length - 1] ?? '')) return 'its last label is all digits';
  return undefined;
}

function parseUrlItem(item: string, scanType: ScanType): ItemResult {
  const scheme = SCHEME.exec(item)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    return { ok: false, error: `${quote(item)} has no scheme; ZAP scans need a full URL, like https://example.com/.` };
  }
  if (scheme !== 'http' && scheme !== 'https') {
    return { ok: false, error: `${quote(item)} uses the ${scheme} scheme; ${scanType} scans take only http:// and https:// URLs.` };
  }
  let url: URL;
  try {
    url = new URL(item);
  } catch {
    return { ok: false, error: `${quote(item)} is not a valid URL.` };
  }
  const problem = findUrlProblem(url);
  if (problem) return { ok: false, error: `${quote(item)} ${problem}.` };
  return { ok: true, target: { kind: 'url', value: url.href }, count: 1n };
}

function findUrlProblem(url: URL): string | undefined {
  // Credentials in a target would be stored and shown in reports; ZAP logs in by script instead.
  if (url.username !== '' || url.password !== '') {
    return 'contains credentials; remove them (an authenticated ZAP scan logs in with a login script)';
  }
  const host = url.hostname;
  // WHATWG has already validated IP hosts (and rejects zone ids); names still need our rules.
  if (host.startsWith('[') || isIPv4(host)) return undefined;
  const problem = findHostnameProblem(host.replace(/\.$/, ''));
  return problem ? `does not have a valid host: ${problem}` : undefined;
}
