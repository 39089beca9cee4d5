/**
 * The event data of an `ssl:` block, as nuclei builds it from tlsx's `clients.Response`
 * (pkg/protocols/ssl/ssl.go): `response` is the response as JSON, and every non-zero field of
 * the response and of its certificate is also a top-level entry (`tls_version`, `cipher`,
 * `subject_dn`, `expired`...). Zero values are absent, as upstream's `structs` walk skips them,
 * so `expired == true` fails (not errs) on a valid certificate only through the DSL's missing name.
 */
import { createHash, X509Certificate } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import type { MatchEvent } from '../match/index.js';
import { readCertificateDer } from './certificate-der.js';

const VERSION_NAMES: Record<string, string> = { SSLv3: 'ssl30', TLSv1: 'tls10', 'TLSv1.1': 'tls11', 'TLSv1.2': 'tls12', 'TLSv1.3': 'tls13' };

/** Node's name of a template's `min_version`/`max_version` (`tls10`...); undefined when Node cannot speak it. */
export function nodeTlsVersion(version: string): tls.SecureVersion | undefined {
  const names: Record<string, tls.SecureVersion> = { tls10: 'TLSv1', tls11: 'TLSv1.1', tls12: 'TLSv1.2', tls13: 'TLSv1.3' };
  return names[version.toLowerCase()];
}

/** Go's time.Time String() in UTC: `2006-01-02 15:04:05 +0000 UTC`. */
function goTime(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} +0000 UTC`;
}

/** tlsx's serial: the big-endian bytes of the number, upper-case hex pairs joined by `:`. */
function serialText(hex: string): string {
  let digits = hex.replace(/^0+/, '');
  if (digits === '') return '';
  if (digits.length % 2 === 1) digits = `0${digits}`;
  return (digits.match(/../g) ?? []).join(':').toUpperCase();
}

/** tlsx IsMisMatchedCert: no name (CN or DNS SAN) equals the host or matches it as a wildcard. */
function isMismatched(host: string, names: string[]): boolean {
  const hostTokens = host.split('.');
  const matchToken = (name: string, token: string): boolean => {
    if (!name.includes('*')) return name.toLowerCase() === token.toLowerCase();
    const [before = '', after = ''] = name.split('*');
    return token.startsWith(before) && token.endsWith(after);
  };
  for (const name of names) {
    if (!name.includes('*')) {
      if (name.toLowerCase() === host.toLowerCase()) return false;
      continue;
    }
    const tokens = name.split('.');
    if (tokens.length === hostTokens.length && tokens.every((t, i) => (i === 0 ? matchToken(t, hostTokens[0]!) : t.toLowerCase() === hostTokens[i]!.toLowerCase()))) return false;
  }
  return true;
}

/** tlsx IsSelfSigned: no authority key id, the same as the subject's, or no DNS names. */
function isSelfSigned(authorityKeyId: string, subjectKeyId: string, dnsNames: string[]): boolean {
  return authorityKeyId === '' || authorityKeyId === subjectKeyId || dnsNames.length === 0;
}

const ROOTS = new Set(tls.rootCertificates.map((pem) => new X509Certificate(pem).fingerprint256));

/** tlsx IsUntrustedCA: a self-signed CA in the presented chain (past the leaf) that is not a known root. */
function hasUntrustedCa(chain: X509Certificate[]): boolean {
  return chain.some((c) => {
    const der = readCertificateDer(c.raw);
    return c.ca && isSelfSigned(der.authorityKeyId, der.subjectKeyId, dnsNamesOf(c)) && !ROOTS.has(c.fingerprint256);
  });
}

function dnsNamesOf(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? '').split(/,\s*/).filter((n) => n.startsWith('DNS:')).map((n) => n.slice(4));
}

function peerChain(socket: tls.TLSSocket): X509Certificate[] {
  const out: X509Certificate[] = [];
  const seen = new Set<string>();
  let cert: tls.DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  while (cert?.raw && !seen.has(cert.fingerprint256)) {
    seen.add(cert.fingerprint256);
    out.push(new X509Certificate(cert.raw));
    cert = cert.issuerCertificate;
  }
  return out;
}

/** Drops zero values (false, '', empty lists), as Go's `omitempty` and the structs walk do. */
function nonZero(entries: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== false && v !== '' && v !== undefined && !(Array.isArray(v) && v.length === 0)));
}

/** The event of one completed handshake: `host` is the host dialled, `port` its port (tlsx's own fields). */
export function buildSslEvent(socket: tls.TLSSocket, host: string, port: string, matched: string, extra: Record<string, unknown>): MatchEvent | undefined {
  const chain = peerChain(socket);
  const leaf = chain[0];
  if (!leaf) return undefined;
  const der = readCertificateDer(leaf.raw);
  const dnsNames = dnsNamesOf(leaf);
  const subjectCn = der.subject.values.CN?.at(-1) ?? '';
  const names = [subjectCn, ...dnsNames];
  const notBefore = new Date(leaf.validFrom);
  const notAfter = new Date(leaf.validTo);
  const digest = (algorithm: string): string => createHash(algorithm).update(leaf.raw).digest('hex');
  const certificate = nonZero({
    expired: Date.now() > notAfter.getTime(),
    self_signed: isSelfSigned(der.authorityKeyId, der.subjectKeyId, dnsNames),
    mismatched: isMismatched(host, names),
    untrusted: hasUntrustedCa(chain.slice(1)),
    subject_dn: der.subject.text,
    subject_cn: subjectCn,
    subject_org: der.subject.values.O ?? [],
    subject_an: dnsNames,
    domains: [...new Set(names.filter((n) => n !== '').map((n) => n.replace(/^\*\./, '')))],
    serial: serialText(leaf.serialNumber),
    issuer_dn: der.issuer.text,
    issuer_cn: der.issuer.values.CN?.at(-1) ?? '',
    issuer_org: der.issuer.values.O ?? [],
    emails: (leaf.subjectAltName ?? '').split(/,\s*/).filter((n) => n.startsWith('email:')).map((n) => n.slice(6)),
    wildcard_certificate: names.some((n) => n.includes('*.')),
  });
  const cipher = socket.getCipher();
  const head = nonZero({
    timestamp: new Date().toISOString(),
    host,
    ip: socket.remoteAddress ?? '',
    port,
    probe_status: true,
    tls_version: VERSION_NAMES[socket.getProtocol() ?? ''] ?? '',
    cipher: cipher.standardName ?? cipher.name,
  });
  const tail = nonZero({ tls_connection: 'ctls', sni: net.isIP(host) === 0 ? host : '' });
  const fingerprint_hash = { md5: digest('md5'), sha1: digest('sha1'), sha256: digest('sha256') };
  const dates = { not_before: notBefore.toISOString().replace('.000Z', 'Z'), not_after: notAfter.toISOString().replace('.000Z', 'Z') };
  // JSON in tlsx's field order; the flattened entries carry Go's time text for the dates.
  const { emails, wildcard_certificate, ...certificateHead } = certificate;
  const json = { ...head, ...pick(certificateHead, ['expired', 'self_signed', 'mismatched', 'untrusted']), ...dates, ...omit(certificateHead, ['expired', 'self_signed', 'mismatched', 'untrusted']), ...nonZero({ emails }), fingerprint_hash, ...nonZero({ wildcard_certificate }), ...tail };
  const data: Record<string, unknown> = {
    ...extra,
    type: 'ssl',
    response: JSON.stringify(json),
    matched,
    ...head,
    ...tail,
    ...certificate,
    not_before: goTime(notBefore),
    not_after: goTime(notAfter),
    fingerprint_hash,
    Port: port,
  };
  return { data, bytes: {} };
}

function pick(record: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => Object.hasOwn(record, k)).map((k) => [k, record[k]]));
}

function omit(record: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([k]) => !keys.includes(k)));
}
