/**
 * SSH algorithm audit: reads the server's identification string and its KEXINIT packet (sent in
 * the clear before any key exchange, RFC 4253 §7.1), lists what it offers, and flags weak
 * algorithms and the Terrapin-prone combinations. No key exchange, no authentication: after the
 * KEXINIT we send an unencrypted SSH_MSG_DISCONNECT and close.
 *
 * | Rule id                     | Threat             | CWE     | When                                              |
 * |-----------------------------|--------------------|---------|---------------------------------------------------|
 * | `rampart:ssh-protocol-v1`   | High               | CWE-327 | identification `SSH-1.x` (not 1.99): SSH-1 only   |
 * | `rampart:ssh-weak-kex`      | Medium, else Low   | CWE-327 | SHA-1 key exchange; Medium for the 1024-bit group1 or SHA-1 group exchange |
 * | `rampart:ssh-weak-cipher`   | Medium, else Low   | CWE-327 | CBC modes (Low); RC4, 3DES, Blowfish, CAST-128 (Medium) |
 * | `rampart:ssh-weak-mac`      | Medium, else Low   | CWE-327 | SHA-1 / 64-bit MACs (Low); MD5 or truncated 96-bit MACs (Medium) |
 * | `rampart:ssh-weak-hostkey`  | Medium, else Low   | CWE-327 | `ssh-rsa` SHA-1 signatures (Low); DSA (Medium)    |
 * | `rampart:ssh-terrapin`      | Medium             | CWE-354 | ChaCha20-Poly1305, or CBC with an EtM MAC, without strict kex (CVE-2023-48795) |
 *
 * The threat of an algorithm finding is that of the worst algorithm it lists. Medium is kept
 * for what is practically attackable or long deprecated; Low for what is merely past its time.
 */
import type { Threat } from '../../engine.js';
import { checkFinding, type Check, type CheckFinding, type Endpoint, type ProtocolFacts, type ServiceInfo } from './check.js';
import { withSession, type Session } from '../protocols/session.js';
import { readIdentification } from '../protocols/ssh-transport.js';
import { printable } from './evidence.js';
import { severityOf } from '../severity.js';

/** What a server offers in its KEXINIT, both directions merged. */
export interface SshAlgorithms {
  kex: string[];
  hostKey: string[];
  ciphers: string[];
  macs: string[];
  compression: string[];
}

const CLIENT_IDENT = 'SSH-2.0-Rampart_Scanner\r\n';
const SSH_MSG_DISCONNECT = 1;
const SSH_MSG_KEXINIT = 20;
/** RFC 4253 §6.1 requires at least 35000; a KEXINIT is a few kilobytes. */
const MAX_PACKET_LENGTH = 35000;
const STRICT_KEX = 'kex-strict-s-v00@openssh.com';

type Rule = { pattern: RegExp; threat: Threat };

const WEAK_KEX: Rule[] = [
  { pattern: /^diffie-hellman-group1-sha1$/, threat: 'Medium' },
  { pattern: /^diffie-hellman-group-exchange-sha1$/, threat: 'Medium' },
  { pattern: /^diffie-hellman-group14-sha1$/, threat: 'Low' },
  { pattern: /^gss-.*-sha1(-.*)?$/, threat: 'Low' },
];
const WEAK_CIPHERS: Rule[] = [
  { pattern: /^arcfour/, threat: 'Medium' },
  { pattern: /^3des/, threat: 'Medium' },
  { pattern: /^blowfish/, threat: 'Medium' },
  { pattern: /^cast128/, threat: 'Medium' },
  { pattern: /-cbc(@.*)?$/, threat: 'Low' },
];
const WEAK_MACS: Rule[] = [
  { pattern: /^hmac-md5/, threat: 'Medium' },
  { pattern: /-96(-etm)?(@.*)?$/, threat: 'Medium' },
  { pattern: /^hmac-sha1/, threat: 'Low' },
  { pattern: /^umac-64/, threat: 'Low' },
];
const WEAK_HOST_KEYS: Rule[] = [
  { pattern: /^ssh-dss(-cert-v01@openssh\.com)?$/, threat: 'Medium' },
  { pattern: /^ssh-rsa(-cert-v01@openssh\.com)?$/, threat: 'Low' },
];

const THREAT_ORDER: Threat[] = ['Informational', 'Low', 'Medium', 'High', 'Critical'];

/** The SSH algorithm check: applies to every plain `ssh` service. */
export const sshCheck: Check = {
  id: 'ssh-algorithms',
  appliesTo: (service: ServiceInfo) => service.name === 'ssh' && !service.tls,
  run: (endpoint: Endpoint, _service: ServiceInfo, facts?: ProtocolFacts) =>
    withSession(endpoint, {}, [] as CheckFinding[], async (session) => {
      const ident = await readIdentification(session);
      if (ident === null) return [];
      if (/^SSH-1\.(?!99)/.test(ident)) return [protocolV1Finding(ident)];
      session.write(CLIENT_IDENT);
      const payload = await readPacket(session);
      const algorithms = payload ? parseKexInit(payload) : null;
      if (payload) session.write(disconnectPacket());
      if (!algorithms) return [];
      const safe = terrapinNotAffected(algorithms);
      if (safe) facts?.notAffected('CVE-2023-48795', safe);
      return assessSshAlgorithms(ident, algorithms);
    }),
};

/** Turns a server's identification and offer into findings (exported for unit tests). */
export function assessSshAlgorithms(ident: string, offer: SshAlgorithms): CheckFinding[] {
  const findings: CheckFinding[] = [];
  const server = `Server identification: ${printable(ident, 120)}.`;
  const groups: [string[], Rule[], (weak: string[], threat: Threat) => CheckFinding][] = [
    [offer.kex, WEAK_KEX, weakKexFinding],
    [offer.ciphers, WEAK_CIPHERS, weakCipherFinding],
    [offer.macs, WEAK_MACS, weakMacFinding],
    [offer.hostKey, WEAK_HOST_KEYS, weakHostKeyFinding],
  ];
  for (const [offered, rules, make] of groups) {
    const weak: { name: string; threat: Threat }[] = [];
    for (const name of offered) {
      const threat = rules.find((rule) => rule.pattern.test(name))?.threat;
      if (threat) weak.push({ name, threat });
    }
    if (weak.length === 0) continue;
    const worst = weak.reduce<Threat>((max, w) => (THREAT_ORDER.indexOf(w.threat) > THREAT_ORDER.indexOf(max) ? w.threat : max), 'Low');
    const finding = make(
      weak.map((w) => w.name),
      worst,
    );
    findings.push({ ...finding, evidence: `${finding.evidence} ${server} Offered: ${offered.join(',')}.` });
  }
  const chacha = offer.ciphers.includes('chacha20-poly1305@openssh.com');
  const cbcEtm = offer.ciphers.some((c) => /-cbc(@.*)?$/.test(c)) && offer.macs.some((m) => m.endsWith('-etm@openssh.com'));
  if ((chacha || cbcEtm) && !offer.kex.includes(STRICT_KEX)) {
    const modes = [chacha ? 'chacha20-poly1305@openssh.com' : null, cbcEtm ? 'a CBC cipher with an EtM MAC' : null].filter(Boolean).join(' and ');
    findings.push({
      ruleId: 'rampart:ssh-terrapin',
      name: 'SSH prefix truncation (Terrapin) possible',
      description:
        'The server offers encryption modes vulnerable to the Terrapin attack (CVE-2023-48795) and does not offer strict key exchange. A man-in-the-middle can delete messages at the start of the encrypted channel without detection, for instance to downgrade keystroke-timing protections or extension negotiation.',
      solution:
        'Upgrade the SSH server to a release that implements strict key exchange (OpenSSH 9.6 or a patched vendor build), or disable chacha20-poly1305@openssh.com and the *-etm@openssh.com MACs with CBC ciphers.',
      ...severityOf('rampart:ssh-terrapin'),
      cve: ['CVE-2023-48795'],
      cwe: 'CWE-354',
      evidence: `Offers ${modes}; key exchange list lacks ${STRICT_KEX}. ${server} Key exchange: ${offer.kex.join(',')}.`,
      references: ['https://terrapin-attack.com/', 'https://nvd.nist.gov/vuln/detail/CVE-2023-48795'],
    });
  }
  return findings;
}

/**
 * Why the server's offer is not open to Terrapin (CVE-2023-48795), or null when it may be: it
 * offers strict key exchange, or none of the affected modes (ChaCha20-Poly1305, CBC with an EtM MAC).
 */
export function terrapinNotAffected(offer: SshAlgorithms): string | null {
  if (offer.kex.includes(STRICT_KEX)) return `the server offers strict key exchange (${STRICT_KEX}), the fix of CVE-2023-48795`;
  const chacha = offer.ciphers.includes('chacha20-poly1305@openssh.com');
  const cbcEtm = offer.ciphers.some((c) => /-cbc(@.*)?$/.test(c)) && offer.macs.some((m) => m.endsWith('-etm@openssh.com'));
  return chacha || cbcEtm ? null : 'the server offers none of the modes CVE-2023-48795 needs (ChaCha20-Poly1305, CBC with an EtM MAC)';
}

/** Parses the payload of an SSH_MSG_KEXINIT (message byte first); null when it is not one. */
export function parseKexInit(payload: Buffer): SshAlgorithms | null {
  if (payload[0] !== SSH_MSG_KEXINIT || payload.length < 17) return null;
  let offset = 17; // message byte + 16-byte cookie
  const lists: string[][] = [];
  for (let i = 0; i < 10; i++) {
    if (offset + 4 > payload.length) return null;
    const length = payload.readUInt32BE(offset);
    offset += 4;
    if (offset + length > payload.length) return null;
    const text = payload.subarray(offset, offset + length).toString('latin1');
    lists.push(text === '' ? [] : text.split(','));
    offset += length;
  }
  const merge = (a = 0, b = 0): string[] => [...new Set([...(lists[a] ?? []), ...(lists[b] ?? [])])];
  return { kex: merge(0, 0), hostKey: merge(1, 1), ciphers: merge(2, 3), macs: merge(4, 5), compression: merge(6, 7) };
}

/** Reads one unencrypted binary packet (RFC 4253 §6) and returns its payload. */
async function readPacket(session: Session): Promise<Buffer | null> {
  const header = await session.readBytes(5);
  if (!header) return null;
  const packetLength = header.readUInt32BE(0);
  const paddingLength = header[4]!;
  if (packetLength < 5 || packetLength > MAX_PACKET_LENGTH || paddingLength >= packetLength) return null;
  const rest = await session.readBytes(packetLength - 1);
  return rest ? rest.subarray(0, packetLength - 1 - paddingLength) : null;
}

/** An unencrypted SSH_MSG_DISCONNECT (reason 11, "by application"), padded per RFC 4253 §6. */
function disconnectPacket(): Buffer {
  const description = Buffer.from('Rampart scan complete');
  const payload = Buffer.alloc(1 + 4 + 4 + description.length + 4);
  payload[0] = SSH_MSG_DISCONNECT;
  payload.writeUInt32BE(11, 1);
  payload.writeUInt32BE(description.length, 5);
  description.copy(payload, 9);
  payload.writeUInt32BE(0, 9 + description.length); // empty language tag
  let padding = 8 - ((5 + payload.length) % 8);
  if (padding < 4) padding += 8;
  const packet = Buffer.alloc(5 + payload.length + padding);
  packet.writeUInt32BE(1 + payload.length + padding, 0);
  packet[4] = padding;
  payload.copy(packet, 5);
  return packet;
}

const LEGACY = 'https://www.openssh.com/legacy.html';

type AlgorithmRuleId = 'rampart:ssh-weak-kex' | 'rampart:ssh-weak-cipher' | 'rampart:ssh-weak-mac' | 'rampart:ssh-weak-hostkey';

function algorithmFinding(ruleId: AlgorithmRuleId, name: string, description: string, solution: string, references: string[], weak: string[], threat: Threat): CheckFinding {
  return checkFinding({ ruleId, name, description, solution, ...severityOf(ruleId, threat as 'Medium' | 'Low'), cwe: 'CWE-327', evidence: `Weak: ${weak.join(',')}.`, references });
}

function weakKexFinding(weak: string[], threat: Threat): CheckFinding {
  return algorithmFinding(
    'rampart:ssh-weak-kex',
    'SSH server offers weak key exchange algorithms',
    'The server accepts key exchange methods based on SHA-1, and for diffie-hellman-group1-sha1 a 1024-bit group within reach of well-funded attackers (Logjam). RFC 9142 deprecates them.',
    'Remove the SHA-1 key exchange methods (KexAlgorithms in sshd_config); prefer curve25519-sha256, sntrup761x25519-sha512 or diffie-hellman-group16-sha512.',
    ['https://www.rfc-editor.org/rfc/rfc9142', 'https://weakdh.org/', LEGACY],
    weak,
    threat,
  );
}

function weakCipherFinding(weak: string[], threat: Threat): CheckFinding {
  return algorithmFinding(
    'rampart:ssh-weak-cipher',
    'SSH server offers weak ciphers',
    'The server accepts CBC-mode ciphers (plaintext-recovery attacks on SSH CBC) or broken ones (RC4, and 64-bit block ciphers such as 3DES, Blowfish, CAST-128 exposed to Sweet32-style collisions).',
    'Remove them (Ciphers in sshd_config); keep chacha20-poly1305@openssh.com, aes256-gcm@openssh.com, aes128-gcm@openssh.com and aes*-ctr.',
    ['https://www.rfc-editor.org/rfc/rfc8758', 'https://sweet32.info/', 'https://www.kb.cert.org/vuls/id/958563', LEGACY],
    weak,
    threat,
  );
}

function weakMacFinding(weak: string[], threat: Threat): CheckFinding {
  return algorithmFinding(
    'rampart:ssh-weak-mac',
    'SSH server offers weak MAC algorithms',
    'The server accepts message authentication codes built on MD5 or SHA-1, or with short (64- or 96-bit) tags, which give less integrity margin than current algorithms.',
    'Remove them (MACs in sshd_config); keep hmac-sha2-256-etm@openssh.com, hmac-sha2-512-etm@openssh.com and umac-128-etm@openssh.com.',
    ['https://www.rfc-editor.org/rfc/rfc6668', 'https://www.rfc-editor.org/rfc/rfc6151', LEGACY],
    weak,
    threat,
  );
}

function weakHostKeyFinding(weak: string[], threat: Threat): CheckFinding {
  return algorithmFinding(
    'rampart:ssh-weak-hostkey',
    'SSH server offers weak host key algorithms',
    'The server signs with DSA (1024-bit, removed from OpenSSH) or with RSA over SHA-1 (ssh-rsa), whose signatures are open to chosen-prefix collisions.',
    'Use Ed25519 or ECDSA host keys, and for RSA keys only the rsa-sha2-256 / rsa-sha2-512 signature algorithms (HostKeyAlgorithms in sshd_config); remove DSA host keys.',
    ['https://www.rfc-editor.org/rfc/rfc8332', 'https://sha-mbles.github.io/', LEGACY],
    weak,
    threat,
  );
}

function protocolV1Finding(ident: string): CheckFinding {
  return {
    ruleId: 'rampart:ssh-protocol-v1',
    name: 'SSH server speaks only protocol version 1',
    description: 'SSH protocol 1 has fundamental cryptographic flaws (CRC-32 integrity, session hijacking and key recovery attacks) and is unsupported by current clients.',
    solution: 'Replace the server with one that speaks SSH protocol 2 only.',
    ...severityOf('rampart:ssh-protocol-v1'),
    cve: [],
    cwe: 'CWE-327',
    evidence: `Server identification: ${printable(ident, 120)}.`,
    references: ['https://www.openssh.com/legacy.html', 'https://www.rfc-editor.org/rfc/rfc4253'],
  };
}
