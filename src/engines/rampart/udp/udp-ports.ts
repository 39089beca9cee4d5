/**
 * The default UDP services Rampart probes, one well-known port each.
 *
 * Why these six and no UDP port sweep: a silent UDP port proves nothing (no answer is what both a
 * firewall and an idle service give), so a UDP port is only worth a datagram when we can send the
 * real protocol's request and recognise its reply. These are the UDP services that most often do
 * harm when reachable from outside, each answering a small, harmless request:
 * - `dns` (53): open recursive resolvers are the classic reflection amplifier, and the server's
 *   version (`version.bind`) feeds CVE matching.
 * - `ntp` (123): exposed time servers; mode 7 `monlist` was the largest amplifier of 2014. We only
 *   send a client request (mode 3) and never `monlist`.
 * - `snmp` (161): a default community (`public`, `private`) reads the device's whole MIB.
 * - `memcached` (11211): UDP memcached is the 2018 record amplifier (CVE-2018-1000115).
 * - `ssdp` (1900): UPnP discovery answering from the network is an amplifier and exposes the
 *   device description.
 * - `netbiosNs` (137): the NetBIOS name table names the host, its domain and logged-on users.
 * Other UDP services (TFTP, IKE, mDNS, CoAP, WS-Discovery) can join as probes with the same shape.
 */
export const DEFAULT_UDP_PORTS = Object.freeze({
  dns: 53,
  ntp: 123,
  snmp: 161,
  memcached: 11211,
  ssdp: 1900,
  netbiosNs: 137,
} as const);

/** The name of one UDP probe; tests and callers use it to point a probe at another port. */
export type UdpProbeName = keyof typeof DEFAULT_UDP_PORTS;
