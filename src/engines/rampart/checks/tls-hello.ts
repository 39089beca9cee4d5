/**
 * A hand-built TLS ClientHello and the first answer to it: which suite (and version) the server
 * chose, or that it refused. Node's OpenSSL cannot offer SSLv3, RC4, 3DES or export suites; a
 * ClientHello written byte by byte can offer any suite id. The handshake is never completed: the
 * connection is closed as soon as the ServerHello (or an alert) is read, so nothing is left on
 * the server but a failed handshake in its log. Kept apart from `tls-handshake.ts` (Node's real
 * handshakes, for the certificate) because nothing here touches Node's TLS stack. Its own small
 * connection loop rather than `protocols/session.ts`: the enumeration must tell a refusal (the
 * server closed or reset) from silence (timeout), and a Session read returns null for both.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import net from 'node:net';
import { connectTcp } from '../port-scan.js';
import type { Endpoint } from './check.js';

/** A protocol version a ClientHello can offer. */
export type HelloVersion = 'SSLv3' | 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';

const WIRE: Record<HelloVersion, number> = { SSLv3: 0x0300, TLSv1: 0x0301, 'TLSv1.1': 0x0302, 'TLSv1.2': 0x0303, 'TLSv1.3': 0x0304 };

/** The answer to one ClientHello. */
export type HelloResult =
  /** A ServerHello (or TLS 1.3 HelloRetryRequest) at the offered version chose `suite`. */
  | { kind: 'chosen'; suite: number }
  /** The server said no: an alert, a close or reset, or a ServerHello at another version. */
  | { kind: 'refused'; reason: string }
  /** No answer (timeout), the job aborted, or the connection could not be made: says nothing. */
  | { kind: 'failed'; reason: string };

/** The most a server may send before its ServerHello is complete (a ServerHello is < 1 KB). */
const MAX_ANSWER_BYTES = 16 * 1024 + 5;

/** The most read while waiting for a Certificate message (a long chain is ~10 KB). */
const MAX_CERTIFICATE_BYTES = 64 * 1024;

/**
 * Sends one ClientHello offering `suites` (in that order) at `version` to the endpoint, through
 * its egress, and reads the answer. Bounded by the connect plus read timeouts and the abort
 * signal; the socket is always destroyed before the promise settles.
 */
export async function sendClientHello(endpoint: Endpoint, version: HelloVersion, suites: readonly number[]): Promise<HelloResult> {
  const hello = buildClientHello(version, suites, serverNameOf(endpoint));
  const outcome = await converse(endpoint, hello, MAX_ANSWER_BYTES, (data) => readServerAnswer(data, WIRE[version]));
  if (outcome.ok) return outcome.value;
  // A server that drops the connection after our hello refused it (that is how many say no).
  if (outcome.why === 'closed') return { kind: 'refused', reason: outcome.reason };
  return { kind: 'failed', reason: outcome.reason };
}

/**
 * The certificates (DER, leaf first) a server sends after its ServerHello at TLS 1.2 or older,
 * for a server whose suites Node's TLS cannot offer; null when none came (refused, anonymous
 * suite, no answer). One connection, closed once the Certificate message is read.
 */
export async function fetchCertificates(endpoint: Endpoint, version: Exclude<HelloVersion, 'TLSv1.3'>, suites: readonly number[]): Promise<Buffer[] | null> {
  const hello = buildClientHello(version, suites, serverNameOf(endpoint));
  const outcome = await converse(endpoint, hello, MAX_CERTIFICATE_BYTES, readCertificates);
  return outcome.ok ? outcome.value : null;
}

type Conversation<T> = { ok: true; value: T } | { ok: false; why: 'closed' | 'failed'; reason: string };

/** Connects, sends `hello`, and feeds what arrives to `read` until it returns a value. */
async function converse<T>(endpoint: Endpoint, hello: Buffer, maxBytes: number, read: (data: Buffer) => T | null): Promise<Conversation<T>> {
  if (endpoint.signal.aborted) return { ok: false, why: 'failed', reason: 'aborted' };
  const started = Date.now();
  const outcome = await connectTcp(endpoint.egress, endpoint.address, endpoint.port, endpoint.limits.connectTimeoutMs, endpoint.signal);
  if (outcome.state !== 'connected') {
    return { ok: false, why: 'failed', reason: outcome.state === 'error' || outcome.state === 'unreachable' ? outcome.code : outcome.state };
  }
  const socket = outcome.socket;
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    let settled = false;
    const settle = (result: Conversation<T>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      endpoint.signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(result);
    };
    const onAbort = (): void => settle({ ok: false, why: 'failed', reason: 'aborted' });
    const left = Math.max(0, endpoint.limits.connectTimeoutMs + endpoint.limits.readTimeoutMs - (Date.now() - started));
    const timer = setTimeout(() => settle({ ok: false, why: 'failed', reason: 'timeout' }), left);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const value = read(received);
      if (value !== null) settle({ ok: true, value });
      else if (received.length > maxBytes) settle({ ok: false, why: 'closed', reason: 'answer too long' });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => settle({ ok: false, why: 'closed', reason: error.code ?? 'error' }));
    socket.once('close', () => settle({ ok: false, why: 'closed', reason: 'closed' }));
    endpoint.signal.addEventListener('abort', onAbort, { once: true });
    socket.write(hello);
  });
}

/** SNI: the target's name, never an IP literal (RFC 6066). */
function serverNameOf(endpoint: Endpoint): string | null {
  return net.isIP(endpoint.hostname) === 0 ? endpoint.hostname : null;
}

/**
 * A ClientHello record. TLS 1.3 carries `supported_versions` and an X25519 key share; TLS 1.0 to
 * 1.2 the usual extensions (groups, point formats, signature algorithms) so that ECDHE and ECDSA
 * suites can be chosen; SSLv3 none (SSLv3 servers may not parse them).
 */
export function buildClientHello(version: HelloVersion, suites: readonly number[], serverName: string | null): Buffer {
  const tls13 = version === 'TLSv1.3';
  const legacy = version === 'SSLv3';
  const suiteList = tls13 ? [...suites] : [...suites, 0x00ff]; // + the renegotiation-info SCSV (RFC 5746)
  const extensions = legacy ? null : Buffer.concat([
    ...(serverName === null ? [] : [extension(0x0000, vector(2, Buffer.concat([Buffer.from([0]), vector(2, Buffer.from(serverName, 'ascii'))])))]),
    extension(0x000a, vector(2, u16s(GROUPS))),
    extension(0x000b, vector(1, Buffer.from([0]))),
    extension(0x000d, vector(2, u16s(SIGNATURE_ALGORITHMS))),
    extension(0x0017, Buffer.alloc(0)), // extended_master_secret
    ...(tls13
      ? [
          extension(0x002b, vector(1, u16s([0x0304]))),
          extension(0x002d, vector(1, Buffer.from([1]))), // psk_dhe_ke
          extension(0x0033, vector(2, Buffer.concat([u16s([0x001d]), vector(2, x25519PublicKey())]))),
        ]
      : []),
  ]);
  const body = Buffer.concat([
    u16s([Math.min(WIRE[version], 0x0303)]),
    randomBytes(32),
    // TLS 1.3 middlebox compatibility mode sends a session id; older versions start a new session.
    tls13 ? vector(1, randomBytes(32)) : Buffer.from([0]),
    vector(2, u16s(suiteList)),
    Buffer.from([1, 0]), // compression: null only
    ...(extensions === null ? [] : [vector(2, extensions)]),
  ]);
  const handshake = Buffer.concat([Buffer.from([1]), u24(body.length), body]);
  return Buffer.concat([Buffer.from([0x16]), u16s([legacy ? 0x0300 : 0x0301]), u16s([handshake.length]), handshake]);
}

/**
 * The server's answer in `data` once it is complete enough to judge: a ServerHello's suite, an
 * alert, or anything else as a refusal; null while more bytes are needed.
 */
export function readServerAnswer(data: Buffer, offered: number): HelloResult | null {
  if (data.length < 5) return null;
  const type = data[0];
  if (type === 0x15) return data.length < 7 ? null : { kind: 'refused', reason: `alert ${data[6]}` };
  if (type !== 0x16) return { kind: 'refused', reason: `record type ${type}` };
  const payload = handshakePayload(data);
  if (payload.length < 4) return null;
  if (payload[0] !== 2) return { kind: 'refused', reason: `handshake type ${payload[0]}` };
  const length = payload.readUIntBE(1, 3);
  if (payload.length < 4 + length) return null;
  return parseServerHello(payload.subarray(4, 4 + length), offered);
}

/**
 * The certificate list of the first Certificate message in `data` (the flight after a
 * ServerHello), `[]` when the flight ends without one (an anonymous suite), null while more bytes
 * are needed. Anything but handshake records ends the flight.
 */
export function readCertificates(data: Buffer): Buffer[] | null {
  if (data.length >= 5 && data[0] !== 0x16) return [];
  const payload = handshakePayload(data);
  for (let offset = 0; offset + 4 <= payload.length;) {
    const type = payload[offset];
    const length = payload.readUIntBE(offset + 1, 3);
    if (offset + 4 + length > payload.length) return null;
    const body = payload.subarray(offset + 4, offset + 4 + length);
    if (type === 11) return certificateList(body);
    if (type === 14) return []; // ServerHelloDone: no certificate in this flight
    offset += 4 + length;
  }
  return null;
}

function certificateList(body: Buffer): Buffer[] {
  const certificates: Buffer[] = [];
  const end = Math.min(body.length, 3 + (body.length >= 3 ? body.readUIntBE(0, 3) : 0));
  for (let offset = 3; offset + 3 <= end;) {
    const length = body.readUIntBE(offset, 3);
    if (offset + 3 + length > end) break;
    certificates.push(body.subarray(offset + 3, offset + 3 + length));
    offset += 3 + length;
  }
  return certificates;
}

/** The payloads of the complete handshake records at the start of `data`, joined (a message may span records). */
function handshakePayload(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let offset = 0; offset + 5 <= data.length;) {
    const length = data.readUInt16BE(offset + 3);
    if (data[offset] !== 0x16 || offset + 5 + length > data.length) break;
    parts.push(data.subarray(offset + 5, offset + 5 + length));
    offset += 5 + length;
  }
  return Buffer.concat(parts);
}

function parseServerHello(hello: Buffer, offered: number): HelloResult {
  const malformed: HelloResult = { kind: 'refused', reason: 'malformed ServerHello' };
  if (hello.length < 38) return malformed;
  let version = hello.readUInt16BE(0);
  const sessionLength = hello[34] ?? 0;
  const at = 35 + sessionLength;
  if (hello.length < at + 3) return malformed;
  const suite = hello.readUInt16BE(at);
  // Extensions: only supported_versions matters (a TLS 1.3 ServerHello says 0x0303 in its header).
  for (let offset = at + 5; offset + 4 <= hello.length;) {
    const type = hello.readUInt16BE(offset);
    const size = hello.readUInt16BE(offset + 2);
    if (type === 0x002b && size === 2 && offset + 6 <= hello.length) version = hello.readUInt16BE(offset + 4);
    offset += 4 + size;
  }
  if (version !== offered) return { kind: 'refused', reason: `answered version 0x${version.toString(16)}` };
  // A HelloRetryRequest (RFC 8446 4.1.3) is a ServerHello too: it names the suite the same way.
  return { kind: 'chosen', suite };
}

/** x25519, P-256, P-384, P-521, x448, and the RFC 7919 finite-field groups. */
const GROUPS = [0x001d, 0x0017, 0x0018, 0x0019, 0x001e, 0x0100, 0x0101, 0x0102];

/** ECDSA, RSA-PSS, EdDSA, RSA PKCS#1 (SHA-2 then SHA-1) and DSA: a legacy server must find one it can sign with. */
const SIGNATURE_ALGORITHMS = [
  0x0403, 0x0503, 0x0603, 0x0807, 0x0808, 0x0804, 0x0805, 0x0806, 0x0809, 0x080a, 0x080b,
  0x0401, 0x0501, 0x0601, 0x0303, 0x0301, 0x0203, 0x0201, 0x0402, 0x0202,
];

let keyShare: Buffer | undefined;

/** A real X25519 public key (made once per process: the handshake never gets as far as using it). */
function x25519PublicKey(): Buffer {
  keyShare ??= generateKeyPairSync('x25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return keyShare;
}

function extension(type: number, data: Buffer): Buffer {
  return Buffer.concat([u16s([type]), vector(2, data)]);
}

/** `data` prefixed with its length in `width` bytes. */
function vector(width: 1 | 2, data: Buffer): Buffer {
  const length = Buffer.alloc(width);
  length.writeUIntBE(data.length, 0, width);
  return Buffer.concat([length, data]);
}

function u16s(values: readonly number[]): Buffer {
  const buffer = Buffer.alloc(values.length * 2);
  values.forEach((value, index) => buffer.writeUInt16BE(value, index * 2));
  return buffer;
}

function u24(value: number): Buffer {
  const buffer = Buffer.alloc(3);
  buffer.writeUIntBE(value, 0, 3);
  return buffer;
}
