/**
 * The client side of the SSH transport (RFC 4253) as far as asking which authentication methods
 * a server offers: identification, KEXINIT, an ECDH key exchange (curve25519-sha256 or
 * ecdh-sha2-nistp256, RFC 8731 / RFC 5656), NEWKEYS, then packets encrypted with aes*-ctr and
 * authenticated with hmac-sha2-256/512 or hmac-sha1 (the algorithms every OpenSSH since 5.9
 * offers), all with node:crypto. Then the `ssh-userauth` service and one `none` request
 * (RFC 4252 §5.2), whose failure lists the methods that can continue; then SSH_MSG_DISCONNECT.
 *
 * The server's host key signature is not verified: nothing is sent that would matter to a
 * man in the middle (no credential), and what we learn is only the method list.
 */
import { createCipheriv, createDecipheriv, createECDH, createHash, createHmac, diffieHellman, generateKeyPairSync, randomBytes, timingSafeEqual, createPublicKey, type Cipher, type Decipher, type KeyObject } from 'node:crypto';
import type { Session } from './session.js';

export const CLIENT_IDENT = 'SSH-2.0-Rampart_Scanner';
const MSG_DISCONNECT = 1;
const MSG_IGNORE = 2;
const MSG_DEBUG = 4;
const MSG_SERVICE_REQUEST = 5;
const MSG_SERVICE_ACCEPT = 6;
const MSG_EXT_INFO = 7;
const MSG_KEXINIT = 20;
const MSG_NEWKEYS = 21;
const MSG_KEX_ECDH_INIT = 30;
const MSG_KEX_ECDH_REPLY = 31;
const MSG_USERAUTH_REQUEST = 50;
const MSG_USERAUTH_FAILURE = 51;
const MSG_USERAUTH_SUCCESS = 52;
const MSG_USERAUTH_BANNER = 53;
/** RFC 4253 §6.1 requires at least 35000. */
const MAX_PACKET_LENGTH = 35000;
/** Lines a server may send before its identification (RFC 4253 §4.2). */
const MAX_PRE_IDENT_LINES = 20;
/** Packets skipped (IGNORE, DEBUG, EXT_INFO, BANNER) while waiting for one we asked for. */
const MAX_SKIPPED = 20;

const KEX = ['curve25519-sha256', 'curve25519-sha256@libssh.org', 'ecdh-sha2-nistp256'];
// Any host key algorithm will do: its signature is not verified.
const HOST_KEYS = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa', 'ssh-dss'];
const CIPHERS: Record<string, { cipher: string; keyLength: number }> = {
  'aes128-ctr': { cipher: 'aes-128-ctr', keyLength: 16 },
  'aes192-ctr': { cipher: 'aes-192-ctr', keyLength: 24 },
  'aes256-ctr': { cipher: 'aes-256-ctr', keyLength: 32 },
};
const MACS: Record<string, { hash: string; length: number }> = {
  'hmac-sha2-256': { hash: 'sha256', length: 32 },
  'hmac-sha2-512': { hash: 'sha512', length: 64 },
  'hmac-sha1': { hash: 'sha1', length: 20 },
};

/** SSH wire encoding: uint32, string, name-list, mpint. */
function uint32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value >>> 0);
  return b;
}
function sshString(value: string | Buffer): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return Buffer.concat([uint32(bytes.length), bytes]);
}
function mpint(unsigned: Buffer): Buffer {
  let start = 0;
  while (start < unsigned.length && unsigned[start] === 0) start++;
  let body = unsigned.subarray(start);
  if (body.length > 0 && body[0]! & 0x80) body = Buffer.concat([Buffer.from([0]), body]);
  return sshString(body);
}

/** Reads SSH strings out of a payload. */
class Reader {
  constructor(
    private readonly bytes: Buffer,
    private at = 0,
  ) {}
  byte(): number | null {
    return this.at < this.bytes.length ? this.bytes[this.at++]! : null;
  }
  string(): Buffer | null {
    if (this.at + 4 > this.bytes.length) return null;
    const length = this.bytes.readUInt32BE(this.at);
    if (this.at + 4 + length > this.bytes.length) return null;
    const value = this.bytes.subarray(this.at + 4, this.at + 4 + length);
    this.at += 4 + length;
    return value;
  }
}

/** The name-lists of a KEXINIT payload (message byte first), or null. */
export function kexInitLists(payload: Buffer): string[][] | null {
  if (payload[0] !== MSG_KEXINIT || payload.length < 17) return null;
  const reader = new Reader(payload, 17);
  const lists: string[][] = [];
  for (let i = 0; i < 10; i++) {
    const list = reader.string();
    if (!list) return null;
    const text = list.toString('latin1');
    lists.push(text === '' ? [] : text.split(','));
  }
  return lists;
}

/** Reads lines until the `SSH-` identification; null if the server is silent or not SSH. */
export async function readIdentification(session: Session): Promise<string | null> {
  for (let i = 0; i < MAX_PRE_IDENT_LINES; i++) {
    const line = await session.readLine(255);
    if (line === null) return null;
    if (line.startsWith('SSH-')) return line;
  }
  return null;
}

interface Direction {
  cipher: Cipher | Decipher;
  macKey: Buffer;
  mac: { hash: string; length: number };
}

/** Why the method list could not be had: the reason goes to the caller, nothing is thrown. */
export class SshUnsupported extends Error {}

/**
 * One SSH transport over a session, client side. Packet sequence numbers count every packet
 * from the first KEXINIT (RFC 4253 §6.4); strict kex is not offered, so they never reset.
 */
export class SshClient {
  private sendSequence = 0;
  private receiveSequence = 0;
  private outgoing: Direction | null = null;
  private incoming: Direction | null = null;

  constructor(private readonly session: Session) {}

  /** Reads one packet's payload (decrypting once keys are in use); null on timeout, close or a bad packet. */
  async readPacket(): Promise<Buffer | null> {
    const blockSize = this.incoming ? 16 : 8;
    const first = await this.session.readBytes(this.incoming ? blockSize : 5);
    if (!first) return null;
    const head = this.incoming ? (this.incoming.cipher as Decipher).update(first) : first;
    const packetLength = head.readUInt32BE(0);
    if (packetLength < 5 || packetLength > MAX_PACKET_LENGTH) return null;
    const macLength = this.incoming?.mac.length ?? 0;
    const restLength = 4 + packetLength - first.length;
    if (restLength < 0) return null;
    const rest = await this.session.readBytes(restLength + macLength);
    if (!rest) return null;
    const body = this.incoming ? (this.incoming.cipher as Decipher).update(rest.subarray(0, restLength)) : rest;
    const packet = Buffer.concat([head, body]);
    if (this.incoming) {
      const expected = createHmac(this.incoming.mac.hash, this.incoming.macKey).update(uint32(this.receiveSequence)).update(packet).digest();
      if (!timingSafeEqual(expected, rest.subarray(restLength))) return null;
    }
    this.receiveSequence = (this.receiveSequence + 1) >>> 0;
    const padding = packet[4]!;
    if (padding >= packetLength) return null;
    return packet.subarray(5, 4 + packetLength - padding);
  }

  /** Reads packets until one of `types` arrives (skipping IGNORE, DEBUG, EXT_INFO, BANNER); null on anything else. */
  async expect(...types: number[]): Promise<Buffer | null> {
    for (let i = 0; i < MAX_SKIPPED; i++) {
      const payload = await this.readPacket();
      if (!payload) return null;
      if (types.includes(payload[0]!)) return payload;
      if (![MSG_IGNORE, MSG_DEBUG, MSG_EXT_INFO, MSG_USERAUTH_BANNER].includes(payload[0]!)) return null;
    }
    return null;
  }

  /** Sends one packet, padded to the block size, encrypted and MACed once keys are in use. */
  writePacket(payload: Buffer): void {
    const blockSize = this.outgoing ? 16 : 8;
    let padding = blockSize - ((5 + payload.length) % blockSize);
    if (padding < 4) padding += blockSize;
    const packet = Buffer.concat([uint32(1 + payload.length + padding), Buffer.from([padding]), payload, randomBytes(padding)]);
    if (this.outgoing) {
      const mac = createHmac(this.outgoing.mac.hash, this.outgoing.macKey).update(uint32(this.sendSequence)).update(packet).digest();
      this.session.write(Buffer.concat([(this.outgoing.cipher as Cipher).update(packet), mac]));
    } else {
      this.session.write(packet);
    }
    this.sendSequence = (this.sendSequence + 1) >>> 0;
  }

  /**
   * Key exchange after the identifications: `serverKexInit` is the server's KEXINIT payload
   * already read. Throws SshUnsupported when no algorithm of ours is offered.
   */
  async exchangeKeys(clientIdent: string, serverIdent: string, serverKexInit: Buffer): Promise<void> {
    const lists = kexInitLists(serverKexInit);
    if (!lists) throw new SshUnsupported('malformed KEXINIT');
    const pick = (ours: string[], theirs: string[] = [], what: string): string => {
      const chosen = ours.find((name) => theirs.includes(name));
      if (!chosen) throw new SshUnsupported(`no ${what} in common (server offers ${theirs.join(',')})`);
      return chosen;
    };
    const kex = pick(KEX, lists[0], 'key exchange');
    pick(HOST_KEYS, lists[1], 'host key algorithm');
    const cipherC = pick(Object.keys(CIPHERS), lists[2], 'cipher');
    const cipherS = pick(Object.keys(CIPHERS), lists[3], 'cipher');
    const macC = pick(Object.keys(MACS), lists[4], 'MAC');
    const macS = pick(Object.keys(MACS), lists[5], 'MAC');
    pick(['none'], lists[6], 'compression');
    pick(['none'], lists[7], 'compression');

    const clientKexInit = Buffer.concat([
      Buffer.from([MSG_KEXINIT]),
      randomBytes(16),
      ...[KEX, HOST_KEYS, Object.keys(CIPHERS), Object.keys(CIPHERS), Object.keys(MACS), Object.keys(MACS), ['none'], ['none'], [], []].map((list) => sshString(list.join(','))),
      Buffer.from([0]), // first_kex_packet_follows
      uint32(0),
    ]);
    this.writePacket(clientKexInit);

    const ecdh = kex.startsWith('curve25519') ? x25519() : nistp256();
    this.writePacket(Buffer.concat([Buffer.from([MSG_KEX_ECDH_INIT]), sshString(ecdh.publicKey)]));
    const reply = await this.expect(MSG_KEX_ECDH_REPLY);
    if (!reply) throw new SshUnsupported('no key exchange reply');
    const reader = new Reader(reply, 1);
    const hostKey = reader.string();
    const serverPublic = reader.string();
    if (!hostKey || !serverPublic || !reader.string()) throw new SshUnsupported('malformed key exchange reply');
    const secret = mpint(ecdh.computeSecret(serverPublic));
    const exchangeHash = createHash('sha256')
      .update(Buffer.concat([sshString(clientIdent), sshString(serverIdent), sshString(clientKexInit), sshString(serverKexInit), sshString(hostKey), sshString(ecdh.publicKey), sshString(serverPublic), secret]))
      .digest();

    this.writePacket(Buffer.from([MSG_NEWKEYS]));
    if (!(await this.expect(MSG_NEWKEYS))) throw new SshUnsupported('no NEWKEYS');
    // RFC 4253 §7.2: HASH(K || H || letter || session_id), extended as needed; here session_id = H.
    const derive = (letter: string, length: number): Buffer => {
      let key = createHash('sha256').update(secret).update(exchangeHash).update(letter).update(exchangeHash).digest();
      while (key.length < length) key = Buffer.concat([key, createHash('sha256').update(secret).update(exchangeHash).update(key).digest()]);
      return key.subarray(0, length);
    };
    const out = CIPHERS[cipherC]!;
    const inc = CIPHERS[cipherS]!;
    this.outgoing = { cipher: createCipheriv(out.cipher, derive('C', out.keyLength), derive('A', 16)), macKey: derive('E', MACS[macC]!.length), mac: MACS[macC]! };
    this.incoming = { cipher: createDecipheriv(inc.cipher, derive('D', inc.keyLength), derive('B', 16)), macKey: derive('F', MACS[macS]!.length), mac: MACS[macS]! };
  }

  /**
   * Asks for `ssh-userauth` and sends a `none` request for `user`: the methods that can continue,
   * or `accepted` when the server let the user in without any credential.
   */
  async authMethods(user: string): Promise<{ methods: string[] } | 'accepted' | null> {
    this.writePacket(Buffer.concat([Buffer.from([MSG_SERVICE_REQUEST]), sshString('ssh-userauth')]));
    if (!(await this.expect(MSG_SERVICE_ACCEPT))) return null;
    this.writePacket(Buffer.concat([Buffer.from([MSG_USERAUTH_REQUEST]), sshString(user), sshString('ssh-connection'), sshString('none')]));
    const answer = await this.expect(MSG_USERAUTH_FAILURE, MSG_USERAUTH_SUCCESS);
    if (!answer) return null;
    if (answer[0] === MSG_USERAUTH_SUCCESS) return 'accepted';
    const list = new Reader(answer, 1).string();
    if (!list) return null;
    const text = list.toString('latin1');
    return { methods: text === '' ? [] : text.split(',') };
  }

  /** SSH_MSG_DISCONNECT, reason 11 ("by application"). */
  disconnect(): void {
    this.writePacket(Buffer.concat([Buffer.from([MSG_DISCONNECT]), uint32(11), sshString('Rampart scan complete'), sshString('')]));
  }
}

interface Ecdh {
  publicKey: Buffer;
  computeSecret(peer: Buffer): Buffer;
}

/** RFC 8731: X25519, the public key as 32 raw bytes. */
function x25519(): Ecdh {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  const raw = (key: KeyObject): Buffer => Buffer.from(key.export({ format: 'jwk' }).x ?? '', 'base64url');
  return {
    publicKey: raw(publicKey),
    computeSecret: (peer) => {
      if (peer.length !== 32) throw new SshUnsupported('bad X25519 public key');
      try {
        const peerKey = createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: peer.toString('base64url') }, format: 'jwk' });
        return diffieHellman({ privateKey, publicKey: peerKey });
      } catch {
        throw new SshUnsupported('bad X25519 public key');
      }
    },
  };
}

/** RFC 5656: ECDH over NIST P-256, uncompressed points. */
function nistp256(): Ecdh {
  const ecdh = createECDH('prime256v1');
  const publicKey = ecdh.generateKeys();
  return {
    publicKey,
    computeSecret: (peer) => {
      try {
        return ecdh.computeSecret(peer);
      } catch {
        throw new SshUnsupported('bad P-256 public key');
      }
    },
  };
}
