/**
 * Which TCP ports a job probes: the default list, every port, or the job's own list.
 */
import { EngineError, type EngineJob } from '../engine.js';

/** The default ports grouped by purpose, so a reviewer can see what each one is there for. */
const PORTS_BY_PURPOSE: Record<string, readonly number[]> = {
  remoteAccess: [22, 23, 512, 513, 514, 2222, 3389, 4899, 5631, 5800, 5900, 5901, 5902, 5985, 5986, 6000, 6001],
  mail: [25, 110, 143, 465, 587, 993, 995, 2525],
  fileSharing: [21, 111, 135, 139, 445, 548, 873, 990, 2049, 2121, 3260, 3690, 9418],
  web: [
    80, 81, 82, 83, 84, 85, 88, 443, 444, 591, 593, 1080, 3000, 3001, 3128, 4443, 5000, 5001, 7001, 7002,
    7443, 8000, 8001, 8008, 8010, 8080, 8081, 8082, 8083, 8088, 8118, 8180, 8443, 8444, 8880, 8888, 9080,
    9443, 10443,
  ],
  directoryAndNames: [53, 389, 464, 636, 3268, 3269],
  databases: [
    1433, 1521, 2424, 2480, 3050, 3306, 5432, 5433, 5984, 6432, 6984, 7000, 7199, 7474, 7687, 8086, 8087,
    8091, 8098, 8123, 8428, 8529, 8983, 9000, 9042, 9160, 9200, 9300, 11210, 26257, 27017, 27018, 27019,
    28015, 28017, 50000,
  ],
  caches: [5701, 6379, 6380, 11211, 11222, 26379],
  queues: [
    1414, 1883, 2181, 4222, 4369, 5671, 5672, 6222, 6650, 8222, 8883, 9092, 9093, 11300, 15672, 25672,
    61613, 61614, 61616,
  ],
  containersAndClusters: [
    2375, 2376, 2377, 2379, 2380, 4646, 5005, 6443, 8200, 8300, 8301, 8500, 8501, 8600, 9323, 10250, 10255,
    10256, 10257, 10259,
  ],
  adminAndMonitoring: [
    1936, 2019, 3100, 4040, 4848, 5555, 5601, 5666, 5678, 6006, 7077, 7180, 8009, 8042, 8065, 8069, 8089,
    8161, 8265, 8787, 8834, 9001, 9090, 9091, 9100, 9229, 9392, 9411, 9870, 9901, 9990, 9997, 9999, 10000,
    10050, 10051, 11434, 16686, 18080, 19999, 50070,
  ],
  voiceIotAndNetwork: [102, 179, 502, 554, 631, 1723, 1900, 5060, 5061, 8291, 8728, 8729],
  legacyAndMisc: [7, 9, 13, 37, 79, 113, 119, 199, 515, 1025, 1026, 6667, 6697, 25565],
};

/** Every privileged port: the IANA system ports, where standard services are meant to live. */
const SYSTEM_PORTS: readonly number[] = Array.from({ length: 1024 }, (_, i) => i + 1);

/**
 * The default port list: sorted, unique, each in 1–65535 (about 1,200 ports).
 *
 * Why these ports — our own list, not a frequency ranking:
 * - All 1,024 system ports (1–1024). Standard services live there by definition, and a connect
 *   scan of a port that is not listening costs one round trip, so covering them all is cheap and
 *   leaves no gap between "popular" and "standard".
 * - Above 1024, the services that do the most harm when exposed today, listed by purpose in
 *   `PORTS_BY_PURPOSE`: databases, caches, message queues, container and cluster control planes
 *   (Docker, etcd, Kubernetes, Consul, Vault), admin and monitoring consoles that often ship
 *   without authentication, and the usual alternative web ports. nmap's top-1000 list, ranked by
 *   how often ports were seen open on the Internet years ago, misses many of these (etcd 2379,
 *   Kubernetes 6443/10250, Elasticsearch 9200, memcached 11211, RabbitMQ 15672, Kafka 9092 ...).
 * - Ports used mostly over UDP are probed by the UDP stage instead.
 * `'all'` (1–65535) is there for a thorough pass.
 */
export const DEFAULT_TCP_PORTS: readonly number[] = Object.freeze(
  [...new Set([...SYSTEM_PORTS, ...Object.values(PORTS_BY_PURPOSE).flat()])].sort((a, b) => a - b),
);

/** A set of ports to probe: its size, known up front, and a fresh walk over it on each iteration. */
export interface PortSet extends Iterable<number> {
  readonly count: number;
}

const HIGHEST_PORT = 65535;

/**
 * The ports a job asks for. `'all'` is walked lazily rather than listed; an explicit list keeps
 * its order, drops repeats, and must hold only integers in 1–65535 (else `EngineError('config')`).
 */
export function resolvePorts(spec: EngineJob['ports']): PortSet {
  if (spec === 'default') return listPorts(DEFAULT_TCP_PORTS);
  if (spec === 'all') {
    return {
      count: HIGHEST_PORT,
      *[Symbol.iterator]() {
        for (let port = 1; port <= HIGHEST_PORT; port += 1) yield port;
      },
    };
  }
  if (!Array.isArray(spec) || spec.length === 0) {
    throw new EngineError('config', 'The port list must be "default", "all" or a non-empty list of ports.');
  }
  for (const port of spec) {
    if (!Number.isInteger(port) || port < 1 || port > HIGHEST_PORT) {
      throw new EngineError('config', `Port ${String(port)} is outside 1–65535.`);
    }
  }
  return listPorts([...new Set(spec)]);
}

function listPorts(ports: readonly number[]): PortSet {
  return { count: ports.length, [Symbol.iterator]: () => ports[Symbol.iterator]() };
}
