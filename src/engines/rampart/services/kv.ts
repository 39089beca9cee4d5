/**
 * Key-value stores. Redis: `PING` (RESP inline command) answers `+PONG`, or `-NOAUTH` when a
 * password is set, then `INFO server` gives `redis_version`. memcached: the text command
 * `version` answers `VERSION x.y.z`. Nothing is read from or written to the store.
 */
import { DETECTION_SESSION, untilLine, withSession } from '../protocols/session.js';
import { linesOf, type Identified } from './info.js';
import type { Endpoint } from '../checks/check.js';

/** RESP replies that only Redis gives to PING, with what each says about authentication. */
const PING_REPLIES: ReadonlyArray<{ pattern: RegExp; auth: string }> = [
  { pattern: /^\+PONG\b/, auth: 'none' },
  { pattern: /^-NOAUTH\b/, auth: 'required' },
  { pattern: /^-NOPERM\b/, auth: 'required' },
  { pattern: /^-DENIED Redis\b/, auth: 'required' },
];

/** A complete RESP bulk string (`$<n>\r\n<n bytes>\r\n`) or a one-line reply. */
function respComplete(received: Buffer): boolean {
  const lineEnd = received.indexOf('\r\n');
  if (lineEnd < 0) return false;
  if (received[0] !== 0x24) return true; // `$`
  const size = Number(received.toString('latin1', 1, lineEnd));
  return size < 0 || received.length >= lineEnd + 2 + size + 2;
}

/** The Redis service a greeting names: protected mode answers `-DENIED Redis is running...` at once. */
export function identifyRedisGreeting(text: string): Identified | null {
  if (!/^-DENIED Redis\b/.test(text)) return null;
  return { name: 'redis', product: 'Redis', details: { auth: 'required', protected_mode: 'yes' } };
}

/** Redis: PING, then `INFO server` when PING needed no password. */
export function probeRedis(endpoint: Endpoint): Promise<Identified | null> {
  return withSession(endpoint, DETECTION_SESSION, null, async (session) => {
    session.write('PING\r\n');
    const ping = linesOf(await session.readUntil(untilLine))[0] ?? '';
    const known = PING_REPLIES.find(({ pattern }) => pattern.test(ping));
    if (!known) return null;
    const details: Record<string, string> = { auth: known.auth };
    if (ping.startsWith('-DENIED')) details.protected_mode = 'yes';
    let version: string | null = null;
    if (known.auth === 'none' && !endpoint.signal.aborted) {
      session.write('INFO server\r\n');
      const info = (await session.readUntil(respComplete)).toString('latin1');
      version = /^redis_version:(\d[\w.]*)/m.exec(info)?.[1] ?? null;
      const mode = /^redis_mode:(\w+)/m.exec(info)?.[1];
      if (mode) details.mode = mode;
    }
    session.write('QUIT\r\n');
    return { name: 'redis', product: 'Redis', version, details };
  });
}

/** memcached: the `version` text command. */
export function probeMemcached(endpoint: Endpoint): Promise<Identified | null> {
  return withSession(endpoint, DETECTION_SESSION, null, async (session) => {
    session.write('version\r\n');
    const reply = linesOf(await session.readUntil(untilLine))[0] ?? '';
    const version = /^VERSION (\d[\w.]*)/.exec(reply)?.[1];
    if (!version) return null;
    session.write('quit\r\n');
    // The text protocol answered without SASL: anyone who reaches the port can use the cache.
    return { name: 'memcached', product: 'memcached', version, details: { auth: 'none' } };
  });
}
