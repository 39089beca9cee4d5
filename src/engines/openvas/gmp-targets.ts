/**
 * The job's targets as gvmd's `<hosts>` list, checked against the deployment's address guard
 * first: OpenVAS connects by itself and knows nothing of the guard, so nothing it may not touch is
 * handed over.
 * - A range: every address is checked, up to MAX_RANGE_ADDRESSES.
 * - A name: resolved once through the job's egress, and *every* address it has must be allowed
 *   (keeping only the allowed ones, as a connecting engine does, would not stop OpenVAS from
 *   scanning the others). gvmd gets the checked addresses, never the name: gvmd would resolve it
 *   again, and an answer that changed in between (DNS rebinding) would escape the check.
 * The report then speaks of addresses only; `labelOf` gives each back the name its target had.
 */
import net from 'node:net';
import { EgressError } from '../../shared/egress.js';
import { EngineError, type EngineJob } from '../engine.js';

/** Largest range checked address by address (the deployment's target cap is usually lower). */
const MAX_RANGE_ADDRESSES = 1 << 20;

function toBigInt(address: string): bigint {
  if (net.isIPv4(address)) return address.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
  const [head = '', tail = ''] = address.split('::');
  const groups = (text: string) => (text === '' ? [] : text.split(':'));
  const left = groups(head);
  const right = groups(tail);
  const all = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return all.reduce((n, group) => (n << 16n) | BigInt(parseInt(group, 16)), 0n);
}

function fromBigInt(value: bigint, v4: boolean): string {
  if (v4) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join('.');
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(((value >> shift) & 0xffffn).toString(16));
  return groups.join(':');
}

/** The first refused address of a range, or null when the guard allows every one. */
function refusedInRange(job: EngineJob, cidr: string): string | null {
  const [address = '', prefixText = ''] = cidr.split('/');
  const v4 = net.isIPv4(address);
  const bits = v4 ? 32 : 128;
  const prefix = Number(prefixText);
  const size = 1n << BigInt(bits - prefix);
  if (size > BigInt(MAX_RANGE_ADDRESSES)) {
    throw new EngineError('config', `The range ${cidr} is larger than ${MAX_RANGE_ADDRESSES} addresses, more than Rampart checks before handing a range to OpenVAS: split it.`);
  }
  const start = (toBigInt(address) >> BigInt(bits - prefix)) << BigInt(bits - prefix);
  for (let offset = 0n; offset < size; offset++) {
    const candidate = fromBigInt(start + offset, v4);
    if (!job.guard.check(candidate).allowed) return candidate;
  }
  return null;
}

/** What gvmd's target is made of, and how the report's addresses read back. */
export interface GmpTargets {
  /** gvmd's `<hosts>`: checked addresses and ranges, comma-separated, never a name. */
  hosts: string;
  /**
   * The host a report's address is shown under: the name it was resolved from (the first such
   * target when several name it), else the address itself, as the target gave it.
   */
  labelOf(address: string): string;
}

/** One spelling per IPv6 address (gvmd and the resolver may write it differently). */
function addressKey(address: string): string {
  return net.isIPv6(address) && !address.includes('.') && !address.includes('%') ? fromBigInt(toBigInt(address), false) : address;
}

/**
 * The hosts of gvmd's target. Throws `network-permanent` for a target the guard refuses (for a
 * name, any of its addresses), `network-temporary` for a name that does not resolve, `config` for
 * a URL or service target (OpenVAS scans take addresses, ranges and names).
 */
export async function gmpTargets(job: EngineJob): Promise<GmpTargets> {
  const hosts = new Set<string>();
  const names = new Map<string, string>();
  for (const target of job.targets) {
    if (target.kind === 'url' || target.kind === 'service') {
      throw new EngineError('config', `OpenVAS scans take IP addresses, CIDR ranges and host names; "${target.value}" is not one.`);
    }
    if (target.kind === 'cidr') {
      const refused = refusedInRange(job, target.value);
      if (refused) throw new EngineError('network-permanent', `${refused} in ${target.value} may not be scanned from this deployment (RAMPART_ALLOW_TARGETS does not cover it): the range was not handed to OpenVAS.`);
      hosts.add(target.value);
      continue;
    }
    let addresses: string[];
    try {
      addresses = await job.egress.resolveEvery(target.value);
    } catch (error) {
      if (!(error instanceof EgressError)) throw error;
      const kind = error.code === 'unresolvable' ? 'network-temporary' : 'network-permanent';
      throw new EngineError(kind, `${error.message} ${target.value} was not handed to OpenVAS: OpenVAS connects by itself, so every address of a target must be allowed before it starts.`, { cause: error });
    }
    for (const address of addresses) {
      hosts.add(address);
      if (target.kind === 'hostname' && !names.has(addressKey(address))) names.set(addressKey(address), target.value);
    }
  }
  return { hosts: [...hosts].join(','), labelOf: (address) => names.get(addressKey(address)) ?? address };
}
