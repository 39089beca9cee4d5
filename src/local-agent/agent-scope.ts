/**
 * What an agent may report: hosts of its scan's targets only. A name must be one of the host names
 * the scan names; an address (a host's, a finding's, a URL's host) must lie in one of the scan's
 * addresses or ranges, except the address an agent resolved one of the scan's names to.
 */
import { BlockList, isIP } from 'node:net';
import type { JobTarget } from '../engines/engine.js';
import type { FieldErrors } from '../shared/errors.js';
import type { WireEvent } from '../shared/agent-protocol.js';
import { hostOf } from '../scans/targets.js';

/** What a scan's targets allow an agent to report. */
export interface TargetScope {
  /** A name the scan names, or an address in one of its addresses or ranges. */
  host(host: string): boolean;
  /** A name the scan names (its addresses are whatever the agent's network resolves it to). */
  named(host: string): boolean;
}

/** The scope of one scan's targets. */
export function targetScope(targets: JobTarget[]): TargetScope {
  const blocks = new BlockList();
  const names = new Set<string>();
  for (const target of targets) {
    const host = hostOf(target);
    const family = isIP(host);
    if (target.kind === 'cidr' && family) blocks.addSubnet(host, Number(target.value.slice(target.value.indexOf('/') + 1)), family === 6 ? 'ipv6' : 'ipv4');
    else if (family) blocks.addAddress(host, family === 6 ? 'ipv6' : 'ipv4');
    else names.add(host.toLowerCase());
  }
  const inBlocks = (address: string) => {
    const family = isIP(address);
    return family !== 0 && blocks.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
  return {
    host: (host) => (isIP(host) ? inBlocks(host) : names.has(host.toLowerCase())),
    named: (host) => names.has(host.toLowerCase()),
  };
}

/**
 * 422 errors for the events that reach outside the scope, by `events.<index>`; empty when all are
 * inside. A host or finding must name one of the scan's hosts; the address beside it must be an
 * address (or empty) and, unless the host is one of the scan's names (whose addresses only the
 * agent's network knows), lie in the scan's addresses or ranges; a finding's URL must be on a host
 * of the scan.
 */
export function eventsOutsideScope(events: WireEvent[], scope: TargetScope): FieldErrors {
  const errors: FieldErrors = {};
  events.forEach((event, index) => {
    const problem = event.type === 'host' ? locationProblem(scope, event.hostname, event.address, null) : event.type === 'finding' ? locationProblem(scope, event.finding.hostname, event.finding.hostIp, event.finding.url ?? null) : undefined;
    if (problem) errors[`events.${index}`] = [`The ${event.type} event's ${problem}: the agent may only report its scan's targets.`];
  });
  return errors;
}

function locationProblem(scope: TargetScope, host: string, address: string, url: string | null): string | undefined {
  const spelling = spellingProblem('host', host) ?? (address === '' ? undefined : spellingProblem('address', address));
  if (spelling) return spelling;
  if (!scope.host(host)) return `host ${host} is not among the scan's targets`;
  if (address !== '') {
    if (isIP(address) === 0) return `address ${address} is not an IP address`;
    if (!scope.named(host) && !scope.host(address)) return `address ${address} is not among the scan's targets`;
  }
  if (url !== null) {
    let urlHost: string;
    try {
      // A URL's IPv6 host is bracketed, and a name may end in the root's dot.
      urlHost = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1').replace(/(?<=[^.])\.$/, '');
    } catch {
      return `URL ${url} is not a URL`;
    }
    if (!scope.host(urlHost)) return `URL ${url} is not on one of the scan's targets`;
  }
  return undefined;
}

/**
 * A host or address is stored as sent, so it must be written as the scan writes its targets: one
 * host spelt two ways would be two hosts in the findings.
 */
function spellingProblem(kind: 'host' | 'address', value: string): string | undefined {
  if (/[[\]%]/.test(value)) return `${kind} ${value} is not written plainly (no brackets, no zone)`;
  if (/^::ffff:/i.test(value) && isIP(value) === 6) return `${kind} ${value} is an IPv4 address written as IPv6 (write it as a.b.c.d)`;
  return undefined;
}
