/**
 * The findings the Rampart engine reports. Each check gets a stable rule id (`rampart:<check>`)
 * because the rule id is part of a finding's fingerprint: renaming one would duplicate findings
 * across runs instead of updating them.
 */
import { QOD, threatFromCvss, type Finding, type KnownVulnerability } from '../engine.js';
import { describeBuild, detectPackagedBuild, securityTrackerUrl, type PackagedBuild } from '../../shared/distribution.js';
import type { ServiceInfo } from './checks/check.js';
import { severityOf } from './severity.js';

/** Rule id of findings that match a product version to a known CVE (the CVE is the identity). */
export const KNOWN_VULNERABILITY_RULE_ID = 'rampart:known-vulnerability';

/** Rule id of the open-port finding. */
export const OPEN_PORT_RULE_ID = 'rampart:open-port' as const;

/** The host a finding is about: the name as given and the address probed. */
export interface ProbedHost {
  hostname: string;
  address: string;
}

/** "OpenSSH 9.6p1", "nginx", or the protocol name when the product is unknown. */
export function describeService(service: ServiceInfo): string {
  if (!service.product) return service.name;
  return service.version ? `${service.product} ${service.version}` : service.product;
}

/** Where a finding of a service was seen (TCP unless said). */
function onPort(host: ProbedHost, port: number, service: ServiceInfo, protocol: 'tcp' | 'udp' = 'tcp'): Pick<Finding, 'hostname' | 'hostIp' | 'port' | 'protocol' | 'service'> {
  return { hostname: host.hostname, hostIp: host.address, port, protocol, service: service.name };
}

/**
 * The Informational finding for one open port and the service identified on it: TCP (a connection
 * was accepted) or UDP (a probe datagram was answered; a silent UDP port is never reported).
 */
export function serviceFinding(host: ProbedHost, port: number, service: ServiceInfo, readTimeoutMs: number, protocol: 'tcp' | 'udp' = 'tcp'): Finding {
  const what = service.name === 'unknown' ? 'an unidentified service' : `${describeService(service)} (${service.name}${service.tls ? ' over TLS' : ''})`;
  const udp = protocol === 'udp';
  const lines = [udp ? `Port ${port}/udp on ${host.address} answered a UDP probe datagram: ${what}.` : `Port ${port}/tcp on ${host.address} accepted a TCP connection: ${what}.`];
  if (!udp) lines.push(service.banner ? `Banner: ${service.banner}` : `No banner within ${readTimeoutMs} ms.`);
  if (service.cpe) lines.push(`CPE: ${service.cpe}`);
  for (const [key, value] of Object.entries(service.details)) lines.push(`${key}: ${value}`);
  return {
    ...onPort(host, port, service, protocol),
    ruleId: OPEN_PORT_RULE_ID,
    name: service.name === 'unknown' ? `Open port ${port}/${protocol}` : `Open port ${port}/${protocol}: ${describeService(service)}`,
    description:
      (udp ? `UDP port ${port} answers datagrams from where the scan ran. ` : `TCP port ${port} accepts connections from where the scan ran. `) +
      'Every reachable service is attack surface: this finding records the exposure so that an unexpected one is noticed.',
    solution:
      'If this service need not be reachable from here, stop it or bind it to a private interface, ' +
      'or restrict the port with a firewall to the hosts that need it.',
    ...severityOf(OPEN_PORT_RULE_ID),
    cve: [],
    cwe: null,
    evidence: lines.join('\n'),
    references: [],
  };
}

/** The distribution build a service's banner and details show (a package revision), or null for an upstream version. */
export function packagedBuildOf(service: ServiceInfo): PackagedBuild | null {
  return detectPackagedBuild(service.banner, ...Object.values(service.details));
}

/**
 * A known vulnerability of the product version found on a port. Inferred from a version, never
 * proved: `QOD.version` from an upstream version, `QOD.packaged` when the banner shows a
 * distribution's package (whose maintainers patch the version they ship, so the fix may be
 * there) or when NVD's configuration holds a "running on/with" condition the scan could not check.
 */
export function knownVulnerabilityFinding(host: ProbedHost, port: number, service: ServiceInfo, v: KnownVulnerability, build: PackagedBuild | null = null): Finding {
  const product = describeService(service);
  const firstSentence = v.description.split(/(?<=\.)\s/)[0] ?? v.description;
  const exploited = v.kev ? ' It is in the CISA Known Exploited Vulnerabilities catalog: it is being exploited in the wild.' : '';
  const tracker = build ? securityTrackerUrl(build, v.cve) : null;
  const caveats: string[] = [];
  if (build) {
    caveats.push(
      `The service identifies itself as ${describeBuild(build)}: ${build.distribution} may have backported the fix for ${v.cve} into this package ` +
        `without changing the upstream version, so this match from the version alone may be false.` +
        (tracker ? ` Check the distribution's tracker (${tracker}) for the package revision that fixes it.` : ''),
    );
  }
  if (v.conditions.length > 0) caveats.push(`NVD lists ${v.cve} for this version only together with ${v.conditions.join(' or ')}, which the scan could not check.`);
  const qod = build || v.conditions.length > 0 ? QOD.packaged : QOD.version;
  return {
    ...onPort(host, port, service),
    ruleId: KNOWN_VULNERABILITY_RULE_ID,
    name: `${v.cve}: ${product}`,
    description: `${v.description}${exploited}${caveats.map((c) => ` ${c}`).join('')}`,
    solution: `Upgrade ${service.product ?? service.name} to a version that fixes ${v.cve} (see the references), or apply the vendor's mitigation.`,
    threat: threatFromCvss(v.cvssBase),
    cvssBase: v.cvssBase,
    cvssVector: v.cvssVector,
    cve: [v.cve],
    cwe: v.cwe,
    evidence:
      `${product} on ${host.address}:${port} (${service.cpe}) is within the versions affected by ${v.cve}: ${firstSentence}` +
      (v.epss !== null ? ` EPSS ${v.epss}.` : '') +
      (service.banner ? `\nBanner: ${service.banner}` : '') +
      caveats.map((c) => `\n${c}`).join(''),
    references: tracker ? [tracker, ...v.references] : v.references,
    kev: v.kev,
    epss: v.epss,
    qod,
  };
}
