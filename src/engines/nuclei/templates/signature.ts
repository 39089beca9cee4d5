/**
 * Verifies the ProjectDiscovery signature of a community template (reference nuclei.md section 10;
 * nuclei `pkg/templates/signer/tmpl_signer.go`). A signed template ends with
 * `# digest: <hex>:<fragment>`: the hex is a Go gob encoding of a byte slice holding an ASN.1 ECDSA
 * P-256 signature over SHA-256 of the content before the digest line (trimmed, CRLF -> LF).
 * Nuclei also appends files the template imports; no template of the default set does, so such a
 * template simply fails to verify here.
 *
 * The public key is ProjectDiscovery's template-signing certificate, `pkg/keys/nuclei.crt` of
 * projectdiscovery/nuclei (public data, valid until 2027-10-09).
 */
import { createHash, createPublicKey, verify, X509Certificate, type KeyObject } from 'node:crypto';

/** nuclei's `pkg/keys/nuclei.crt` (its PEM label is nuclei's own; the DER inside is a plain X.509 certificate). */
const PROJECTDISCOVERY_CERTIFICATE_BASE64 =
  'MIIBgDCCASWgAwIBAgIEZSUZ3jAKBggqhkjOPQQDAjAsMSowKAYDVQQDEyFwcm9q' +
  'ZWN0ZGlzY292ZXJ5L251Y2xlaS10ZW1wbGF0ZXMwHhcNMjMxMDEwMDkzMTEwWhcN' +
  'MjcxMDA5MDkzMTEwWjAsMSowKAYDVQQDEyFwcm9qZWN0ZGlzY292ZXJ5L251Y2xl' +
  'aS10ZW1wbGF0ZXMwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASTaiE41H7LWudF' +
  'SMCfnqguQMwEte7dz/FRfK2lmezE02w+I2VwcS3j5cPwNaqYRAJkQhk6+7li0GpG' +
  '9fb11Fs2ozUwMzAOBgNVHQ8BAf8EBAMCB4AwEwYDVR0lBAwwCgYIKwYBBQUHAwEw' +
  'DAYDVR0TAQH/BAIwADAKBggqhkjOPQQDAgNJADBGAiEAhFsWwLDcWks3RUv3ujCs' +
  '4V1reu6KL+kELrCCQWu5FiUCIQDZbtqL30GPGYaPSpVmd6BKrZDBOfUVBsoCS7pS' +
  'q3JLHQ==';

const DIGEST_MARK = '# digest: ';

let publicKey: KeyObject | undefined;

/** ProjectDiscovery's public key, parsed once. */
function projectDiscoveryKey(): KeyObject {
  publicKey ??= createPublicKey(new X509Certificate(Buffer.from(PROJECTDISCOVERY_CERTIFICATE_BASE64, 'base64')).publicKey.export({ type: 'spki', format: 'pem' }));
  return publicKey;
}

let fragment: string | undefined;

/** nuclei's user fragment: MD5 of the key's X coordinate as Go's big.Int.Bytes() gives it (no leading zeros). */
function keyFragment(): string {
  if (fragment === undefined) {
    const x = Buffer.from(String(projectDiscoveryKey().export({ format: 'jwk' }).x), 'base64url');
    let start = 0;
    while (start < x.length - 1 && x[start] === 0) start++;
    fragment = createHash('md5').update(x.subarray(start)).digest('hex');
  }
  return fragment;
}

/** The outcome for one template file. */
export type SignatureVerdict = 'verified' | 'unsigned' | 'invalid';

/** Reads one gob unsigned integer at `offset`: the value and the next offset, or null past the end. */
function readGobUint(bytes: Buffer, offset: number): [number, number] | null {
  const first = bytes[offset];
  if (first === undefined) return null;
  if (first < 0x80) return [first, offset + 1];
  // A negated byte count, then that many big-endian bytes.
  const count = 256 - first;
  if (count > 6 || offset + 1 + count > bytes.length) return null;
  let value = 0;
  for (let i = 0; i < count; i++) value = value * 256 + bytes[offset + 1 + i]!;
  return [value, offset + 1 + count];
}

/**
 * The byte slice of a gob stream holding one `[]byte` value: message length, type id (bytes = 5,
 * written as the signed 10), a zero field delta, then the slice's length and bytes.
 */
export function decodeGobBytes(gob: Buffer): Buffer | null {
  const length = readGobUint(gob, 0);
  if (!length || length[1] + length[0] !== gob.length) return null;
  const type = readGobUint(gob, length[1]);
  if (!type || type[0] !== 10 || gob[type[1]] !== 0) return null;
  const size = readGobUint(gob, type[1] + 1);
  if (!size || size[1] + size[0] !== gob.length) return null;
  return gob.subarray(size[1]);
}

/** Go's bytes.TrimSpace for the ASCII white space templates hold. */
function trimAscii(bytes: Buffer): Buffer {
  const space = (b: number | undefined) => b === 0x20 || (b !== undefined && b >= 0x09 && b <= 0x0d);
  let start = 0;
  let end = bytes.length;
  while (start < end && space(bytes[start])) start++;
  while (end > start && space(bytes[end - 1])) end--;
  return bytes.subarray(start, end);
}

/** True when the signature verifies over these bytes with ProjectDiscovery's key. */
function verifies(signed: Buffer, signature: Buffer): boolean {
  try {
    // Go's ecdsa.VerifyASN1(key, sha256(content), sig) is a SHA-256 ECDSA verification of the content.
    return verify('sha256', signed, { key: projectDiscoveryKey(), dsaEncoding: 'der' }, signature);
  } catch {
    return false;
  }
}

/**
 * Verifies a template file's bytes. `unsigned`: no digest line at its end (workflows are never
 * signed); `invalid`: a digest that does not decode or does not verify. The content is verified
 * as nuclei does (CRLF -> LF), then as it is (a few CRLF files were signed over their raw bytes).
 */
export function verifyTemplateSignature(content: Buffer | string): SignatureVerdict {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const at = bytes.lastIndexOf(DIGEST_MARK);
  if (at === -1) return 'unsigned';
  const digestLine = trimAscii(bytes.subarray(at)).toString('latin1');
  // Nuclei requires the digest to be the file's last line.
  if (digestLine.includes('\n')) return 'invalid';
  // `<hex>` or `<hex>:<fragment>`, the fragment naming ProjectDiscovery's key (nuclei refuses any other).
  const [hex = '', fragment, ...rest] = digestLine.slice(DIGEST_MARK.length).split(':');
  if (rest.length > 0 || (fragment !== undefined && fragment !== keyFragment())) return 'invalid';
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) return 'invalid';
  const signature = decodeGobBytes(Buffer.from(hex, 'hex'));
  if (!signature) return 'invalid';
  const raw = trimAscii(bytes.subarray(0, at));
  const normalised = raw.includes('\r\n') ? Buffer.from(raw.toString('latin1').replace(/\r\n/g, '\n'), 'latin1') : raw;
  if (verifies(normalised, signature)) return 'verified';
  return normalised !== raw && verifies(raw, signature) ? 'verified' : 'invalid';
}
