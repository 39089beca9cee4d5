/**
 * Service discovery for the nuclei engine, built from the Rampart engine (engines never import
 * each other, so the registry's folder wires them): its host discovery, TCP port scan (the job's
 * ports: RAMPART_SCAN_PORTS) and service detection, with no checks, no UDP and no CVE matching.
 * Each open port it reports becomes a service: HTTP(S) when detection named an HTTP server (TLS
 * or not), otherwise a plain or TLS network service.
 */
import type { EngineJob } from './engine.js';
import type { DiscoverServices, DiscoveryEvent } from './nuclei/services.js';
import type { ServiceInfo } from './rampart/checks/check.js';
import { detectDefault } from './rampart/checks/registry.js';
import { OPEN_PORT_RULE_ID } from './rampart/findings.js';
import { createRampartEngine } from './rampart/rampart.engine.js';
import type { OptionCaps } from './rampart/options.js';

/** Service names of Rampart's detection that speak HTTP. */
const HTTP_SERVICES = new Set(['http', 'elasticsearch']);

/** A lookup that knows no vulnerability: discovery matches no CVE (and says nothing of a database). */
const NO_VULNERABILITIES: NonNullable<EngineJob['vulnerabilities']> = { syncedAt: new Date(0), forCpe: async () => [] };

/** The discovery of a deployment, within its scan caps. */
export function createRampartDiscovery(caps: OptionCaps): DiscoverServices {
  return async function* discover(job: EngineJob): AsyncGenerator<DiscoveryEvent> {
    // What detection found on each address:port, for the open-port findings that follow it.
    const detected = new Map<string, ServiceInfo>();
    const scanner = createRampartEngine({
      caps,
      checks: [],
      udp: false,
      emptyPasswordLogins: false,
      detect: async (endpoint, banner) => {
        const service = await detectDefault(endpoint, banner);
        detected.set(`${endpoint.address}|${endpoint.port}`, service);
        return service;
      },
    });
    for await (const event of scanner.run({ ...job, options: {}, vulnerabilities: NO_VULNERABILITIES })) {
      switch (event.type) {
        case 'finding': {
          const { finding } = event;
          if (finding.ruleId !== OPEN_PORT_RULE_ID || finding.protocol !== 'tcp' || finding.port === null) break;
          const service = detected.get(`${finding.hostIp}|${finding.port}`);
          const tls = service?.tls ?? false;
          const http = HTTP_SERVICES.has(service?.name ?? '');
          yield { type: 'service', service: { host: finding.hostname, address: finding.hostIp, port: finding.port, scheme: http ? (tls ? 'https' : 'http') : null, tls } };
          break;
        }
        case 'engine':
          break;
        default:
          yield event;
      }
    }
  };
}
