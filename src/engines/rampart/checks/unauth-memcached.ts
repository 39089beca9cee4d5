/**
 * memcached without authentication (TCP text protocol): `stats` answered with `STAT pid ...`
 * lines means anyone reaching the port can read, overwrite and flush the cache. A server with
 * SASL or ASCII auth answers an error instead: no finding.
 */
import type { Check, CheckFinding, Endpoint, ServiceInfo } from './check.js';
import { withSession } from '../protocols/session.js';
import { printable } from './evidence.js';
import { severityOf } from '../severity.js';

/** The most `stats` lines read: a real answer has about 90. */
const MAX_STAT_LINES = 200;
const EVIDENCE_STATS = ['version', 'uptime', 'curr_connections', 'curr_items', 'total_items', 'bytes'];

/** The memcached check: applies to `memcached`. */
export const memcachedNoAuthCheck: Check = {
  id: 'memcached-noauth',
  appliesTo: (service: ServiceInfo) => service.name === 'memcached',
  run: (endpoint: Endpoint, service: ServiceInfo) =>
    withSession(endpoint, { tls: service.tls }, [] as CheckFinding[], async (session) => {
      session.write('stats\r\n');
      const stats = new Map<string, string>();
      for (let i = 0; i < MAX_STAT_LINES; i++) {
        const line = await session.readLine(1024);
        if (line === null || line === 'END') break;
        const match = /^STAT (\S+) (.*)$/.exec(line);
        if (!match) break;
        stats.set(match[1]!, match[2]!);
      }
      if (!stats.has('pid')) return [];
      const facts = EVIDENCE_STATS.flatMap((k) => (stats.has(k) ? [`${k} ${stats.get(k)}`] : []));
      return [
        {
          ruleId: 'rampart:memcached-noauth',
          name: 'memcached accessible without authentication',
          description:
            'The memcached server answers commands from anyone who can reach it: cached data (often sessions or tokens) can be read, poisoned or flushed, and an exposed UDP port can be abused for traffic amplification.',
          solution:
            'Listen on loopback or a private interface only (-l), disable UDP (-U 0), firewall the port, and enable SASL authentication or TLS client certificates where clients must connect over a network.',
          ...severityOf('rampart:memcached-noauth'),
          cve: [],
          cwe: 'CWE-306',
          evidence: `The stats command answered without credentials (${stats.size} STAT lines): ${printable(facts.join(', '))}.`,
          references: ['https://github.com/memcached/memcached/wiki/SASLHowto', 'https://cwe.mitre.org/data/definitions/306.html'],
        },
      ];
    }),
};
