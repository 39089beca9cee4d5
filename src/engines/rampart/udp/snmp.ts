/**
 * SNMP (UDP 161): one SNMPv2c GetRequest for sysDescr.0 per default community (`public`,
 * `private`), sent together with distinct request ids. An agent stays silent for a community it
 * does not accept, so any GetResponse with our request id proves that community works. Only
 * sysDescr.0 is read: no walk, no GetBulk (an amplifier), no Set.
 */
import { randomInt } from 'node:crypto';
import type { CheckFinding } from '../checks/check.js';
import {
  BerError,
  BerTag,
  decodeChildren,
  decodeInteger,
  decodeOid,
  decodeOne,
  encodeConstructed,
  encodeInteger,
  encodeNull,
  encodeOctetString,
  encodeOid,
} from './ber.js';
import { CISA_UDP_AMPLIFICATION, evidenceText, udpService, type UdpExchange, type UdpProbe } from './udp-probe.js';
import { DEFAULT_UDP_PORTS } from './udp-ports.js';
import { severityOf } from '../severity.js';

export const SYS_DESCR_OID = '1.3.6.1.2.1.1.1.0';
const SNMP_V2C = 1;
/** The communities agents ship with; `private` is often the read-write one. */
const DEFAULT_COMMUNITIES = ['public', 'private'] as const;

/** An SNMPv2c GetRequest for one OID. */
export function buildGetRequest(community: string, requestId: number, oid = SYS_DESCR_OID): Buffer {
  const varbind = encodeConstructed(BerTag.sequence, [encodeOid(oid), encodeNull()]);
  const pdu = encodeConstructed(BerTag.getRequest, [
    encodeInteger(requestId),
    encodeInteger(0), // error-status
    encodeInteger(0), // error-index
    encodeConstructed(BerTag.sequence, [varbind]),
  ]);
  return encodeConstructed(BerTag.sequence, [encodeInteger(SNMP_V2C), encodeOctetString(community), pdu]);
}

/** A decoded GetResponse: who it answers and the first varbind. */
export interface SnmpResponse {
  version: number;
  community: string;
  requestId: number;
  errorStatus: number;
  oid: string | null;
  /** The value's text when it is an OCTET STRING, else null (e.g. noSuchObject). */
  text: string | null;
}

/** Decodes an SNMP GetResponse; null for anything else or malformed bytes. */
export function parseGetResponse(datagram: Buffer): SnmpResponse | null {
  try {
    const message = decodeOne(datagram);
    if (message.tag !== BerTag.sequence) return null;
    const [version, community, pdu] = decodeChildren(message);
    if (!version || community?.tag !== BerTag.octetString || pdu?.tag !== BerTag.getResponse) return null;
    const [requestId, errorStatus, , varbinds] = decodeChildren(pdu);
    if (!requestId || !errorStatus || varbinds?.tag !== BerTag.sequence) return null;
    const first = decodeChildren(varbinds)[0];
    const [name, value] = first ? decodeChildren(first) : [];
    return {
      version: decodeInteger(version),
      community: community.content.toString('latin1'),
      requestId: decodeInteger(requestId),
      errorStatus: decodeInteger(errorStatus),
      oid: name ? decodeOid(name) : null,
      text: value?.tag === BerTag.octetString ? value.content.toString('utf8') : null,
    };
  } catch (error) {
    if (error instanceof BerError) return null;
    throw error;
  }
}

function startSnmp(): UdpExchange {
  const requests = DEFAULT_COMMUNITIES.map((community) => ({ community, requestId: randomInt(1, 0x7fffffff) }));
  const accepted = new Map<string, SnmpResponse>();
  return {
    datagrams: requests.map(({ community, requestId }) => buildGetRequest(community, requestId)),
    accept(reply) {
      const response = parseGetResponse(reply);
      const request = requests.find((r) => r.requestId === response?.requestId && r.community === response.community);
      if (response && request) accepted.set(request.community, response);
      return accepted.size === requests.length;
    },
    outcome() {
      if (accepted.size === 0) return null;
      const communities = [...accepted.keys()];
      const sysDescr = [...accepted.values()].find((r) => r.oid === SYS_DESCR_OID && r.text !== null)?.text ?? null;
      const service = udpService('snmp', {
        details: { communities: communities.join(','), ...(sysDescr === null ? {} : { sysDescr }) },
      });
      return { service, findings: [defaultCommunityFinding(communities, sysDescr)] };
    },
  };
}

function defaultCommunityFinding(communities: string[], sysDescr: string | null): CheckFinding {
  const quoted = communities.map((c) => `"${c}"`).join(' and ');
  return {
    ruleId: 'rampart:udp-snmp-default-community',
    name: 'SNMP agent accepts a default community',
    description:
      `The SNMP agent answered a GetRequest sent with the default community ${quoted}. A community string is the ` +
      'only credential of SNMPv1/v2c, so anyone who can reach this port can read the device\'s management data ' +
      '(interfaces, routes, processes, installed software, sometimes configuration), and with a read-write ' +
      'community change it. SNMP GetBulk replies also make the agent a reflection amplifier.',
    solution:
      'Remove the default communities. Prefer SNMPv3 with authentication and privacy (authPriv); if v2c must stay, ' +
      'use a long random community, a read-only view, and an ACL or firewall that admits only the monitoring hosts.',
    ...severityOf('rampart:udp-snmp-default-community'),
    cve: ['CVE-1999-0517'],
    cwe: 'CWE-1392',
    evidence:
      `SNMPv2c GetRequest for sysDescr.0 (${SYS_DESCR_OID}) answered for community ${quoted}` +
      (sysDescr === null ? '.' : `; sysDescr.0 = "${evidenceText(sysDescr)}".`),
    references: [
      'https://nvd.nist.gov/vuln/detail/CVE-1999-0517',
      'https://www.cisa.gov/news-events/alerts/2017/06/05/reducing-risk-snmp-abuse',
      CISA_UDP_AMPLIFICATION,
    ],
  };
}

/** The SNMP default-community probe. */
export const snmpProbe: UdpProbe = { name: 'snmp', defaultPort: DEFAULT_UDP_PORTS.snmp, start: startSnmp };
