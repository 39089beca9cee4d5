/**
 * The client side of the MySQL / MariaDB connection phase (protocol 41), just enough to try one
 * account with an empty password and leave: read the server's initial handshake, answer with a
 * HandshakeResponse41 (no database, no TLS, no attributes), follow an auth switch or the
 * caching_sha2_password fast path, then send COM_QUIT when the server let us in.
 *
 * An empty password gives the same answer for every scramble-based plugin (nothing to hash), so
 * no password or hash of one ever crosses the wire. The server runs no statement of ours: a login
 * followed by COM_QUIT changes no data, and a refused login is the ordinary "Access denied" that
 * does not count towards max_connect_errors (only broken handshakes do, so we always finish it).
 *
 * Reference: https://dev.mysql.com/doc/dev/mysql-server/latest/page_protocol_connection_phase.html
 * and https://mariadb.com/kb/en/connection/.
 */
import type { Parsed, Session } from './session.js';

/** Capability flags we use (https://dev.mysql.com/doc/dev/mysql-server/latest/group__group__cs__capabilities__flags.html). */
const CLIENT_LONG_PASSWORD = 0x1;
const CLIENT_LONG_FLAG = 0x4;
const CLIENT_PROTOCOL_41 = 0x200;
export const CLIENT_SSL = 0x800;
const CLIENT_TRANSACTIONS = 0x2000;
const CLIENT_SECURE_CONNECTION = 0x8000;
const CLIENT_PLUGIN_AUTH = 0x80000;
const CLIENT_CAPABILITIES = CLIENT_LONG_PASSWORD | CLIENT_LONG_FLAG | CLIENT_PROTOCOL_41 | CLIENT_TRANSACTIONS | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH;
/** utf8_general_ci: every server since 4.1 knows it. */
const CHARSET_UTF8 = 0x21;
const MAX_CLIENT_PACKET = 16 * 1024 * 1024;
/** The largest server packet we read during the connection phase; greetings and errors are tiny. */
const MAX_SERVER_PACKET = 64 * 1024;
/** Auth switches / extra-data rounds followed before giving up. */
const MAX_AUTH_ROUNDS = 3;
const COM_QUIT = 0x01;

/** Plugins whose client sends a single NUL byte for an empty password (sha256 and caching_sha2 clients, clear text's terminator). */
const NUL_FOR_EMPTY = new Set(['caching_sha2_password', 'sha256_password', 'mysql_clear_password']);

/** One packet: sequence id and payload. */
export interface MysqlPacket {
  sequence: number;
  payload: Buffer;
}

/** What the initial handshake (protocol 10) says. */
export interface MysqlGreeting {
  serverVersion: string;
  /** Both halves of the capability flags. */
  capabilities: number;
  /** The default authentication plugin, when the server names one. */
  authPlugin: string | null;
}

/** How a login attempt ended. */
export type LoginOutcome =
  | { kind: 'accepted'; plugin: string }
  | { kind: 'denied'; code: number | null; message: string }
  /** The exchange stopped before the server decided (timeout, close, an answer we do not follow). */
  | { kind: 'inconclusive'; reason: string };

/** Reads one packet (3-byte little-endian length, sequence id, payload); null on timeout, close or an oversized packet. */
export function readPacket(session: Session): Promise<MysqlPacket | null> {
  return session.read((buffer): Parsed<MysqlPacket | null> => {
    if (buffer.length < 4) return null;
    const length = buffer.readUIntLE(0, 3);
    if (length > MAX_SERVER_PACKET) return { value: null, consumed: buffer.length };
    if (buffer.length < 4 + length) return null;
    return { value: { sequence: buffer[3]!, payload: Buffer.from(buffer.subarray(4, 4 + length)) }, consumed: 4 + length };
  });
}

function packet(sequence: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUIntLE(payload.length, 0, 3);
  header[3] = sequence & 0xff;
  return Buffer.concat([header, payload]);
}

/** Parses a v10 initial handshake; null for an error packet or anything else. */
export function parseGreeting(payload: Buffer): MysqlGreeting | null {
  if (payload[0] !== 0x0a) return null;
  const versionEnd = payload.indexOf(0, 1);
  if (versionEnd < 2) return null;
  let at = versionEnd + 1 + 4 + 8 + 1; // connection id, auth-plugin-data part 1, filler
  if (payload.length < at + 2) return null;
  let capabilities = payload.readUInt16LE(at);
  at += 2;
  let authPlugin: string | null = null;
  if (payload.length >= at + 5) {
    // character set (1), status flags (2), capabilities high half (2), auth-plugin-data length (1), reserved (10)
    capabilities |= payload.readUInt16LE(at + 3) << 16;
    const dataLength = payload[at + 5]!;
    at += 6 + 10;
    if (capabilities & CLIENT_SECURE_CONNECTION) at += Math.max(13, dataLength - 8);
    if (capabilities & CLIENT_PLUGIN_AUTH && at < payload.length) {
      const end = payload.indexOf(0, at);
      authPlugin = payload.subarray(at, end < 0 ? payload.length : end).toString('latin1') || null;
    }
  }
  return { serverVersion: payload.subarray(1, versionEnd).toString('latin1'), capabilities: capabilities >>> 0, authPlugin };
}

/** The error code and message of an ERR packet (`0xff`). */
export function parseError(payload: Buffer): { code: number | null; message: string } {
  const code = payload.length >= 3 ? payload.readUInt16LE(1) : null;
  // Protocol 41 errors carry `#` and a five-character SQL state before the message.
  const text = payload.subarray(3).toString('utf8').replace(/^#[0-9A-Z]{5}/, '');
  return { code, message: text };
}

/** The answer to an authentication challenge for an empty password, per plugin. */
function emptyPasswordResponse(plugin: string): Buffer {
  return NUL_FOR_EMPTY.has(plugin) ? Buffer.from([0]) : Buffer.alloc(0);
}

/** HandshakeResponse41 for `user` with an empty password, answering the greeting's plugin. */
function handshakeResponse(user: string, plugin: string): Buffer {
  const head = Buffer.alloc(32);
  head.writeUInt32LE(CLIENT_CAPABILITIES, 0);
  head.writeUInt32LE(MAX_CLIENT_PACKET, 4);
  head[8] = CHARSET_UTF8; // then 23 reserved zero bytes
  const auth = emptyPasswordResponse(plugin);
  return Buffer.concat([head, Buffer.from(`${user}\0`, 'utf8'), Buffer.from([auth.length]), auth, Buffer.from(`${plugin}\0`, 'latin1')]);
}

/**
 * Tries `user` with an empty password on a session whose greeting was read. On success sends
 * COM_QUIT (the caller closes the session in any case).
 */
export async function tryEmptyPassword(session: Session, greeting: MysqlGreeting, greetingSequence: number, user: string): Promise<LoginOutcome> {
  // A server that does not name a plugin speaks the 4.1 scheme, which is mysql_native_password's.
  let plugin = greeting.authPlugin ?? 'mysql_native_password';
  let sequence = greetingSequence + 1;
  session.write(packet(sequence, handshakeResponse(user, plugin)));
  for (let round = 0; round <= MAX_AUTH_ROUNDS; round++) {
    const reply = await readPacket(session);
    if (!reply) return { kind: 'inconclusive', reason: 'no answer to the login' };
    sequence = reply.sequence + 1;
    const { payload } = reply;
    if (payload[0] === 0x00) {
      session.write(packet(0, Buffer.from([COM_QUIT])));
      return { kind: 'accepted', plugin };
    }
    if (payload[0] === 0xff) return { kind: 'denied', ...parseError(payload) };
    if (payload[0] === 0xfe) {
      // Auth switch: the account uses another plugin; it gets the empty-password answer of that plugin.
      const end = payload.indexOf(0, 1);
      plugin = payload.subarray(1, end < 0 ? payload.length : end).toString('latin1');
      session.write(packet(sequence, emptyPasswordResponse(plugin)));
      continue;
    }
    if (payload[0] === 0x01 && payload[1] === 0x03) continue; // caching_sha2_password fast auth succeeded: OK follows
    // 0x01 0x04 (caching_sha2_password wants the full password over TLS or RSA) and anything
    // else: the account has a password, or the plugin needs more than we send.
    return { kind: 'inconclusive', reason: `the ${plugin} exchange asked for more than an empty password` };
  }
  return { kind: 'inconclusive', reason: 'too many authentication rounds' };
}
