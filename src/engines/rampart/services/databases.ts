/**
 * SQL databases. MySQL / MariaDB speak first with an initial handshake packet; PostgreSQL is
 * silent and answers an SSLRequest with one byte, then a StartupMessage with an authentication
 * request or an error. We never send a password: what the server asks for is the answer.
 */
import { DETECTION_SESSION, withSession } from '../protocols/session.js';
import type { Identified } from './info.js';
import type { Endpoint } from '../checks/check.js';

/** Capability flag CLIENT_SSL of the MySQL handshake: the server accepts TLS. */
const CLIENT_SSL = 0x0800;

/**
 * A MySQL-protocol greeting: a v10 handshake (`0x0a`, server version, ..., auth plugin) or an
 * error packet (`0xff`, e.g. "Host ... is not allowed to connect"). Null for anything else.
 */
export function identifyMysql(bytes: Buffer): Identified | null {
  if (bytes.length < 5 || bytes[3] !== 0) return null;
  const length = bytes.readUIntLE(0, 3);
  if (length < 1 || length + 4 > bytes.length) return null;
  const packet = bytes.subarray(4, 4 + length);
  if (packet[0] === 0xff && packet.length > 3) {
    const message = packet.subarray(3).toString('utf8').replace(/^#\w{5}/, '');
    return { name: 'mysql', product: /MariaDB/.test(message) ? 'MariaDB' : null, details: { error: message } };
  }
  if (packet[0] !== 0x0a) return null;
  const versionEnd = packet.indexOf(0, 1);
  if (versionEnd < 2) return null;
  const serverVersion = packet.subarray(1, versionEnd).toString('latin1');
  if (!/^\d+\.\d+/.test(serverVersion)) return null;

  const details: Record<string, string> = { protocol: '10', server_version: serverVersion };
  // After the version: connection id (4), salt part 1 (8), filler (1), capability flags, low half (2).
  const capabilities = packet.length >= versionEnd + 16 ? packet.readUInt16LE(versionEnd + 14) : 0;
  details.ssl = capabilities & CLIENT_SSL ? 'yes' : 'no';
  const plugin = /([a-z_0-9]+_password|auth_[a-z_0-9]+)\0?$/.exec(packet.toString('latin1'))?.[1];
  if (plugin) details.auth_plugin = plugin;

  // MariaDB 10+ prefixes `5.5.5-` so that old MySQL clients accept it (MDEV-4088).
  const mariadb = /MariaDB/i.test(serverVersion);
  const bare = mariadb ? serverVersion.replace(/^5\.5\.5-/, '') : serverVersion;
  const version = /^\d+\.\d+\.\d+/.exec(bare)?.[0] ?? null;
  return { name: 'mysql', product: mariadb ? 'MariaDB' : 'MySQL', version, details };
}

const SSL_REQUEST_CODE = 80877103;
const PROTOCOL_3_0 = 196608;

function startupMessage(): Buffer {
  const pairs = ['user', 'rampart', 'database', 'rampart', 'application_name', 'rampart'];
  const body = Buffer.concat([...pairs.map((text) => Buffer.from(`${text}\0`, 'utf8')), Buffer.from([0])]);
  const head = Buffer.alloc(8);
  head.writeInt32BE(body.length + 8, 0);
  head.writeInt32BE(PROTOCOL_3_0, 4);
  return Buffer.concat([head, body]);
}

interface BackendMessage {
  type: string;
  payload: Buffer;
}

/** The complete backend messages at the start of `bytes` (a partial last one is left out). */
function backendMessages(bytes: Buffer): BackendMessage[] {
  const messages: BackendMessage[] = [];
  for (let at = 0; at + 5 <= bytes.length; ) {
    const length = bytes.readInt32BE(at + 1);
    if (length < 4 || at + 1 + length > bytes.length) break;
    messages.push({ type: String.fromCharCode(bytes[at] ?? 0), payload: bytes.subarray(at + 5, at + 1 + length) });
    at += 1 + length;
  }
  return messages;
}

/** The startup exchange is over: an error, ReadyForQuery, or a request for a password we won't send. */
function startupOver(bytes: Buffer): boolean {
  return backendMessages(bytes).some(
    (m) => m.type === 'E' || m.type === 'Z' || (m.type === 'R' && m.payload.length >= 4 && m.payload.readInt32BE(0) !== 0),
  );
}

const AUTH_METHODS: Readonly<Record<number, string>> = { 0: 'trust', 3: 'password', 5: 'md5', 7: 'gss', 9: 'sspi', 10: 'sasl' };

/**
 * PostgreSQL: SSLRequest (answer `S` or `N`), then on a fresh connection a StartupMessage for
 * user and database `rampart`. Reads the authentication request, the error fields, and, when the
 * server lets that role in without a password, `server_version`; then sends Terminate.
 */
export async function probePostgres(endpoint: Endpoint): Promise<Identified | null> {
  const sslAnswer = await withSession(endpoint, DETECTION_SESSION, null, async (session) => {
    const request = Buffer.alloc(8);
    request.writeInt32BE(8, 0);
    request.writeInt32BE(SSL_REQUEST_CODE, 4);
    session.write(request);
    return session.readUntil((received) => received.length >= 1);
  });
  // Exactly one byte, S or N: anything more is not PostgreSQL's answer.
  if (sslAnswer?.length !== 1 || (sslAnswer[0] !== 0x53 && sslAnswer[0] !== 0x4e)) return null;
  const details: Record<string, string> = { ssl: sslAnswer[0] === 0x53 ? 'yes' : 'no' };
  if (endpoint.signal.aborted) return { name: 'postgresql', product: 'PostgreSQL', details };

  let version: string | null = null;
  await withSession(endpoint, DETECTION_SESSION, null, async (session) => {
    session.write(startupMessage());
    const messages = backendMessages(await session.readUntil(startupOver));
    for (const { type, payload } of messages) {
      if (type === 'R' && payload.length >= 4) {
        const code = payload.readInt32BE(0);
        details.auth_method = AUTH_METHODS[code] ?? String(code);
        details.auth = code === 0 ? 'none' : 'required';
      } else if (type === 'E') {
        Object.assign(details, errorFields(payload));
      } else if (type === 'S') {
        const [name, value] = payload.toString('utf8').split('\0');
        if (name === 'server_version' && value) version = /^\d+(?:\.\d+)?/.exec(value)?.[0] ?? null;
      }
    }
    if (messages.some((m) => m.type === 'Z')) session.write(Buffer.from([0x58, 0, 0, 0, 4])); // Terminate
  });
  return { name: 'postgresql', product: 'PostgreSQL', version, details };
}

/** The SQLSTATE (`C`) and message (`M`) fields of an ErrorResponse. */
function errorFields(payload: Buffer): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const field of payload.toString('utf8').split('\0')) {
    if (field.startsWith('C')) fields.error_code = field.slice(1);
    if (field.startsWith('M')) fields.error_message = field.slice(1);
  }
  // 28000 is invalid_authorization_specification: pg_hba.conf turned this client away outright.
  if (fields.error_code === '28000' && /pg_hba\.conf/.test(fields.error_message ?? '')) fields.auth = 'rejected';
  return fields;
}
