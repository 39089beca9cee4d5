/**
 * DNS (UDP 53): two queries sent together, each with its own id.
 * - `version.bind` CH TXT with RD=0: BIND, Unbound, dnsmasq, Knot and PowerDNS answer with
 *   their name and version unless configured to hide it (many answer REFUSED, which still
 *   proves a DNS server).
 * - `example.com` IN A with RD=1: the reply header's RA bit says whether the server offers
 *   recursion to us. Only the flag matters; the answer itself is not used.
 */
import { randomInt } from 'node:crypto';
import type { CheckFinding } from '../checks/check.js';
import { CISA_UDP_AMPLIFICATION, evidenceText, udpService, type UdpExchange, type UdpProbe } from './udp-probe.js';
import { DEFAULT_UDP_PORTS } from './udp-ports.js';
import { severityOf } from '../severity.js';

const TYPE_A = 1;
const TYPE_TXT = 16;
const CLASS_IN = 1;
const CLASS_CH = 3;
const FLAG_QR = 0x8000;
const FLAG_RD = 0x0100;
const FLAG_RA = 0x0080;
const RCODE_REFUSED = 5;

/** A standard query for one name; `recursionDesired` sets RD. */
export function buildDnsQuery(id: number, name: string, type: number, klass: number, recursionDesired: boolean): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(recursionDesired ? FLAG_RD : 0, 2);
  header.writeUInt16BE(1, 4); // QDCOUNT
  const labels = name.split('.').filter((label) => label.length > 0);
  const qname = Buffer.concat([...labels.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'ascii')])), Buffer.from([0])]);
  const question = Buffer.alloc(4);
  question.writeUInt16BE(type, 0);
  question.writeUInt16BE(klass, 2);
  return Buffer.concat([header, qname, question]);
}

/** The parts of a DNS reply the probe reads. */
export interface DnsReply {
  id: number;
  recursionAvailable: boolean;
  rcode: number;
  /** TXT strings of the answer section, joined per record. */
  txt: string[];
}

/** Decodes a DNS response (QR=1); null for a query, truncated or malformed bytes. */
export function parseDnsReply(message: Buffer): DnsReply | null {
  if (message.length < 12) return null;
  const flags = message.readUInt16BE(2);
  if ((flags & FLAG_QR) === 0) return null;
  const reply: DnsReply = { id: message.readUInt16BE(0), recursionAvailable: (flags & FLAG_RA) !== 0, rcode: flags & 0x0f, txt: [] };
  const questions = message.readUInt16BE(4);
  const answers = message.readUInt16BE(6);
  let offset = 12;
  for (let i = 0; i < questions; i += 1) {
    offset = skipName(message, offset);
    if (offset < 0 || offset + 4 > message.length) return null;
    offset += 4;
  }
  for (let i = 0; i < answers; i += 1) {
    offset = skipName(message, offset);
    if (offset < 0 || offset + 10 > message.length) return null;
    const type = message.readUInt16BE(offset);
    const length = message.readUInt16BE(offset + 8);
    const data = message.subarray(offset + 10, offset + 10 + length);
    if (data.length !== length) return null;
    if (type === TYPE_TXT) reply.txt.push(readCharacterStrings(data));
    offset += 10 + length;
  }
  return reply;
}

/** Offset just past a (possibly compressed) name, or -1 when it runs off the message. */
function skipName(message: Buffer, offset: number): number {
  if (offset < 0) return -1;
  for (let at = offset; at < message.length; ) {
    const length = message[at]!;
    if (length === 0) return at + 1;
    if ((length & 0xc0) === 0xc0) return at + 2 <= message.length ? at + 2 : -1; // a pointer ends the name
    if ((length & 0xc0) !== 0) return -1;
    at += 1 + length;
  }
  return -1;
}

function readCharacterStrings(data: Buffer): string {
  const parts: string[] = [];
  for (let at = 0; at < data.length; ) {
    const length = data[at]!;
    parts.push(data.subarray(at + 1, at + 1 + length).toString('utf8'));
    at += 1 + length;
  }
  return parts.join('');
}

/** What a version.bind string says about the software, where it names a product we know. */
export function identifyDnsSoftware(text: string): { product: string | null; version: string | null; cpe: string | null } {
  const known: [RegExp, string, string | null][] = [
    [/^dnsmasq-(\d[\w.]*)/i, 'dnsmasq', 'thekelleys:dnsmasq'],
    [/^unbound (\d[\w.]*)/i, 'Unbound', 'nlnetlabs:unbound'],
    [/^Knot DNS (\d[\w.]*)/i, 'Knot DNS', 'nic:knot_dns'],
    [/^PowerDNS Recursor (\d[\w.]*)/i, 'PowerDNS Recursor', 'powerdns:recursor'],
    [/^PowerDNS Authoritative Server (\d[\w.]*)/i, 'PowerDNS Authoritative Server', 'powerdns:authoritative'],
    // BIND answers with its bare version, e.g. "9.18.24-1-Debian".
    [/^(9\.\d+\.\d+)/, 'BIND', 'isc:bind'],
  ];
  for (const [pattern, product, vendorProduct] of known) {
    const version = pattern.exec(text)?.[1];
    if (version) return { product, version, cpe: vendorProduct ? `cpe:2.3:a:${vendorProduct}:${version}:*:*:*:*:*:*:*` : null };
  }
  return { product: null, version: null, cpe: null };
}

function startDns(): UdpExchange {
  const versionId = randomInt(0, 0x10000);
  const recursionId = (versionId + 1 + randomInt(0, 0xfffe)) % 0x10000; // never equal to versionId
  let versionReply: DnsReply | null = null;
  let recursionReply: DnsReply | null = null;
  return {
    datagrams: [
      buildDnsQuery(versionId, 'version.bind', TYPE_TXT, CLASS_CH, false),
      buildDnsQuery(recursionId, 'example.com', TYPE_A, CLASS_IN, true),
    ],
    accept(message) {
      const reply = parseDnsReply(message);
      if (reply?.id === versionId) versionReply = reply;
      if (reply?.id === recursionId) recursionReply = reply;
      return versionReply !== null && recursionReply !== null;
    },
    outcome() {
      if (versionReply === null && recursionReply === null) return null;
      return describeDns(versionReply, recursionReply);
    },
  };
}

function describeDns(versionReply: DnsReply | null, recursionReply: DnsReply | null): ReturnType<UdpExchange['outcome']> {
  const versionText = versionReply?.rcode === 0 ? (versionReply.txt[0] ?? null) : null;
  const software = versionText === null ? { product: null, version: null, cpe: null } : identifyDnsSoftware(versionText);
  const details: Record<string, string> = {};
  if (versionText !== null) details.versionBind = versionText;
  if (recursionReply) details.recursionAvailable = String(recursionReply.recursionAvailable);
  const service = udpService('dns', { ...software, details });

  const evidence =
    `version.bind CH TXT: ${versionReply === null ? 'no reply' : versionText === null ? `rcode ${versionReply.rcode}, no version` : `"${evidenceText(versionText)}"`}; ` +
    `example.com A with RD=1: ${recursionReply === null ? 'no reply' : `RA=${recursionReply.recursionAvailable ? 1 : 0}, rcode ${recursionReply.rcode}`}.`;
  const findings: CheckFinding[] = [
    {
      ruleId: 'rampart:udp-dns-exposed',
      name: 'DNS server answers',
      description:
        'A DNS server answers queries on this address. This records the exposure; an authoritative server is ' +
        'meant to be reachable, a resolver usually is not.',
      solution: 'If this server need not answer from here, restrict UDP and TCP port 53 to the clients it serves.',
      ...severityOf('rampart:udp-dns-exposed'),
      cve: [],
      cwe: null,
      evidence,
      references: ['https://www.rfc-editor.org/rfc/rfc1035'],
    },
  ];
  // RA with REFUSED happens when recursion exists but not for us (e.g. BIND with allow-recursion).
  if (recursionReply?.recursionAvailable && recursionReply.rcode !== RCODE_REFUSED) findings.push(openResolverFinding(evidence));
  return { service, findings };
}

function openResolverFinding(evidence: string): CheckFinding {
  return {
    ruleId: 'rampart:udp-dns-open-resolver',
    name: 'Open recursive DNS resolver',
    description:
      'The server offers recursion to the scanner (RA set on a recursive query, not refused). An open resolver ' +
      'answers anyone: attackers use it to reflect and amplify DDoS traffic with spoofed queries, and it is ' +
      'exposed to cache-poisoning attempts.',
    solution:
      'Allow recursion only for your own clients (BIND `allow-recursion`, Unbound `access-control`, dnsmasq ' +
      '`--local-service`), or disable it on authoritative servers; apply response rate limiting.',
    ...severityOf('rampart:udp-dns-open-resolver'),
    cve: [],
    cwe: 'CWE-406',
    evidence,
    references: [
      'https://www.rfc-editor.org/rfc/rfc5358',
      'https://www.cisa.gov/news-events/alerts/2013/03/29/dns-amplification-attacks',
      CISA_UDP_AMPLIFICATION,
    ],
  };
}

/** The DNS probe: version.bind and the recursion flag. */
export const dnsProbe: UdpProbe = { name: 'dns', defaultPort: DEFAULT_UDP_PORTS.dns, start: startDns };
