/**
 * Judges the certificate chain a TLS server presented: validity dates, self-signed leaf, a chain
 * that does not reach Node's bundled CA store, host-name mismatch, weak key and weak signature
 * hash. Pure functions over what the handshake saw (see `tls.ts` for the threat table).
 */
import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import { checkFinding, type CheckFinding } from './check.js';
import type { HandshakeSuccess } from './tls-handshake.js';

/** A certificate expiring within this many days (and not yet expired) is reported. */
export const EXPIRY_WARNING_DAYS = 30;

const DAY_MS = 24 * 60 * 60 * 1000;

const MOZILLA_TLS = 'https://wiki.mozilla.org/Security/Server_Side_TLS';
const RFC5280 = 'https://www.rfc-editor.org/rfc/rfc5280';
const OWASP_TLS = 'https://cheatsheetseries.owasp.org/cheatsheets/Transport_Layer_Security_Cheat_Sheet.html';

/** Signature algorithm OIDs whose hash no longer resists collisions (RFC 6194, RFC 6151). */
const WEAK_SIGNATURES: Record<string, string> = {
  '1.2.840.113549.1.1.2': 'md2WithRSAEncryption',
  '1.2.840.113549.1.1.4': 'md5WithRSAEncryption',
  '1.2.840.113549.1.1.5': 'sha1WithRSAEncryption',
  '1.3.14.3.2.29': 'sha1WithRSAEncryption (OIW)',
  '1.2.840.10040.4.3': 'dsa-with-sha1',
  '1.2.840.10045.4.1': 'ecdsa-with-SHA1',
};

/** The findings about the chain of a completed handshake with `hostname` as the expected name. */
export function judgeCertificate(handshake: HandshakeSuccess, hostname: string, now = new Date()): CheckFinding[] {
  const leaf = handshake.chain[0];
  if (leaf === undefined) return [];
  const findings: CheckFinding[] = [];
  const summary = describeCertificate(leaf);
  const notBefore = Date.parse(leaf.validFrom);
  const notAfter = Date.parse(leaf.validTo);

  if (notAfter < now.getTime()) {
    findings.push(certFinding('tls-cert-expired', 'TLS certificate expired', 'High', 'CWE-324',
      'The server presents a certificate whose validity period has ended. Clients reject it or train users to click through warnings, which hides a real interception.',
      'Renew the certificate and install the new one with its intermediate chain; automate renewal (ACME).',
      `Expired ${leaf.validTo}. ${summary}`));
  } else if (notAfter - now.getTime() < EXPIRY_WARNING_DAYS * DAY_MS) {
    const days = Math.floor((notAfter - now.getTime()) / DAY_MS);
    findings.push(certFinding('tls-cert-expiring-soon', 'TLS certificate expires soon', 'Low', null,
      `The server certificate expires within ${EXPIRY_WARNING_DAYS} days; once expired, clients will reject it.`,
      'Renew the certificate before it expires; automate renewal (ACME) and monitor expiry.',
      `Expires ${leaf.validTo} (in ${days} days). ${summary}`));
  }
  if (notBefore > now.getTime()) {
    findings.push(certFinding('tls-cert-not-yet-valid', 'TLS certificate not yet valid', 'Medium', 'CWE-295',
      'The server presents a certificate whose validity period has not started; clients reject it.',
      "Install a certificate that is valid now, and check the issuing system's and the server's clocks.",
      `Valid from ${leaf.validFrom}. ${summary}`));
  }

  const selfSigned = isSelfSigned(leaf);
  const trusted = handshake.authorized || reachesBundledRoot(handshake.chain);
  if (selfSigned && !trusted) {
    findings.push(certFinding('tls-cert-self-signed', 'Self-signed TLS certificate', 'Low', 'CWE-295',
      'The server certificate is signed by its own key, so no client can verify who it belongs to: an attacker in the path can present their own certificate just as well.',
      'Use a certificate issued by a public CA (or by your organisation\'s CA, deployed to every client).',
      `${summary}. Verification: ${handshake.authorizationError ?? 'n/a'}`));
  } else if (!trusted) {
    findings.push(certFinding('tls-cert-untrusted', 'TLS certificate chain not trusted', 'Low', 'CWE-295',
      'The certificate chain the server sent does not lead to a CA in the standard trust store (a private CA, or missing intermediate certificates), so clients cannot verify the server.',
      'Serve a certificate from a publicly trusted CA together with its intermediate certificates, or deploy the private CA to every client.',
      `${summary}. Chain sent: ${handshake.chain.map((cert) => oneLine(cert.subject)).join(' <- ')}. Verification: ${handshake.authorizationError ?? 'n/a'}`));
  }

  const mismatch = handshake.peer === null ? undefined : tls.checkServerIdentity(hostname, handshake.peer);
  if (mismatch !== undefined) {
    findings.push(certFinding('tls-cert-name-mismatch', 'TLS certificate does not match the host name', 'Medium', 'CWE-297',
      'The certificate is not valid for the name the service was reached by; clients reject the connection or users learn to ignore the warning.',
      'Install a certificate whose subject alternative names include every name (and IP address) clients use for this service.',
      `Expected ${hostname}; ${mismatch.message} ${summary}`));
  }

  const weakKey = weakKeyReason(leaf);
  if (weakKey !== null) {
    findings.push(certFinding('tls-cert-weak-key', 'TLS certificate with a weak key', 'Medium', 'CWE-326',
      'The certificate public key is too short to resist factoring or discrete-log attacks for its lifetime (NIST SP 800-57: RSA/DSA at least 2048 bits, EC at least 224 bits).',
      'Issue a new certificate with an RSA key of at least 2048 bits or an ECDSA P-256 key.',
      `${weakKey}. ${summary}`));
  }

  const weakSignatures = handshake.chain
    .filter((cert, index) => index === 0 || !isSelfSigned(cert)) // a root's own signature is never checked
    .flatMap((cert) => {
      const oid = signatureAlgorithmOid(cert.raw);
      const name = oid === null ? undefined : WEAK_SIGNATURES[oid];
      return name === undefined ? [] : [`${oneLine(cert.subject)} signed with ${name}`];
    });
  if (weakSignatures.length > 0) {
    findings.push(certFinding('tls-cert-weak-signature', 'TLS certificate signed with a weak hash', 'Medium', 'CWE-328',
      'A certificate in the chain is signed with SHA-1 or MD5, whose collision attacks allow forging certificates (SHAttered, the 2008 rogue MD5 CA); browsers reject such certificates.',
      'Reissue the certificate (and any intermediate) with a SHA-256 or stronger signature.',
      weakSignatures.join('; ')));
  }
  return findings;
}

/** Subject, issuer, dates, key and serial of a certificate, on one line, for evidence. */
export function describeCertificate(cert: X509Certificate): string {
  return [
    `Subject: ${oneLine(cert.subject)}`,
    `Issuer: ${oneLine(cert.issuer)}`,
    `Valid: ${cert.validFrom} to ${cert.validTo}`,
    `Key: ${describeKey(cert)}`,
    `Signature: ${signatureName(cert.raw)}`,
    ...(cert.subjectAltName === undefined ? [] : [`SAN: ${cert.subjectAltName}`]),
  ].join('; ');
}

function certFinding(
  rule: string,
  name: string,
  threat: CheckFinding['threat'],
  cwe: string | null,
  description: string,
  solution: string,
  evidence: string,
): CheckFinding {
  return checkFinding({ ruleId: `rampart:${rule}`, name, description, solution, threat, cwe, evidence, references: [RFC5280, MOZILLA_TLS, OWASP_TLS] });
}

function isSelfSigned(cert: X509Certificate): boolean {
  try {
    return cert.checkIssued(cert) && cert.verify(cert.publicKey);
  } catch {
    return false;
  }
}

let bundledRoots: X509Certificate[] | undefined;

/**
 * Whether a certificate of the chain is, or is signed by, a root of Node's bundled Mozilla store.
 * Needed beside `authorized` because OpenSSL reports only its last verification error: an
 * expired certificate from a public CA says "expired", not whether the chain was trusted.
 */
function reachesBundledRoot(chain: X509Certificate[]): boolean {
  bundledRoots ??= tls.rootCertificates.map((pem) => new X509Certificate(pem));
  const roots = bundledRoots;
  return chain.some((cert) =>
    roots.some((root) => root.fingerprint256 === cert.fingerprint256 || (cert.checkIssued(root) && safeVerify(cert, root))),
  );
}

function safeVerify(cert: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return cert.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

function keyBits(cert: X509Certificate): { type: string; bits: number | null } {
  const key = cert.publicKey;
  const type = key.asymmetricKeyType ?? 'unknown';
  const details = key.asymmetricKeyDetails;
  if (details?.modulusLength !== undefined) return { type, bits: details.modulusLength };
  const curve = details?.namedCurve;
  if (curve !== undefined) {
    const match = /(\d{3})/.exec(curve);
    return { type, bits: match?.[1] === undefined ? null : Number(match[1]) };
  }
  if (type === 'ed25519') return { type, bits: 256 };
  if (type === 'ed448') return { type, bits: 456 };
  return { type, bits: null };
}

function describeKey(cert: X509Certificate): string {
  const { type, bits } = keyBits(cert);
  const curve = cert.publicKey.asymmetricKeyDetails?.namedCurve;
  return `${type.toUpperCase()}${bits === null ? '' : ` ${bits} bits`}${curve === undefined ? '' : ` (${curve})`}`;
}

/** Why the key is weak, or null: RSA/DSA below 2048 bits, EC below 224 bits. */
function weakKeyReason(cert: X509Certificate): string | null {
  const { type, bits } = keyBits(cert);
  if (bits === null) return null;
  if ((type === 'rsa' || type === 'rsa-pss' || type === 'dsa') && bits < 2048) return `${describeKey(cert)}, below 2048 bits`;
  if (type === 'ec' && bits < 224) return `${describeKey(cert)}, below 224 bits`;
  return null;
}

const SIGNATURE_NAMES: Record<string, string> = {
  ...WEAK_SIGNATURES,
  '1.2.840.113549.1.1.10': 'RSASSA-PSS',
  '1.2.840.113549.1.1.11': 'sha256WithRSAEncryption',
  '1.2.840.113549.1.1.12': 'sha384WithRSAEncryption',
  '1.2.840.113549.1.1.13': 'sha512WithRSAEncryption',
  '1.2.840.10045.4.3.2': 'ecdsa-with-SHA256',
  '1.2.840.10045.4.3.3': 'ecdsa-with-SHA384',
  '1.2.840.10045.4.3.4': 'ecdsa-with-SHA512',
  '1.3.101.112': 'Ed25519',
  '1.3.101.113': 'Ed448',
};

function signatureName(der: Buffer): string {
  const oid = signatureAlgorithmOid(der);
  return oid === null ? 'unknown' : (SIGNATURE_NAMES[oid] ?? oid);
}

/**
 * The OID of a certificate's outer signatureAlgorithm (RFC 5280 4.1.1.2), read from the DER:
 * Node 20's X509Certificate does not expose it. Returns null on anything unexpected.
 */
export function signatureAlgorithmOid(der: Buffer): string | null {
  const outer = readTlv(der, 0);
  if (outer === null || outer.tag !== 0x30) return null;
  const tbs = readTlv(der, outer.start);
  if (tbs === null) return null;
  const algorithm = readTlv(der, tbs.end);
  if (algorithm === null || algorithm.tag !== 0x30) return null;
  const oid = readTlv(der, algorithm.start);
  if (oid === null || oid.tag !== 0x06) return null;
  return decodeOid(der.subarray(oid.start, oid.end));
}

/** One DER tag-length-value at `offset`: where its contents start and end. */
function readTlv(der: Buffer, offset: number): { tag: number; start: number; end: number } | null {
  const tag = der[offset];
  let lengthByte = der[offset + 1];
  if (tag === undefined || lengthByte === undefined) return null;
  let start = offset + 2;
  let length = lengthByte;
  if (lengthByte & 0x80) {
    const count = lengthByte & 0x7f;
    if (count === 0 || count > 4) return null;
    length = 0;
    for (let i = 0; i < count; i++) {
      lengthByte = der[start + i];
      if (lengthByte === undefined) return null;
      length = length * 256 + lengthByte;
    }
    start += count;
  }
  const end = start + length;
  return end > der.length ? null : { tag, start, end };
}

function decodeOid(bytes: Buffer): string | null {
  const first = bytes[0];
  if (first === undefined) return null;
  const parts = [Math.min(2, Math.floor(first / 40)), first - Math.min(2, Math.floor(first / 40)) * 40];
  let value = 0;
  for (const byte of bytes.subarray(1)) {
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

function oneLine(distinguishedName: string): string {
  return distinguishedName.split('\n').filter(Boolean).join(', ');
}
