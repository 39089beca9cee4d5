/**
 * nmap XML (`-oX`). Hosts up and down become host events; each open port one Informational
 * finding (service, product, version, CPE and script output in the evidence); the vulners script's
 * CVE entries become one finding each with their CVSS score. Entries of vulners that are not CVEs
 * (exploit-db, metasploit, packetstorm ids) are listed in the port's evidence. Ports in other states
 * (closed, filtered, open|filtered) are not findings: nmap cannot say a service is there.
 */
import type { EngineEvent, Finding } from '../engine.js';
import { QOD, threatFromCvss } from '../engine.js';
import { describeBuild, detectPackagedBuild } from '../../shared/distribution.js';
import { child, childrenNamed, readXml, type XmlNode } from './safe-xml-reader.js';
import { finding, invalidFile, joinParagraphs, numberOf, portOf, protocolOf, readHeader, type ImportedResults, type ImportSource } from './importer.js';

/** Rule id of the open-port finding. */
export const NMAP_OPEN_PORT_RULE_ID = 'nmap:open-port';
/** Rule id of a CVE reported by the vulners NSE script (the CVE is the finding's identity). */
export const NMAP_VULNERS_RULE_ID = 'nmap:vulners';

const SERVICE_FIELDS = ['product', 'version', 'extrainfo', 'tunnel', 'ostype', 'devicetype', 'method', 'conf'];

interface HostId {
  hostname: string;
  address: string;
}

function hostIdOf(host: XmlNode): HostId {
  const addresses = childrenNamed(host, 'address');
  const ip = addresses.find((a) => a.attrs.addrtype === 'ipv4' || a.attrs.addrtype === 'ipv6') ?? addresses[0];
  const address = ip?.attrs.addr ?? '';
  const names = childrenNamed(child(host, 'hostnames'), 'hostname');
  const name = names.find((n) => n.attrs.type === 'user') ?? names[0];
  return { hostname: name?.attrs.name || address, address };
}

interface VulnersEntry {
  id: string;
  type: string;
  cvss: number | null;
  exploit: boolean;
  cpe: string;
}

function vulnersEntries(script: XmlNode): VulnersEntry[] {
  const entries: VulnersEntry[] = [];
  for (const cpeTable of childrenNamed(script, 'table')) {
    for (const table of childrenNamed(cpeTable, 'table')) {
      const elem = (key: string): string => childrenNamed(table, 'elem').find((e) => e.attrs.key === key)?.text.trim() ?? '';
      entries.push({ id: elem('id'), type: elem('type'), cvss: numberOf(elem('cvss')), exploit: elem('is_exploit') === 'true', cpe: cpeTable.attrs.key ?? '' });
    }
  }
  return entries;
}

function portFindings(id: HostId, port: XmlNode): Finding[] {
  const number = portOf(port.attrs.portid);
  const protocol = protocolOf(port.attrs.protocol);
  const service = child(port, 'service');
  const serviceName = service?.attrs.name ?? null;
  const product = [service?.attrs.product, service?.attrs.version].filter(Boolean).join(' ');
  const cpes = childrenNamed(service, 'cpe').map((c) => c.text.trim());
  const scripts = childrenNamed(port, 'script');
  const lines = [`Port ${port.attrs.portid}/${port.attrs.protocol} on ${id.address} is open (${child(port, 'state')?.attrs.reason ?? 'no reason given'}).`];
  if (serviceName) lines.push(`service: ${serviceName}`);
  for (const key of SERVICE_FIELDS) if (service?.attrs[key]) lines.push(`${key}: ${service.attrs[key]}`);
  if (cpes.length > 0) lines.push(`cpe: ${cpes.join(' ')}`);
  const out: Finding[] = [];
  const where = { hostname: id.hostname, hostIp: id.address, port: number, protocol, service: serviceName };
  // vulners matches by version: a version line naming a distribution's package lowers their quality.
  const build = detectPackagedBuild(service?.attrs.version, service?.attrs.extrainfo, service?.attrs.ostype);
  const versionQod = build ? QOD.packaged : QOD.version;
  for (const script of scripts) {
    if (script.attrs.id === 'vulners') {
      const entries = vulnersEntries(script);
      const others = entries.filter((e) => e.type !== 'cve');
      for (const e of entries.filter((x) => x.type === 'cve')) {
        out.push(
          finding({
            ...where,
            ruleId: NMAP_VULNERS_RULE_ID,
            name: `${e.id}: ${product || serviceName || 'service'}`,
            description: `The vulners script matched ${e.cpe || 'the service'} to ${e.id}.`,
            solution: `Upgrade ${product || 'the service'} to a version that fixes ${e.id}, or apply the vendor's mitigation.`,
            threat: threatFromCvss(e.cvss),
            cvssBase: e.cvss,
            cve: [e.id.toUpperCase()],
            evidence: joinParagraphs(
              `vulners: ${e.id} cvss ${e.cvss ?? 'none'} on ${e.cpe}${e.exploit ? ' (exploit known)' : ''}`,
              build && `nmap's version line shows ${describeBuild(build)}: ${build.distribution} may have backported the fix for ${e.id} without changing the upstream version.`,
              lines.join('\n'),
            ),
            references: [`https://vulners.com/cve/${e.id}`],
            qod: versionQod,
          }),
        );
      }
      if (others.length > 0) lines.push(`vulners (not CVE):\n${others.map((e) => `  ${e.id} ${e.type} cvss ${e.cvss ?? 'none'}${e.exploit ? ' exploit' : ''}`).join('\n')}`);
    } else {
      lines.push(`script ${script.attrs.id}: ${(script.attrs.output ?? '').trim()}`);
    }
  }
  out.unshift(
    finding({
      ...where,
      ruleId: NMAP_OPEN_PORT_RULE_ID,
      name: product ? `Open port ${port.attrs.portid}/${port.attrs.protocol}: ${product}` : `Open port ${port.attrs.portid}/${port.attrs.protocol}`,
      description: `nmap found ${port.attrs.protocol} port ${port.attrs.portid} open. Every reachable service is attack surface.`,
      solution: 'If this service need not be reachable, stop it or restrict the port with a firewall.',
      threat: 'Informational',
      evidence: lines.join('\n'),
    }),
  );
  return out;
}

async function* hostEvents(host: XmlNode): AsyncGenerator<EngineEvent> {
  const id = hostIdOf(host);
  if (!id.address) return;
  const state = child(host, 'status')?.attrs.state === 'up' ? 'up' : 'down';
  yield { type: 'host', hostname: id.hostname, address: id.address, state };
  if (state !== 'up') return;
  for (const port of childrenNamed(child(host, 'ports'), 'port')) {
    if (child(port, 'state')?.attrs.state !== 'open') continue;
    for (const f of portFindings(id, port)) yield { type: 'finding', finding: f };
  }
}

/** Reads an nmap XML file. */
export async function importNmap(source: ImportSource): Promise<ImportedResults> {
  const items = readXml(source, (path) => path.length === 2 && (path[1] === 'host' || path[1] === 'runstats'));
  const { pulled, rest } = await readHeader(items, (item) => item.kind === 'open');
  const root = pulled[0];
  if (!root || root.kind !== 'open' || root.node.name !== 'nmaprun') throw invalidFile('This is not an nmap XML file (no <nmaprun> root element).');
  const version = root.node.attrs.version ?? 'unknown';
  async function* events(): AsyncGenerator<EngineEvent> {
    for await (const item of rest) {
      if (item.kind !== 'record') continue;
      if (item.node.name === 'host') yield* hostEvents(item.node);
      else {
        const finished = child(item.node, 'finished');
        if (finished?.attrs.exit === 'error') yield { type: 'log', level: 'warn', message: `nmap ended with an error: ${finished.attrs.errormsg ?? 'no message'}` };
      }
    }
  }
  return { engine: { name: 'nmap', version }, events: events() };
}
