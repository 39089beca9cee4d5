/**
 * The TLS check: which protocol versions and cipher suites a TLS service accepts, whether it
 * enforces its suite order, and what is wrong with its certificate.
 *
 * Versions and suites come from hand-built ClientHellos (`tls-ciphers.ts`), which can offer what
 * Node's OpenSSL cannot (SSLv3, RC4, 3DES, export suites): at most `MAX_HELLOS` connections per
 * port, one at a time, each through the job's egress and rate limit and closed after the
 * ServerHello. Then one real handshake (Node's TLS, all versions it can offer) reads the
 * certificate chain; when Node cannot complete one (the server has only suites Node cannot
 * offer), one more ClientHello reads the chain from the Certificate message. SSLv2 is not
 * tested. Nothing is sent after a handshake.
 *
 * Threats come from the severity table (`../severity.ts`, docs/SEVERITY.md); a rule id never changes:
 *
 * | Rule id                               | Threat        | CWE     | Why                                              |
 * |---------------------------------------|---------------|---------|--------------------------------------------------|
 * | rampart:tls-protocols                 | Informational | -       | the versions accepted, for the record            |
 * | rampart:tls-cipher-suites             | Informational | -       | every suite accepted per version, and the order  |
 * | rampart:tls-ssl3-accepted             | Medium        | CWE-327 | SSLv3 is broken (POODLE, RFC 7568 forbids it)    |
 * | rampart:tls-tls10-accepted            | Medium        | CWE-327 | deprecated (RFC 8996); CBC IV flaw (BEAST), SHA-1/MD5 PRF |
 * | rampart:tls-tls11-accepted            | Low           | CWE-327 | deprecated (RFC 8996); no AEAD, but no BEAST     |
 * | rampart:tls-null-cipher               | High          | CWE-319 | no encryption: clear text on the wire            |
 * | rampart:tls-anonymous-cipher          | High          | CWE-306 | no server authentication: trivial interception   |
 * | rampart:tls-export-cipher             | High          | CWE-326 | 40/56-bit keys, downgrade attacks (FREAK, Logjam)|
 * | rampart:tls-rc4-cipher                | Medium        | CWE-327 | RC4 biases (RFC 7465); needs many encryptions    |
 * | rampart:tls-3des-cipher               | Medium        | CWE-327 | 64-bit blocks (SWEET32); needs ~32 GB per session|
 * | rampart:tls-cbc-tls10                 | Low           | CWE-327 | BEAST; clients mitigate it by splitting records  |
 * | rampart:tls-no-forward-secrecy        | Low           | CWE-327 | a later key theft decrypts recorded sessions     |
 * | rampart:tls-no-server-cipher-order    | Low           | CWE-757 | client order wins, and a weak suite is accepted  |
 * | rampart:tls-cert-expired              | High          | CWE-324 | clients reject it or users click through         |
 * | rampart:tls-cert-not-yet-valid        | Medium        | CWE-295 | as expired, but usually a clock or a staged renewal |
 * | rampart:tls-cert-expiring-soon        | Low           | -       | within 30 days: an outage to come                |
 * | rampart:tls-cert-self-signed          | Low           | CWE-295 | unverifiable identity (implies untrusted)        |
 * | rampart:tls-cert-untrusted            | Low           | CWE-295 | chain does not reach the bundled CA store        |
 * | rampart:tls-cert-name-mismatch        | Medium        | CWE-297 | clients reject it or users click through         |
 * | rampart:tls-cert-weak-key             | Medium        | CWE-326 | RSA/DSA < 2048 bits, EC < 224 bits               |
 * | rampart:tls-cert-weak-signature       | Medium        | CWE-328 | SHA-1 or MD5 signature in the chain (not a root's)|
 */
import type { Check, CheckFinding, Endpoint, ServiceInfo } from './check.js';
import { judgeCertificate } from './tls-certificate.js';
import { judgeSuites } from './tls-cipher-findings.js';
import { enumerateSuites, HELLO_VERSIONS, type SuiteEnumeration } from './tls-ciphers.js';
import { handshakeFromCertificates, LEGACY_CIPHERS, tryHandshake, type HandshakeSuccess } from './tls-handshake.js';
import { fetchCertificates, type HelloVersion } from './tls-hello.js';
import { suiteTraits } from './tls-suites.js';
import { severityOf } from '../severity.js';

const RFC8996 = 'https://www.rfc-editor.org/rfc/rfc8996';
const MOZILLA_TLS = 'https://wiki.mozilla.org/Security/Server_Side_TLS';
const OWASP_TLS = 'https://cheatsheetseries.owasp.org/cheatsheets/Transport_Layer_Security_Cheat_Sheet.html';

/** Checks protocol versions, weak suites and the certificate of every TLS service. */
export const tlsCheck: Check = {
  id: 'tls',
  appliesTo: (service: ServiceInfo) => service.tls,
  run: runTlsCheck,
};

async function runTlsCheck(endpoint: Endpoint): Promise<CheckFinding[]> {
  const enumeration = await enumerateSuites(endpoint);
  if (enumeration.aborted || enumeration.silent) return [];
  if (enumeration.accepted.size === 0) return fallbackToHandshake(endpoint, enumeration);
  const findings: CheckFinding[] = [protocolsFinding(enumeration)];
  const ssl3 = chosenAt(enumeration, 'SSLv3');
  if (ssl3 !== undefined) {
    findings.push(versionFinding('ssl3', 'SSLv3', ssl3, ['CVE-2014-3566'],
      'SSLv3 is broken and forbidden (RFC 7568): its CBC padding is not authenticated (POODLE, CVE-2014-3566), its other suites use RC4, and its handshake relies on MD5 and SHA-1.'));
  }
  const tls10 = chosenAt(enumeration, 'TLSv1');
  if (tls10 !== undefined) {
    findings.push(versionFinding('tls10', 'TLS 1.0', tls10, [],
      'TLS 1.0 is deprecated (RFC 8996): its CBC suites use predictable IVs (BEAST), its handshake relies on MD5 and SHA-1, and it has no AEAD suites. PCI DSS has forbidden it since 2018.'));
  }
  const tls11 = chosenAt(enumeration, 'TLSv1.1');
  if (tls11 !== undefined) {
    findings.push(versionFinding('tls11', 'TLS 1.1', tls11, [],
      'TLS 1.1 is deprecated (RFC 8996): its handshake relies on MD5 and SHA-1 and it has no AEAD suites; modern clients no longer offer it.'));
  }
  findings.push(...judgeSuites(enumeration));

  // The certificate, from one real handshake at the newest version Node can offer: what current clients see.
  const handshake = await tryHandshake(endpoint, { minVersion: 'TLSv1', maxVersion: 'TLSv1.3', ciphers: LEGACY_CIPHERS });
  if (endpoint.signal.aborted) return [];
  const seen = handshake.ok ? handshake : await certificateFromHellos(endpoint, enumeration);
  if (endpoint.signal.aborted) return [];
  if (seen !== null) findings.push(...judgeCertificate(seen, endpoint.hostname));
  return findings;
}

/**
 * The certificate of a server Node's TLS could not complete a handshake with (it accepts only
 * suites Node cannot offer, e.g. RC4 or 3DES): one more ClientHello at the newest version below
 * 1.3 with an authenticated suite, read up to the Certificate message.
 */
async function certificateFromHellos(endpoint: Endpoint, enumeration: SuiteEnumeration): Promise<HandshakeSuccess | null> {
  for (const version of HELLO_VERSIONS) {
    if (version === 'TLSv1.3') continue;
    const suites = (enumeration.accepted.get(version) ?? []).filter((id) => !suiteTraits(id).anonymous);
    const first = suites[0];
    if (first === undefined) continue;
    await endpoint.bucket?.take(endpoint.signal).catch(() => undefined);
    const certificates = await fetchCertificates(endpoint, version, suites);
    return certificates === null ? null : handshakeFromCertificates(version, suiteTraits(first).name, certificates);
  }
  return null;
}

/**
 * A server that refused every hand-built ClientHello but may still talk to a real client (one
 * intolerant of our hello, or one with only suites outside the table): one real handshake, to
 * judge its certificate and say what happened.
 */
async function fallbackToHandshake(endpoint: Endpoint, enumeration: SuiteEnumeration): Promise<CheckFinding[]> {
  const handshake = await tryHandshake(endpoint, { minVersion: 'TLSv1', maxVersion: 'TLSv1.3', ciphers: LEGACY_CIPHERS });
  if (endpoint.signal.aborted || !handshake.ok) return [];
  return [
    {
      ...protocolsFinding(enumeration),
      evidence: `${handshake.protocol} accepted (${handshake.cipher}) by a real handshake; the server refused all ${enumeration.hellos} hand-built ClientHellos, so its suites were not enumerated`,
    },
    ...judgeCertificate(handshake, endpoint.hostname),
  ];
}

/** The first suite the server chose at `version`, by name, or undefined when it accepted none. */
function chosenAt(enumeration: SuiteEnumeration, version: HelloVersion): string | undefined {
  const first = enumeration.accepted.get(version)?.[0];
  return first === undefined ? undefined : suiteTraits(first).name;
}

function protocolsFinding(enumeration: SuiteEnumeration): CheckFinding {
  const lines = HELLO_VERSIONS.filter((version) => enumeration.accepted.has(version))
    .reverse()
    .map((version) => `${version} accepted (${chosenAt(enumeration, version)})`);
  const refused = HELLO_VERSIONS.filter((version) => !enumeration.accepted.has(version))
    .reverse()
    .map((version) => {
      const why = enumeration.incomplete.get(version);
      return why === undefined ? `${version} not accepted` : `${version} unknown (${why})`;
    });
  return {
    ruleId: 'rampart:tls-protocols',
    name: 'TLS protocol versions accepted',
    description: 'The protocol versions this service answered a ClientHello at with a ServerHello of the same version. SSLv2 was not tested.',
    solution: 'Accept TLS 1.2 and TLS 1.3 only (Mozilla "intermediate" configuration).',
    ...severityOf('rampart:tls-protocols'),
    cve: [],
    cwe: null,
    evidence: [...lines, ...refused].join('; '),
    references: [RFC8996, MOZILLA_TLS],
  };
}

function versionFinding(
  slug: 'ssl3' | 'tls10' | 'tls11',
  label: string,
  suite: string,
  cve: string[],
  description: string,
): CheckFinding {
  return {
    ruleId: `rampart:tls-${slug}-accepted`,
    name: `Deprecated protocol ${label} accepted`,
    description,
    solution: `Disable ${label} (and anything older) and accept TLS 1.2 and TLS 1.3 only.`,
    ...severityOf(`rampart:tls-${slug}-accepted` as const),
    cve,
    cwe: 'CWE-327',
    evidence: `A ClientHello offering only ${label} was answered with a ${label} ServerHello choosing ${suite}.`,
    references: [RFC8996, MOZILLA_TLS, OWASP_TLS],
  };
}
