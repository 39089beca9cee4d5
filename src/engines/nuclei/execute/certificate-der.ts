/**
 * The few parts of an X.509 certificate Node does not expose and tlsx reports: the subject and
 * issuer distinguished names exactly as zcrypto prints them (RDNs last-first, `, ` between,
 * OpenSSL short names, `emailAddress=`), and the authority and subject key identifiers (tlsx's
 * self-signed test). A minimal DER walk over the TBSCertificate; anything it cannot read is
 * left out, never thrown.
 */

interface Tlv {
  tag: number;
  /** Start of the whole TLV, of its content, and the end of its content. */
  start: number;
  content: number;
  end: number;
}

function readTlv(der: Uint8Array, offset: number, limit = der.length): Tlv | undefined {
  if (offset + 2 > limit) return undefined;
  const tag = der[offset]!;
  let length = der[offset + 1]!;
  let content = offset + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    if (bytes === 0 || bytes > 4 || content + bytes > limit) return undefined;
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + der[content + i]!;
    content += bytes;
  }
  if (content + length > limit) return undefined;
  return { tag, start: offset, content, end: content + length };
}

function children(der: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let offset = parent.content; offset < parent.end; ) {
    const child = readTlv(der, offset, parent.end);
    if (!child) break;
    out.push(child);
    offset = child.end;
  }
  return out;
}

function oidText(der: Uint8Array, tlv: Tlv): string {
  const bytes = der.subarray(tlv.content, tlv.end);
  if (bytes.length === 0) return '';
  const parts = [Math.floor(bytes[0]! / 40), bytes[0]! % 40];
  let value = 0;
  for (const byte of bytes.subarray(1)) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

/** zcrypto's short names (pkix/oid_names.go) for the attribute types certificates use. */
const SHORT_NAMES: Record<string, string> = {
  '2.5.4.3': 'CN', '2.5.4.4': 'SN', '2.5.4.5': 'serialNumber', '2.5.4.6': 'C', '2.5.4.7': 'L', '2.5.4.8': 'ST',
  '2.5.4.9': 'street', '2.5.4.10': 'O', '2.5.4.11': 'OU', '2.5.4.12': 'title', '2.5.4.13': 'description',
  '2.5.4.15': 'businessCategory', '2.5.4.17': 'postalCode', '2.5.4.41': 'name', '2.5.4.42': 'GN', '2.5.4.43': 'initials',
  '2.5.4.44': 'generationQualifier', '2.5.4.46': 'dnQualifier', '2.5.4.65': 'pseudonym', '2.5.4.72': 'role',
  '2.5.4.97': 'organizationIdentifier', '1.2.840.113549.1.9.1': 'emailAddress', '0.9.2342.19200300.100.1.25': 'DC',
  '0.9.2342.19200300.100.1.1': 'UID', '1.3.6.1.4.1.311.60.2.1.1': 'jurisdictionLocality',
  '1.3.6.1.4.1.311.60.2.1.2': 'jurisdictionStateOrProvince', '1.3.6.1.4.1.311.60.2.1.3': 'jurisdictionCountry',
};

function stringValue(der: Uint8Array, tlv: Tlv): string {
  const bytes = Buffer.from(der.subarray(tlv.content, tlv.end));
  switch (tlv.tag) {
    case 0x1e: // BMPString: UCS-2 big-endian
      return bytes.swap16().toString('utf16le');
    case 0x14: // T61String, read as Latin-1 like Go
      return bytes.toString('latin1');
    default:
      return bytes.toString('utf8');
  }
}

/** RFC 2253 escaping as zcrypto's RDNSequence.String does it. */
function escapeValue(value: string): string {
  const chars = [...value];
  return chars
    .map((c, k) => {
      const escape = ',+"\\<>;'.includes(c) || (c === ' ' && (k === 0 || k === chars.length - 1)) || (c === '#' && k === 0);
      return escape ? `\\${c}` : c;
    })
    .join('');
}

/** One distinguished name: its zcrypto text, and the values by attribute short name. */
export interface DistinguishedName {
  text: string;
  values: Record<string, string[]>;
}

function readName(der: Uint8Array, name: Tlv): DistinguishedName {
  const rdns: string[] = [];
  const values: Record<string, string[]> = {};
  for (const set of children(der, name)) {
    const atvs: string[] = [];
    for (const atv of children(der, set)) {
      const [type, value] = children(der, atv);
      if (!type || !value) continue;
      const oid = oidText(der, type);
      const short = SHORT_NAMES[oid];
      if (short === undefined) {
        atvs.push(`${oid}=#${Buffer.from(der.subarray(value.start, value.end)).toString('hex')}`);
        continue;
      }
      const text = stringValue(der, value);
      (values[short] ??= []).push(text);
      atvs.push(`${short}=${escapeValue(text)}`);
    }
    if (atvs.length > 0) rdns.push(atvs.join(', '));
  }
  return { text: rdns.reverse().join(', '), values };
}

/** What the DER walk reads from a certificate. */
export interface CertificateDer {
  subject: DistinguishedName;
  issuer: DistinguishedName;
  /** Hex of the extensions' key identifiers; '' when absent. */
  subjectKeyId: string;
  authorityKeyId: string;
}

const EMPTY_NAME: DistinguishedName = { text: '', values: {} };

/** Reads the names and key identifiers of a DER certificate; empty parts when it cannot. */
export function readCertificateDer(der: Uint8Array): CertificateDer {
  const out: CertificateDer = { subject: EMPTY_NAME, issuer: EMPTY_NAME, subjectKeyId: '', authorityKeyId: '' };
  const certificate = readTlv(der, 0);
  const tbs = certificate ? children(der, certificate)[0] : undefined;
  if (!tbs) return out;
  const fields = children(der, tbs);
  const base = fields[0]?.tag === 0xa0 ? 1 : 0;
  const issuer = fields[base + 2];
  const subject = fields[base + 4];
  if (issuer) out.issuer = readName(der, issuer);
  if (subject) out.subject = readName(der, subject);
  const extensions = fields.find((f) => f.tag === 0xa3);
  const list = extensions ? children(der, extensions)[0] : undefined;
  for (const extension of list ? children(der, list) : []) {
    const parts = children(der, extension);
    const oid = parts[0] ? oidText(der, parts[0]) : '';
    const value = parts[parts.length - 1];
    const inner = value ? readTlv(der, value.content, value.end) : undefined;
    if (!inner) continue;
    if (oid === '2.5.29.14' && inner.tag === 0x04) out.subjectKeyId = Buffer.from(der.subarray(inner.content, inner.end)).toString('hex');
    if (oid === '2.5.29.35') {
      const keyId = children(der, inner).find((c) => c.tag === 0x80);
      if (keyId) out.authorityKeyId = Buffer.from(der.subarray(keyId.content, keyId.end)).toString('hex');
    }
  }
  return out;
}
