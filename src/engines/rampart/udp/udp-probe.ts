/**
 * The shape every UDP probe shares, so that the scan is a table of probes and each protocol file
 * only knows its own bytes.
 *
 * Glossary: a *probe* is one protocol's request and reply parser; an *exchange* is one run of a
 * probe against one (address, port): the datagrams it sends (one or two, each small) and the
 * replies it has read so far; an *outcome* is what a recognised reply showed.
 */
import { escapeBanner } from '../banner.js';
import type { CheckFinding, ServiceInfo } from '../checks/check.js';
import type { UdpProbeName } from './udp-ports.js';

/** What a recognised reply showed: the service, and the findings it proves. */
export interface UdpProbeOutcome {
  service: ServiceInfo;
  findings: CheckFinding[];
}

/** One run of a probe: fresh request ids, so replies can be matched to this run only. */
export interface UdpExchange {
  /** The datagrams to send, in order: at most two, each well under one MTU. */
  readonly datagrams: readonly Buffer[];
  /**
   * Reads one reply. Replies that are not this protocol's answer to these datagrams are ignored.
   * Returns true when no further reply is awaited, so the exchange can end before its timeout.
   */
  accept(reply: Buffer): boolean;
  /** What the accepted replies showed; null when none was recognised. */
  outcome(): UdpProbeOutcome | null;
}

/** One protocol's probe: where it listens by default and how to start an exchange. */
export interface UdpProbe {
  readonly name: UdpProbeName;
  readonly defaultPort: number;
  start(): UdpExchange;
}

/** A `ServiceInfo` for a UDP service (never TLS, no unprompted banner). */
export function udpService(name: string, fields: Partial<Omit<ServiceInfo, 'name' | 'tls'>> = {}): ServiceInfo {
  return {
    name,
    product: fields.product ?? null,
    version: fields.version ?? null,
    cpe: fields.cpe ?? null,
    tls: false,
    banner: fields.banner ?? null,
    details: fields.details ?? {},
  };
}

/** Text from the target, made safe and short for evidence (control bytes escaped). */
export function evidenceText(text: string | Uint8Array, maxBytes = 512): string {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.from(text);
  const escaped = escapeBanner(bytes.subarray(0, maxBytes));
  return bytes.length > maxBytes ? `${escaped}…` : escaped;
}

/** The CISA alert on UDP reflection amplification (DNS, NTP, SNMP, SSDP, NetBIOS, memcached). */
export const CISA_UDP_AMPLIFICATION = 'https://www.cisa.gov/news-events/alerts/2014/01/17/udp-based-amplification-attacks';
