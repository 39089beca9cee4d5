/**
 * The UDP stage of the Rampart engine: runs the table of UDP probes against one address, each
 * with its real protocol request, and turns the recognised replies into services and findings.
 *
 * A silent UDP port is `open|filtered` (a firewall and an idle service look the same): it is kept
 * out of the result, never reported. A reply in another protocol proves an open port only; it is
 * reported as an `unknown` service without a finding.
 */
import { EngineError, type EngineJob, type EngineLimits } from '../../engine.js';
import type { CheckFinding, ServiceInfo } from '../checks/check.js';
import { runPool } from '../../../shared/pool.js';
import type { TokenBucket } from '../rate-limit.js';
import { runExchange } from './datagram.js';
import { dnsProbe } from './dns.js';
import { memcachedProbe } from './memcached.js';
import { netbiosProbe } from './netbios.js';
import { ntpProbe } from './ntp.js';
import { snmpProbe } from './snmp.js';
import { ssdpProbe } from './ssdp.js';
import { udpService, type UdpProbe } from './udp-probe.js';
import type { UdpProbeName } from './udp-ports.js';

export type { UdpProbeName } from './udp-ports.js';
export { DEFAULT_UDP_PORTS } from './udp-ports.js';

/** Every UDP probe, in the order they start. */
export const UDP_PROBES: readonly UdpProbe[] = [dnsProbe, ntpProbe, snmpProbe, memcachedProbe, ssdpProbe, netbiosProbe];

/** A service that answered on one UDP port. */
export interface UdpService {
  port: number;
  service: ServiceInfo;
}

export interface UdpScanResult {
  services: UdpService[];
  findings: (CheckFinding & { port: number })[];
}

/**
 * Which probes run where. A list of ports runs the probes whose default port is listed; a map
 * from probe name to port runs exactly the named probes, each on its port (tests, or a service
 * moved off its usual port). Absent: every probe on its default port.
 */
export type UdpPortSelection = readonly number[] | Readonly<Partial<Record<UdpProbeName, number>>>;

export interface UdpScanOptions {
  ports?: UdpPortSelection;
  limits: EngineLimits;
  signal: AbortSignal;
  /** The job's egress: each datagram socket comes from it, so the address is checked. */
  egress: EngineJob['egress'];
  /** The job's rate limit; one token is taken before each datagram. */
  bucket?: TokenBucket;
}

/**
 * Probes the default UDP services of one address with real protocol payloads, at most
 * `limits.maxConcurrency` probes at once, each waiting `limits.readTimeoutMs` for replies.
 * `address` must be a literal address already allowed by the address guard; `hostname` is the
 * name the target was given as (unused on the wire, kept for symmetry with TCP checks).
 * On abort it resolves promptly with what was found so far, every socket closed; it throws only
 * `EngineError('config')` for a bad port selection.
 */
export async function scanUdp(address: string, hostname: string, options: UdpScanOptions): Promise<UdpScanResult> {
  const plan = planProbes(options.ports);
  const result: UdpScanResult = { services: [], findings: [] };
  const answers = new Map<number, UdpService[]>();

  await runPool(
    plan[Symbol.iterator](),
    options.limits.maxConcurrency,
    async ({ probe, port }, signal) => {
      const exchange = probe.start();
      const state = await runExchange(address, port, exchange, { timeoutMs: options.limits.readTimeoutMs, signal, egress: options.egress, bucket: options.bucket });
      const outcome = exchange.outcome();
      const found = answers.get(port) ?? [];
      if (outcome !== null) {
        found.push({ port, service: outcome.service });
        result.findings.push(...outcome.findings.map((finding) => ({ ...sayUdp(finding, port), port })));
      } else if (state === 'unrecognised') {
        found.push({ port, service: udpService('unknown', { details: { answeredProbe: probe.name } }) });
      }
      answers.set(port, found);
    },
    options.signal,
  );

  // Two probes on one port (tests, odd maps): a recognised service wins over `unknown`.
  for (const [, found] of [...answers].sort(([a], [b]) => a - b)) {
    const known = found.filter((entry) => entry.service.name !== 'unknown');
    result.services.push(...(known.length > 0 ? known : found.slice(0, 1)));
  }
  return result;
}

/**
 * A UDP finding says UDP in its name and evidence, so a reader never takes it for the TCP service
 * of the same number (DNS, SNMP and memcached listen on both).
 */
export function sayUdp(finding: CheckFinding, port: number): CheckFinding {
  const name = /\bUDP\b/.test(finding.name) ? finding.name : `${finding.name} (UDP)`;
  return { ...finding, name, evidence: `UDP port ${port}: ${finding.evidence}` };
}

const HIGHEST_PORT = 65535;

function planProbes(selection: UdpPortSelection | undefined): { probe: UdpProbe; port: number }[] {
  if (selection === undefined) return UDP_PROBES.map((probe) => ({ probe, port: probe.defaultPort }));
  if (isPortList(selection)) {
    selection.forEach(checkPort);
    return UDP_PROBES.filter((probe) => selection.includes(probe.defaultPort)).map((probe) => ({ probe, port: probe.defaultPort }));
  }
  return Object.entries(selection).map(([name, port]) => {
    const probe = UDP_PROBES.find((candidate) => candidate.name === name);
    if (!probe) throw new EngineError('config', `Unknown UDP probe "${name}".`);
    checkPort(port);
    return { probe, port: port as number };
  });
}

function isPortList(selection: UdpPortSelection): selection is readonly number[] {
  return Array.isArray(selection);
}

function checkPort(port: unknown): void {
  if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > HIGHEST_PORT) {
    throw new EngineError('config', `UDP port ${String(port)} is outside 1–65535.`);
  }
}
