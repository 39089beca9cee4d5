/**
 * The agent's address guard: exactly the scan's targets and nothing else. Inside the user's
 * network private addresses are the point, so the service's class-based guard
 * (src/shared/address-guard.ts) does not fit; instead an address is allowed only when it is one of
 * the scan's IPs, lies in one of its CIDR ranges, or is an address one of its host names resolved
 * to when the attempt began. Like the service's guard it judges addresses, after DNS: the engine
 * resolves a name, then asks about each address, so a name that later resolves elsewhere (DNS
 * rebinding, a redirect to another host) reaches nothing outside the list.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { classifyAddress, resolveAndCheck, type AddressGuard, type AddressVerdict } from '../shared/address-guard.js';

export interface ScanTarget {
  kind: string;
  value: string;
}

/** The guard, and what each host name target resolved to (the engine is given the same answers). */
export interface TargetGuard extends AddressGuard {
  readonly resolved: ReadonlyMap<string, string[]>;
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

const ALLOW_ALL: AddressGuard = { check: () => ({ allowed: true, class: 'private' }) };

/**
 * Builds the guard of one attempt. Host names (and the hosts of URL targets) are resolved now;
 * a name that does not resolve is simply not allowed (the engine reports it unresolvable).
 */
export async function createTargetGuard(targets: ScanTarget[], options: { lookup?: (host: string) => Promise<string[]> } = {}): Promise<TargetGuard> {
  const ranges: Range[] = [];
  const resolved = new Map<string, string[]>();
  for (const target of targets) {
    const host = hostOf(target);
    if (host === undefined) continue;
    if (target.kind === 'cidr') ranges.push(ipaddr.parseCIDR(host));
    else if (isIP(host)) ranges.push(asHostRange(host));
    else {
      // The service's resolver with a guard that refuses nothing: only the look-up and its timeout are wanted.
      const answer = await resolveAndCheck(host, ALLOW_ALL, options.lookup ? { lookup: options.lookup } : {});
      resolved.set(host, answer.addresses);
      for (const address of answer.addresses) ranges.push(asHostRange(address));
    }
  }
  return {
    resolved,
    check(address: string): AddressVerdict {
      let parsed: ipaddr.IPv4 | ipaddr.IPv6;
      try {
        // process(): ::ffff:10.0.0.1 is judged as 10.0.0.1, so a mapped spelling cannot slip past.
        parsed = ipaddr.process(address.replace(/%.*$/, ''));
      } catch {
        return { allowed: false, class: 'reserved' };
      }
      const inside = ranges.some(([network, prefix]) => network.kind() === parsed.kind() && parsed.match(network, prefix));
      // The class only words the engine's messages; the verdict is the list's alone.
      return { allowed: inside, class: classifyAddress(parsed.toString()) };
    },
  };
}

/** The host part of a target: the address, range, name, or the host of a URL or host:port. */
function hostOf(target: ScanTarget): string | undefined {
  switch (target.kind) {
    case 'ip':
    case 'cidr':
    case 'hostname':
      return target.value;
    case 'url':
      return new URL(target.value).hostname.replace(/^\[(.*)\]$/, '$1');
    case 'service':
      return target.value.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
    default:
      return undefined;
  }
}

function asHostRange(address: string): Range {
  const parsed = ipaddr.process(address);
  return [parsed, parsed.kind() === 'ipv4' ? 32 : 128];
}
