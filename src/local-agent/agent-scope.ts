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
    host: (host) => {
      const bare = unbracket(host);
      return isIP(bare) ? inBlocks(bare) : names.has(bare.toLowerCase());
    },
    named: (host) => names.has(unbracket(host).toLowerCase()),
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
  if (!scope.host(host)) return `host ${host} is not among the scan's targets`;
  if (address !== '') {
    if (isIP(unbracket(address)) === 0) return `address ${address} is not an IP address`;
    if (!scope.named(host) && !scope.host(address)) return `address ${address} is not among the scan's targets`;
  }
  if (url !== null) {
    let urlHost: string;
    try {
      urlHost = new URL(url).hostname;
    } catch {
      return `URL ${url} is not a URL`;
    }
    if (!scope.host(urlHost)) return `URL ${url} is not on one of the scan's targets`;
  }
  return undefined;
}

function unbracket(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}
