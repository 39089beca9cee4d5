/**
 * Redis without authentication: `PING`, then `INFO server`. A `redis_version:` line in the answer
 * means anyone who reaches the port can read and write every key (and, through CONFIG/MODULE,
 * often run code). `-NOAUTH` / `-DENIED` answers mean access control is on: no finding.
 */
import type { Check, CheckFinding, Endpoint, ServiceInfo } from './check.js';
import { withSession, type Parsed, type Session } from '../protocols/session.js';
import { printable } from './evidence.js';
import { severityOf } from '../severity.js';

/** The Redis check: applies to `redis`, over TLS when the service speaks it. */
export const redisNoAuthCheck: Check = {
  id: 'redis-noauth',
  appliesTo: (service: ServiceInfo) => service.name === 'redis',
  run: (endpoint: Endpoint, service: ServiceInfo) =>
    withSession(endpoint, { tls: service.tls }, [] as CheckFinding[], async (session) => {
      session.write('*1\r\n$4\r\nPING\r\n');
      const pong = await session.readLine(512);
      if (pong === null || !pong.startsWith('+')) return [];
      session.write('*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n');
      const info = await readBulkString(session);
      if (info === null) return [];
      const fields = new Map(
        info.split(/\r?\n/).flatMap((line) => {
          const at = line.indexOf(':');
          return at > 0 ? [[line.slice(0, at), line.slice(at + 1)] as const] : [];
        }),
      );
      const version = fields.get('redis_version');
      if (version === undefined) return [];
      const facts = [`redis_version:${version}`, ...['redis_mode', 'os', 'tcp_port'].flatMap((k) => (fields.has(k) ? [`${k}:${fields.get(k)}`] : []))];
      return [
        {
          ruleId: 'rampart:redis-noauth',
          name: 'Redis accessible without authentication',
          description:
            'The Redis server answers commands from anyone who can reach it. An attacker can read or erase all data, and commonly turns write access into code execution (CONFIG SET dir/dbfilename, MODULE LOAD, replication abuse).',
          solution:
            'Require authentication (requirepass, or ACL users with Redis 6+), bind Redis to trusted interfaces only, keep protected-mode on, and firewall the port.',
          ...severityOf('rampart:redis-noauth'),
          cve: [],
          cwe: 'CWE-306',
          evidence: `PING answered ${printable(pong, 40)} and INFO server answered without credentials: ${printable(facts.join(', '))}.`,
          references: ['https://redis.io/docs/latest/operate/oss_and_stack/management/security/', 'https://cwe.mitre.org/data/definitions/306.html'],
        },
      ];
    }),
};

/** Reads a RESP bulk string (`$<len>\r\n<data>\r\n`); null for an error reply, a nil or a timeout. */
function readBulkString(session: Session): Promise<string | null> {
  return session.read((buffer): Parsed<string | null> => {
    const eol = buffer.indexOf('\r\n');
    if (eol < 0) return null;
    const header = buffer.subarray(0, eol).toString('latin1');
    if (!header.startsWith('$')) return { value: null, consumed: eol + 2 };
    const length = Number(header.slice(1));
    if (!Number.isInteger(length) || length < 0) return { value: null, consumed: eol + 2 };
    const end = eol + 2 + length;
    if (buffer.length < end + 2) return null;
    return { value: buffer.subarray(eol + 2, end).toString('utf8'), consumed: end + 2 };
  });
}
