/**
 * Where templates run: the services of a job. A URL target is its HTTP(S) service directly (its
 * path kept as the base path); hosts and CIDR ranges are handed to the injected service discovery
 * (the registry builds it from the Rampart engine's port scan and service detection, since an
 * engine never imports a sibling); a `host:port` target too, on its port alone, so that discovery
 * says whether it speaks HTTP(S), TLS or neither. Then each template family picks its services:
 * - http: every HTTP(S) service;
 * - tcp: the services on a port the template declares (`port:`, or a fixed port in a `host:` entry
 *   such as `{{Host}}:8009`), or every non-HTTP service when it declares none;
 * - ssl: every TLS service;
 * - dns: every host name (never an address), once.
 */
import { isIP } from 'node:net';
import { EngineError, type EngineEvent, type EngineJob, type JobTarget } from '../engine.js';
import { splitHostPort } from '../../shared/host-port.js';
import type { ServiceTarget } from './execute/contract.js';
import { entryPort, templatePorts } from './execute/tcp.js';
import type { ProtocolFamily } from './selection.js';
import type { Template } from './templates/template.types.js';

/** One service discovery found on a host. */
export interface DiscoveredService {
  /** The name as the scan named it (or the address). */
  host: string;
  address: string;
  port: number;
  /** HTTP(S) services: the scheme; null for a service that does not speak HTTP. */
  scheme: 'http' | 'https' | null;
  tls: boolean;
}

/** What discovery yields: services, and the host states, notes and progress of its scan. */
export type DiscoveryEvent = { type: 'service'; service: DiscoveredService } | Extract<EngineEvent, { type: 'host' | 'log' | 'incomplete' | 'progress' }>;

/** Finds the services of a job's host and CIDR targets (URL targets never reach it). */
export type DiscoverServices = (job: EngineJob) => AsyncIterable<DiscoveryEvent>;

/**
 * The discovery runs of a job's non-URL targets: one for its hosts and ranges on the job's ports,
 * and one per host named as `host:port`, on the ports so named only.
 */
export function discoveryRuns(job: Pick<EngineJob, 'targets' | 'ports'>): Pick<EngineJob, 'targets' | 'ports'>[] {
  const hosts = job.targets.filter((t) => t.kind !== 'url' && t.kind !== 'service');
  const runs = hosts.length > 0 ? [{ targets: hosts, ports: job.ports }] : [];
  const portsOf = new Map<string, number[]>();
  for (const target of job.targets) {
    if (target.kind !== 'service') continue;
    const service = splitHostPort(target.value);
    if (!service) throw new EngineError('config', `The target "${target.value}" is not a valid host:port.`);
    portsOf.set(service.host, [...(portsOf.get(service.host) ?? []), service.port]);
  }
  for (const [host, ports] of portsOf) {
    const target: JobTarget = isIP(host) ? { kind: 'ip', value: host } : { kind: 'hostname', value: host };
    runs.push({ targets: [target], ports });
  }
  return runs;
}

/** The service of a URL target, its host resolved through the egress (so the guard decides). */
export async function serviceOfUrl(value: string, job: Pick<EngineJob, 'egress'>): Promise<ServiceTarget> {
  const url = new URL(value);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const https = url.protocol === 'https:';
  const [address] = await job.egress.resolve(host);
  return {
    host,
    address: address ?? host,
    port: url.port ? Number(url.port) : https ? 443 : 80,
    scheme: https ? 'https' : 'http',
    tls: https,
    basePath: url.pathname || '/',
  };
}

/** A discovered service as templates see it (no base path). */
export function serviceTarget(service: DiscoveredService): ServiceTarget {
  return { ...service, basePath: '/' };
}

/**
 * The ports a tcp template's blocks declare (`port: 6379`, `port: 80,443`) or fix in a `host:`
 * entry (`{{Host}}:8009`); empty when none does. The executor only connects to the service's own
 * port, so a fixed-port entry runs once per host, on the service discovery found at that port.
 */
export function declaredPorts(t: Template): number[] {
  const fixed = (block: Template['tcp'][number]): number[] => block.host.flatMap((entry) => entryPort(entry) ?? []);
  return [...new Set(t.tcp.flatMap((block) => [...templatePorts(block), ...fixed(block)]))];
}

/** The services a template of `family` runs on, among the job's services. */
export function servicesFor(t: Template, family: ProtocolFamily, services: readonly ServiceTarget[]): ServiceTarget[] {
  switch (family) {
    case 'http':
      return services.filter((s) => s.scheme !== null);
    case 'ssl':
      return services.filter((s) => s.tls);
    case 'tcp': {
      const ports = declaredPorts(t);
      return ports.length > 0 ? services.filter((s) => ports.includes(s.port)) : services.filter((s) => s.scheme === null);
    }
    case 'dns': {
      const names = new Map<string, ServiceTarget>();
      for (const s of services) if (isIP(s.host) === 0 && !names.has(s.host)) names.set(s.host, { host: s.host, address: s.address, port: 53, scheme: null, tls: false, basePath: '/' });
      return [...names.values()];
    }
  }
}
