/**
 * The findings the Rampart engine reports. Each check gets a stable rule id (`rampart:<check>`)
 * because the rule id is part of a finding's fingerprint: renaming one would duplicate findings
 * across runs instead of updating them.
 */
import type { Finding } from '../engine.js';
import { escapeBanner } from './banner.js';
import { guessServiceFromBanner } from './services.js';

/** Rule id of the open-port finding. */
export const OPEN_PORT_RULE_ID = 'rampart:open-port';

/** The host a finding is about: the name as given and the address probed. */
export interface ProbedHost {
  hostname: string;
  address: string;
}

/**
 * The Informational finding recording one open TCP port, with its banner (escaped) or a note
 * that the service stayed silent for `readTimeoutMs`.
 */
export function openPortFinding(host: ProbedHost, port: number, banner: Buffer, readTimeoutMs: number): Finding {
  const evidence =
    banner.length > 0
      ? `Port ${port}/tcp on ${host.address} accepted a TCP connection. Banner (${banner.length} bytes): ${escapeBanner(banner)}`
      : `Port ${port}/tcp on ${host.address} accepted a TCP connection; no banner within ${readTimeoutMs} ms.`;
  return {
    hostname: host.hostname,
    hostIp: host.address,
    port,
    protocol: 'tcp',
    service: guessServiceFromBanner(banner),
    ruleId: OPEN_PORT_RULE_ID,
    name: `Open port ${port}/tcp`,
    description:
      `TCP port ${port} accepts connections from where the scan ran. Every reachable service is ` +
      'attack surface: this finding records the exposure so that an unexpected one is noticed.',
    solution:
      'If this service need not be reachable from here, stop it or bind it to a private interface, ' +
      'or restrict the port with a firewall to the hosts that need it.',
    threat: 'Informational',
    cvssBase: null,
    cvssVector: null,
    cve: [],
    cwe: null,
    evidence,
    references: [],
  };
}
