/**
 * What an agent may report: hosts of its scan's targets only. An address must lie in one of the
 * scan's addresses or ranges; a name must be one of the host names the scan names.
 */
import { BlockList, isIP } from 'node:net';
import type { JobTarget } from '../engines/engine.js';
import type { FieldErrors } from '../shared/errors.js';
import type { WireEvent } from '../shared/agent-protocol.js';
import { hostOf } from '../scans/targets.js';

/** A test of one host name or address against the scan's targets. */
export function targetScope(targets: JobTarget[]): (host: string) => boolean {
  const blocks = new BlockList();
  const names = new Set<string>();
  for (const target of targets) {
    const host = hostOf(target);
    const family = isIP(host);
    if (target.kind === 'cidr' && family) blocks.addSubnet(host, Number(target.value.slice(target.value.indexOf('/') + 1)), family === 6 ? 'ipv6' : 'ipv4');
    else if (family) blocks.addAddress(host, family === 6 ? 'ipv6' : 'ipv4');
    else names.add(host.toLowerCase());
  }
  return (host) => {
    const bare = host.replace(/^\[(.*)\]$/, '$1');
    const family = isIP(bare);
    return family ? blocks.check(bare, family === 6 ? 'ipv6' : 'ipv4') : names.has(bare.toLowerCase());
  };
}

/** 422 errors for the events whose host is outside the scope, by `events.<index>`; empty when all are inside. */
export function eventsOutsideScope(events: WireEvent[], inScope: (host: string) => boolean): FieldErrors {
  const errors: FieldErrors = {};
  events.forEach((event, index) => {
    const host = event.type === 'host' ? event.hostname : event.type === 'finding' ? event.finding.hostname : undefined;
    if (host !== undefined && !inScope(host)) {
      errors[`events.${index}`] = [`The ${event.type} event's host ${host} is not among the scan's targets: the agent may only report its scan's targets.`];
    }
  });
  return errors;
}
