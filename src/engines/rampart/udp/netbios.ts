/**
 * NetBIOS name service (UDP 137): one NBSTAT (node status) query for the wildcard name `*`, as
 * `nmblookup -A` and `nbtstat -A` send it. The reply lists the names the host has registered
 * (computer, domain or workgroup, services, sometimes the logged-on user) and its MAC address.
 */
import { randomInt } from 'node:crypto';
import type { CheckFinding } from '../checks/check.js';
import { CISA_UDP_AMPLIFICATION, evidenceText, udpService, type UdpExchange, type UdpProbe } from './udp-probe.js';
import { DEFAULT_UDP_PORTS } from './udp-ports.js';
import { severityOf } from '../severity.js';

const TYPE_NBSTAT = 0x21;
const CLASS_IN = 1;
const FLAG_RESPONSE = 0x8000;
const NAME_ENTRY_BYTES = 18;
const GROUP_NAME = 0x8000;

/** RFC 1001 first-level encoding of a 16-byte NetBIOS name: each nibble as 'A' + nibble. */
export function encodeNetbiosName(name: Buffer): Buffer {
  const encoded = Buffer.alloc(32);
  for (let i = 0; i < 16; i += 1) {
    const byte = name[i] ?? 0;
    encoded[2 * i] = 0x41 + (byte >> 4);
    encoded[2 * i + 1] = 0x41 + (byte & 0x0f);
  }
  return encoded;
}

/** The NBSTAT query for `*` (the name `*` padded with NULs). */
export function buildNbstatQuery(id: number): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(1, 4); // QDCOUNT
  const wildcard = Buffer.alloc(16);
  wildcard[0] = 0x2a;
  const question = Buffer.alloc(4);
  question.writeUInt16BE(TYPE_NBSTAT, 0);
  question.writeUInt16BE(CLASS_IN, 2);
  return Buffer.concat([header, Buffer.from([32]), encodeNetbiosName(wildcard), Buffer.from([0]), question]);
}

/** One registered name: the 15-character name, its suffix (the service) and whether it is a group. */
export interface NetbiosName {
  name: string;
  suffix: number;
  group: boolean;
}

/** `HOST<20> unique`, the way nbtstat prints a name. */
export function formatNetbiosName(entry: NetbiosName): string {
  return `${entry.name}<${entry.suffix.toString(16).padStart(2, '0').toUpperCase()}> ${entry.group ? 'group' : 'unique'}`;
}

/** Decodes an NBSTAT response with transaction id `id`; null for anything else. */
export function parseNbstatResponse(message: Buffer, id: number): { names: NetbiosName[]; mac: string | null } | null {
  if (message.length < 12 || message.readUInt16BE(0) !== id) return null;
  if ((message.readUInt16BE(2) & FLAG_RESPONSE) === 0 || message.readUInt16BE(6) < 1) return null;
  let offset = 12;
  // The answer's name: the full encoded name (Samba, Windows) or a compression pointer.
  if ((message[offset]! & 0xc0) === 0xc0) offset += 2;
  else {
    while (offset < message.length && message[offset] !== 0) offset += 1 + message[offset]!;
    offset += 1;
  }
  if (offset + 10 > message.length || message.readUInt16BE(offset) !== TYPE_NBSTAT) return null;
  const rdataLength = message.readUInt16BE(offset + 8);
  const rdata = message.subarray(offset + 10, offset + 10 + rdataLength);
  const count = rdata[0] ?? 0;
  if (rdata.length < 1 + count * NAME_ENTRY_BYTES) return null;
  const names: NetbiosName[] = [];
  for (let i = 0; i < count; i += 1) {
    const entry = rdata.subarray(1 + i * NAME_ENTRY_BYTES, 1 + (i + 1) * NAME_ENTRY_BYTES);
    names.push({
      name: entry.subarray(0, 15).toString('latin1').replace(/[\s\0]+$/, ''),
      suffix: entry[15]!,
      group: (entry.readUInt16BE(16) & GROUP_NAME) !== 0,
    });
  }
  const unitId = rdata.subarray(1 + count * NAME_ENTRY_BYTES, 7 + count * NAME_ENTRY_BYTES);
  const mac = unitId.length === 6 ? [...unitId].map((byte) => byte.toString(16).padStart(2, '0')).join(':') : null;
  return { names, mac };
}

function startNetbios(): UdpExchange {
  const id = randomInt(0, 0x10000);
  let table: { names: NetbiosName[]; mac: string | null } | null = null;
  return {
    datagrams: [buildNbstatQuery(id)],
    accept(message) {
      table ??= parseNbstatResponse(message, id);
      return table !== null;
    },
    outcome() {
      if (table === null) return null;
      const names = table.names.map(formatNetbiosName);
      // Suffix 00 is the workstation service: the unique one names the computer, the group one its domain.
      const computer = table.names.find((n) => n.suffix === 0 && !n.group)?.name;
      const domain = table.names.find((n) => n.suffix === 0 && n.group)?.name;
      const details: Record<string, string> = { names: names.join(', ') };
      if (computer) details.computer = computer;
      if (domain) details.domain = domain;
      if (table.mac) details.mac = table.mac;
      return { service: udpService('netbios-ns', { details }), findings: [netbiosFinding(names, table.mac)] };
    },
  };
}

function netbiosFinding(names: string[], mac: string | null): CheckFinding {
  return {
    ruleId: 'rampart:udp-netbios-name-table',
    name: 'NetBIOS name service discloses the name table',
    description:
      'The host answers NetBIOS node status (NBSTAT) queries. The reply names the computer, its domain or ' +
      'workgroup, the services it runs and sometimes the logged-on user, which helps an attacker map the ' +
      'network; the service is also a (small) reflection amplifier.',
    solution:
      'Disable NetBIOS over TCP/IP where it is not needed (Samba: `disable netbios = yes`), or firewall UDP 137 ' +
      'from untrusted networks.',
    ...severityOf('rampart:udp-netbios-name-table'),
    cve: [],
    cwe: 'CWE-200',
    evidence: `NBSTAT reply with ${names.length} names: ${names.map((n) => evidenceText(n, 64)).join(', ')}${mac ? `; MAC ${mac}` : ''}.`,
    references: ['https://www.rfc-editor.org/rfc/rfc1002', CISA_UDP_AMPLIFICATION],
  };
}

/** The NetBIOS node-status probe. */
export const netbiosProbe: UdpProbe = { name: 'netbiosNs', defaultPort: DEFAULT_UDP_PORTS.netbiosNs, start: startNetbios };
