/**
 * Turns a job's targets into groups of addresses to probe. CIDR ranges are expanded lazily by a
 * generator and counted arithmetically, so a /8 costs nothing until it is walked; host names are
 * resolved up front (there are few, and progress needs their address counts).
 *
 * Nothing here asks the address guard: the scan asks it for each address just before probing,
 * which is the one place every address, whatever its origin, passes through.
 */
import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { EngineError, type JobTarget } from '../engine.js';
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from './ip.js';
import { runPool } from '../../shared/pool.js';

/** A parsed CIDR range; `network` has its host bits cleared. */
export interface Cidr {
  family: 4 | 6;
  network: bigint;
  prefix: number;
}

/** The addresses one target stands for, under the name the target was given. */
export interface AddressGroup {
  /**
   * The name as given for hostname and url targets; null for ip and cidr targets, whose every
   * address is reported under its own text.
   */
  hostname: string | null;
  /** How many addresses `addresses()` yields, known without walking them. */
  count: bigint;
  /** A fresh lazy walk over the addresses. */
  addresses(): Iterable<string>;
}

/** A host name that gave no address, and why. */
export interface UnresolvedHost {
  hostname: string;
  reason: string;
}

/** The result of planning: what to probe, and which names could not be resolved. */
export interface TargetPlan {
  groups: AddressGroup[];
  unresolved: UnresolvedHost[];
}

/** Resolves a host name to its IPv4 and IPv6 addresses; injectable so tests need no DNS. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

/** The production resolver: the system's resolver (hosts file, then DNS), A and AAAA. */
export const resolveWithSystemDns: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/** Parses `a.b.c.d/n` or `x:y::/n`; a malformed range is a bad job (`EngineError('config')`). */
export function parseCidr(text: string): Cidr {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(text.trim());
  const bad = (): EngineError => new EngineError('config', `Invalid CIDR target "${text}".`);
  if (match === null) throw bad();
  const [, addressText = '', prefixText = ''] = match;
  const prefix = Number(prefixText);
  const v4 = parseIPv4(addressText);
  if (v4 !== null) {
    if (prefix > 32) throw bad();
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    return { family: 4, network: BigInt((v4 & mask) >>> 0), prefix };
  }
  const v6 = parseIPv6(addressText);
  if (v6 === null || prefix > 128) throw bad();
  const hostMask = (1n << BigInt(128 - prefix)) - 1n;
  return { family: 6, network: v6 & ~hostMask, prefix };
}

/**
 * How many addresses `expandCidr` yields. IPv4 ranges wider than /31 lose their network and
 * broadcast addresses (nothing answers there as a host, and a broadcast probe is noise); /31
 * point-to-point links (RFC 3021) and /32 keep every address. IPv6 has no broadcast, so every
 * address counts, the all-zeros subnet-router anycast address included.
 */
export function cidrSize(cidr: Cidr): bigint {
  const size = 1n << BigInt((cidr.family === 4 ? 32 : 128) - cidr.prefix);
  return cidr.family === 4 && cidr.prefix < 31 ? size - 2n : size;
}

/** Lazily yields the addresses of a range, in order, by the rules of `cidrSize`. */
export function* expandCidr(range: Cidr | string): Generator<string, void, undefined> {
  const cidr = typeof range === 'string' ? parseCidr(range) : range;
  if (cidr.family === 4) {
    const skipEnds = cidr.prefix < 31 ? 1 : 0;
    const first = Number(cidr.network) + skipEnds;
    const last = Number(cidr.network) + 2 ** (32 - cidr.prefix) - 1 - skipEnds;
    for (let value = first; value <= last; value += 1) yield formatIPv4(value);
    return;
  }
  const last = cidr.network + (1n << BigInt(128 - cidr.prefix)) - 1n;
  for (let value = cidr.network; value <= last; value += 1n) yield formatIPv6(value);
}

type Planned = { kind: 'group'; key: string; group: AddressGroup } | { kind: 'name'; key: string; hostname: string };

/** Concurrent DNS look-ups while planning; they are few and cheap, but each may wait a timeout. */
const RESOLVE_CONCURRENCY = 16;

/**
 * Validates every target (a bad one is `EngineError('config')`, raised before any look-up), then
 * resolves the host names, each bounded by `timeoutMs`. Duplicate targets are planned once. If
 * `signal` aborts, the look-ups still pending are abandoned and reported as unresolved.
 */
export async function planTargets(
  targets: readonly JobTarget[],
  options: { resolveHost: ResolveHost; timeoutMs: number; signal: AbortSignal },
): Promise<TargetPlan> {
  const planned: Planned[] = [];
  const seen = new Set<string>();
  for (const target of targets) {
    const item = planTarget(target);
    if (!seen.has(item.key)) {
      seen.add(item.key);
      planned.push(item);
    }
  }

  const resolved = new Map<string, string[] | string>();
  const names = planned.flatMap((item) => (item.kind === 'name' ? [item.hostname] : []));
  await runPool(
    names[Symbol.iterator](),
    RESOLVE_CONCURRENCY,
    async (hostname, signal) => {
      resolved.set(hostname, await resolveWithin(hostname, { ...options, signal }));
    },
    options.signal,
  );

  const plan: TargetPlan = { groups: [], unresolved: [] };
  for (const item of planned) {
    if (item.kind === 'group') {
      plan.groups.push(item.group);
      continue;
    }
    const outcome = resolved.get(item.hostname) ?? 'look-up abandoned';
    if (typeof outcome === 'string') plan.unresolved.push({ hostname: item.hostname, reason: outcome });
    else plan.groups.push(listGroup(item.hostname, outcome));
  }
  return plan;
}

function planTarget(target: JobTarget): Planned {
  switch (target.kind) {
    case 'ip':
      if (net.isIP(target.value) === 0) throw new EngineError('config', `Invalid IP target "${target.value}".`);
      return { kind: 'group', key: `ip:${target.value}`, group: listGroup(null, [target.value]) };
    case 'cidr': {
      const cidr = parseCidr(target.value);
      const key = `cidr:${cidr.network}/${cidr.prefix}`;
      return { kind: 'group', key, group: { hostname: null, count: cidrSize(cidr), addresses: () => expandCidr(cidr) } };
    }
    case 'hostname':
      return nameOrAddress(target.value.trim(), target.value);
    case 'url': {
      let host: string;
      try {
        host = new URL(target.value).hostname;
      } catch {
        throw new EngineError('config', `Invalid URL target "${target.value}".`);
      }
      // WHATWG URL keeps the brackets of an IPv6 literal; the address is what lies inside.
      return nameOrAddress(host.replace(/^\[(.*)\]$/, '$1'), target.value);
    }
    case 'service':
      // Only Nuclei scans take host:port; the API never gives one to a Rampart or OpenVas scan.
      throw new EngineError('config', `The target "${target.value}" names a port; this scan takes hosts, addresses and ranges (its ports are a scan option).`);
  }
}

function nameOrAddress(host: string, given: string): Planned {
  if (host === '') throw new EngineError('config', `Target "${given}" has no host name.`);
  if (net.isIP(host) !== 0) return { kind: 'group', key: `ip:${host}`, group: listGroup(null, [host]) };
  return { kind: 'name', key: `name:${host.toLowerCase()}`, hostname: host };
}

/** Each address is probed as a literal, so a host's own name is never looked up again later. */
function listGroup(hostname: string | null, addresses: readonly string[]): AddressGroup {
  return { hostname, count: BigInt(addresses.length), addresses: () => addresses };
}

/** The distinct addresses of a name, or why there are none. */
async function resolveWithin(
  hostname: string,
  options: { resolveHost: ResolveHost; timeoutMs: number; signal: AbortSignal },
): Promise<string[] | string> {
  const { signal, timeoutMs } = options;
  if (signal.aborted) return 'look-up abandoned';
  // getaddrinfo cannot be cancelled; on timeout or abort we stop waiting and let it finish unseen.
  const outcome = await new Promise<string[] | string>((resolve) => {
    const finish = (value: string[] | string): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = (): void => finish('look-up abandoned');
    const timer = setTimeout(() => finish(`no answer within ${timeoutMs} ms`), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    options.resolveHost(hostname).then(finish, (error: unknown) => finish(describeLookupError(error)));
  });
  if (typeof outcome === 'string') return outcome;
  const addresses = [...new Set(outcome.filter((address) => net.isIP(address) !== 0))];
  return addresses.length > 0 ? addresses : 'no addresses';
}

function describeLookupError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : String(error);
}
