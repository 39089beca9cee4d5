/**
 * NTP (UDP 123): one 48-byte NTPv4 client request (mode 3), the packet every NTP client sends.
 * The transmit timestamp is a random nonce, as chrony's clients send it; a server copies it into
 * its reply's origin timestamp, which is how the reply is matched. Mode 7 (`monlist`) and mode 6
 * (`readvar`) are amplifiers and are never sent.
 */
import { randomBytes } from 'node:crypto';
import type { CheckFinding } from '../checks/check.js';
import { CISA_UDP_AMPLIFICATION, udpService, type UdpExchange, type UdpProbe } from './udp-probe.js';
import { DEFAULT_UDP_PORTS } from './udp-ports.js';
import { severityOf } from '../severity.js';

const PACKET_BYTES = 48;
const MODE_CLIENT = 3;
const MODE_SERVER = 4;
const ORIGIN_OFFSET = 24;
const TRANSMIT_OFFSET = 40;

/** An NTPv4 client request whose transmit timestamp is `nonce` (8 bytes). */
export function buildNtpRequest(nonce: Buffer): Buffer {
  const packet = Buffer.alloc(PACKET_BYTES);
  packet[0] = (0 << 6) | (4 << 3) | MODE_CLIENT; // LI=0, VN=4, mode 3
  nonce.copy(packet, TRANSMIT_OFFSET, 0, 8);
  return packet;
}

/** The header fields of a server reply. */
export interface NtpReply {
  version: number;
  stratum: number;
  /** Stratum 1: the reference clock's code (`GPS`, `PPS`); stratum 0: the kiss code (`DENY`, `RATE`); else the upstream server's IPv4 (or an IPv6 hash shown the same way). */
  referenceId: string;
}

/** Decodes a mode-4 reply to the request carrying `nonce`; null for anything else. */
export function parseNtpReply(packet: Buffer, nonce: Buffer): NtpReply | null {
  if (packet.length < PACKET_BYTES) return null;
  const first = packet[0]!;
  if ((first & 0x07) !== MODE_SERVER) return null;
  if (!packet.subarray(ORIGIN_OFFSET, ORIGIN_OFFSET + 8).equals(nonce)) return null;
  const stratum = packet[1]!;
  const id = packet.subarray(12, 16);
  const referenceId = stratum <= 1 ? id.toString('latin1').replace(/[^\x20-\x7e]/g, '') : [...id].join('.');
  return { version: (first >> 3) & 0x07, stratum, referenceId };
}

function startNtp(): UdpExchange {
  const nonce = randomBytes(8);
  let reply: NtpReply | null = null;
  return {
    datagrams: [buildNtpRequest(nonce)],
    accept(packet) {
      reply ??= parseNtpReply(packet, nonce);
      return reply !== null;
    },
    outcome() {
      if (reply === null) return null;
      const details = { stratum: String(reply.stratum), referenceId: reply.referenceId };
      return { service: udpService('ntp', { version: String(reply.version), details }), findings: [ntpFinding(reply)] };
    },
  };
}

function ntpFinding(reply: NtpReply): CheckFinding {
  const stratum = reply.stratum === 0 ? `0 (kiss code "${reply.referenceId}")` : String(reply.stratum);
  return {
    ruleId: 'rampart:udp-ntp-exposed',
    name: 'NTP server answers',
    description:
      'An NTP server answers client requests on this address. This records the exposure: time service is often ' +
      'meant to be public, but the reply reveals the upstream time source, and an ntpd that also answers mode 6 ' +
      'or mode 7 queries (not tested: they are amplification vectors) can be abused for reflection.',
    solution:
      'If this server need not serve time here, restrict UDP 123. Otherwise make sure mode 6/7 queries are ' +
      'refused (ntpd `restrict default kod nomodify notrap nopeer noquery`, or use chrony).',
    ...severityOf('rampart:udp-ntp-exposed'),
    cve: [],
    cwe: null,
    evidence: `NTPv4 client request (mode 3) answered by a mode-4 reply: VN=${reply.version}, stratum ${stratum}, reference id ${reply.referenceId}.`,
    references: ['https://www.rfc-editor.org/rfc/rfc5905', CISA_UDP_AMPLIFICATION],
  };
}

/** The NTP client-request probe. */
export const ntpProbe: UdpProbe = { name: 'ntp', defaultPort: DEFAULT_UDP_PORTS.ntp, start: startNtp };
