/**
 * SSDP (UDP 1900): one unicast `M-SEARCH` for `ssdp:all`, the discovery request UPnP control
 * points multicast on a LAN. A device that answers it from the network is a reflector (it
 * answers once per service it offers) and hands out the URL of its UPnP description.
 */
import type { CheckFinding } from '../checks/check.js';
import { CISA_UDP_AMPLIFICATION, evidenceText, udpService, type UdpExchange, type UdpProbe } from './udp-probe.js';
import { DEFAULT_UDP_PORTS } from './udp-ports.js';
import { severityOf } from '../severity.js';

/** The M-SEARCH request; HOST is the SSDP multicast group, as control points send it. */
export const SSDP_SEARCH = Buffer.from(
  'M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: "ssdp:discover"\r\nMX: 1\r\nST: ssdp:all\r\n\r\n',
  'ascii',
);

/** The headers of an `HTTP/1.x 200` search response (names lower-cased); null for anything else. */
export function parseSearchResponse(datagram: Buffer): Map<string, string> | null {
  const lines = datagram.toString('latin1').split(/\r?\n/);
  if (!/^HTTP\/1\.[01] 200\b/i.test(lines[0] ?? '')) return null;
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

/** The product of a `SERVER: OS/version UPnP/1.1 product/version` header, when it names one. */
export function identifyUpnpProduct(server: string): { product: string | null; version: string | null; cpe: string | null } {
  const tokens = server.split(/[\s,]+/).filter(Boolean);
  const upnp = tokens.findIndex((token) => /^UPnP\//i.test(token));
  const [product, version] = (upnp >= 0 ? tokens[upnp + 1] ?? '' : '').split('/');
  if (!product) return { product: null, version: null, cpe: null };
  const cpe = /^miniupnpd$/i.test(product) && version ? `cpe:2.3:a:miniupnp_project:miniupnpd:${version}:*:*:*:*:*:*:*` : null;
  return { product, version: version ?? null, cpe };
}

function startSsdp(): UdpExchange {
  let headers: Map<string, string> | null = null;
  return {
    datagrams: [SSDP_SEARCH],
    accept(datagram) {
      // One response is proof enough; waiting for the rest would only measure the amplification.
      headers ??= parseSearchResponse(datagram);
      return headers !== null;
    },
    outcome() {
      if (headers === null) return null;
      const server = headers.get('server') ?? null;
      const location = headers.get('location') ?? null;
      const details: Record<string, string> = {};
      for (const name of ['server', 'location', 'st', 'usn'] as const) {
        const value = headers.get(name);
        if (value !== undefined) details[name] = value;
      }
      const product = server === null ? { product: null, version: null, cpe: null } : identifyUpnpProduct(server);
      return { service: udpService('ssdp', { ...product, details }), findings: [ssdpFinding(server, location, headers.get('st') ?? null)] };
    },
  };
}

function ssdpFinding(server: string | null, location: string | null, st: string | null): CheckFinding {
  const shown = [
    server === null ? null : `SERVER: ${evidenceText(server, 200)}`,
    location === null ? null : `LOCATION: ${evidenceText(location, 200)}`,
    st === null ? null : `ST: ${evidenceText(st, 200)}`,
  ].filter((part) => part !== null);
  return {
    ruleId: 'rampart:udp-ssdp-exposed',
    name: 'SSDP (UPnP discovery) answers from the network',
    description:
      'The device answers SSDP M-SEARCH requests sent to it directly. SSDP is meant for the local network only: ' +
      'answering from outside makes the device a DDoS reflector (each search draws one response per service) ' +
      'and exposes its UPnP description, whose control URLs have a long record of vulnerabilities.',
    solution:
      'Disable UPnP on this interface (on routers: on the WAN side, or altogether), or firewall UDP 1900 ' +
      'from everything but the local network.',
    ...severityOf('rampart:udp-ssdp-exposed'),
    cve: [],
    cwe: 'CWE-406',
    evidence: `M-SEARCH ssdp:all answered with HTTP 200${shown.length > 0 ? `: ${shown.join('; ')}` : ''}.`,
    references: [CISA_UDP_AMPLIFICATION, 'https://openconnectivity.org/developer/specifications/upnp-resources/upnp/'],
  };
}

/** The SSDP discovery probe. */
export const ssdpProbe: UdpProbe = { name: 'ssdp', defaultPort: DEFAULT_UDP_PORTS.ssdp, start: startSsdp };
