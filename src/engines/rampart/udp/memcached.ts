/**
 * memcached over UDP (11211): the 8-byte UDP frame header and `stats\r\n`. The stats reply is a
 * kilobyte or so, and may span several datagrams, each with the frame header. `stats` is the one
 * request sent: never `get` of a key, which is how the 2018 attacks reached 50 000× amplification.
 */
import { randomInt } from 'node:crypto';
import type { CheckFinding } from '../checks/check.js';
import { CISA_UDP_AMPLIFICATION, evidenceText, udpService, type UdpExchange, type UdpProbe } from './udp-probe.js';
import { DEFAULT_UDP_PORTS } from './udp-ports.js';
import { severityOf } from '../severity.js';

const FRAME_BYTES = 8;

/** Frame header (request id, sequence 0, one datagram, reserved) then the text command. */
export function buildMemcachedRequest(requestId: number, command = 'stats\r\n'): Buffer {
  const frame = Buffer.alloc(FRAME_BYTES);
  frame.writeUInt16BE(requestId, 0);
  frame.writeUInt16BE(0, 2);
  frame.writeUInt16BE(1, 4);
  return Buffer.concat([frame, Buffer.from(command, 'ascii')]);
}

/** `STAT name value` lines of a stats reply. */
export function parseStats(text: string): Map<string, string> {
  const stats = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const match = /^STAT (\S+) (.*)$/.exec(line);
    if (match) stats.set(match[1]!, match[2]!);
  }
  return stats;
}

function startMemcached(): UdpExchange {
  const requestId = randomInt(0, 0x10000);
  const parts = new Map<number, Buffer>();
  let total = 0;
  return {
    datagrams: [buildMemcachedRequest(requestId)],
    accept(datagram) {
      if (datagram.length < FRAME_BYTES || datagram.readUInt16BE(0) !== requestId) return false;
      const sequence = datagram.readUInt16BE(2);
      total = datagram.readUInt16BE(4);
      if (total === 0 || sequence >= total) return false;
      parts.set(sequence, datagram.subarray(FRAME_BYTES));
      return parts.size === total;
    },
    outcome() {
      // A lost datagram leaves a gap; the parts we have still hold whole STAT lines.
      const text = [...parts.entries()].sort(([a], [b]) => a - b).map(([, part]) => part.toString('latin1')).join('');
      const stats = parseStats(text);
      if (stats.size === 0) return null;
      const version = stats.get('version') ?? null;
      const service = udpService('memcached', {
        product: 'memcached',
        version,
        cpe: version ? `cpe:2.3:a:memcached:memcached:${version}:*:*:*:*:*:*:*` : null,
        details: { transport: 'udp' },
      });
      const replyBytes = [...parts.values()].reduce((sum, part) => sum + part.length + FRAME_BYTES, 0);
      return { service, findings: [memcachedFinding(stats, replyBytes)] };
    },
  };
}

function memcachedFinding(stats: Map<string, string>, replyBytes: number): CheckFinding {
  const shown = ['version', 'uptime', 'curr_items', 'bytes'].filter((key) => stats.has(key));
  return {
    ruleId: 'rampart:udp-memcached-amplification',
    name: 'memcached answers over UDP',
    description:
      'memcached answers requests over UDP. With a spoofed source address, a few bytes of request return up to ' +
      'megabytes of cached values, which made exposed memcached the largest DDoS amplifier on record ' +
      '(CVE-2018-1000115); the same port also lets anyone read and overwrite the cache.',
    solution:
      'Disable UDP (`-U 0`, the default since memcached 1.5.6), bind memcached to a private interface (`-l`), ' +
      'and firewall port 11211 from untrusted networks.',
    ...severityOf('rampart:udp-memcached-amplification'),
    cve: ['CVE-2018-1000115'],
    cwe: 'CWE-406',
    evidence:
      `A 15-byte UDP "stats" request returned ${replyBytes} bytes with ${stats.size} STAT lines` +
      (shown.length > 0 ? `: ${shown.map((key) => `${key}=${evidenceText(stats.get(key)!, 64)}`).join(', ')}.` : '.'),
    references: [
      'https://nvd.nist.gov/vuln/detail/CVE-2018-1000115',
      'https://github.com/memcached/memcached/wiki/ReleaseNotes156',
      CISA_UDP_AMPLIFICATION,
    ],
  };
}

/** The memcached-over-UDP probe. */
export const memcachedProbe: UdpProbe = { name: 'memcached', defaultPort: DEFAULT_UDP_PORTS.memcached, start: startMemcached };
