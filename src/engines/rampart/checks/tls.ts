/**
 * The TLS check: which protocol versions and weak cipher suites a TLS service accepts, and what
 * is wrong with its certificate. At most 8 handshakes per port, one at a time, each bounded by
 * the job's timeouts and abort signal; nothing is sent after a handshake completes.
 *
 * SSLv2 and SSLv3 are not tested: Node's OpenSSL 3 is built without them and cannot even offer
 * them, so this check says nothing about them either way. EXPORT and single-DES suites are gone
 * from OpenSSL 3 too. Node's own build also leaves out 3DES and RC4 suites (weak-ssl-ciphers):
 * those groups are still tried, so a build that has them tests them, and the informational
 * finding names the groups this build could not offer.
 *
 * Threats come from the severity table (`../severity.ts`, docs/SEVERITY.md); a rule id never changes:
 *
 * | Rule id                              | Threat        | CWE     | Why                                              |
 * |--------------------------------------|---------------|---------|--------------------------------------------------|
 * | rampart:tls-protocols                | Informational | -       | the versions accepted, for the record            |
 * | rampart:tls-tls10-accepted           | Medium        | CWE-327 | deprecated (RFC 8996); CBC IV flaw (BEAST), SHA-1/MD5 PRF |
 * | rampart:tls-tls11-accepted           | Low           | CWE-327 | deprecated (RFC 8996); no AEAD, but no BEAST     |
 * | rampart:tls-weak-cipher              | High, else Medium | CWE-327 | NULL, anonymous, 3DES (SWEET32) or RC4 suites; needs a client that offers them |
 * | rampart:tls-cert-expired             | High          | CWE-324 | clients reject it or users click through         |
 * | rampart:tls-cert-not-yet-valid       | Medium        | CWE-295 | as expired                                       |
 * | rampart:tls-cert-expiring-soon       | Low           | -       | within 30 days: an outage to come                |
 * | rampart:tls-cert-self-signed         | Low           | CWE-295 | unverifiable identity (implies untrusted)        |
 * | rampart:tls-cert-untrusted           | Low           | CWE-295 | chain does not reach the bundled CA store        |
 * | rampart:tls-cert-name-mismatch       | Medium        | CWE-297 | clients reject it or users click through         |
 * | rampart:tls-cert-weak-key            | Medium        | CWE-326 | RSA/DSA < 2048 bits, EC < 224 bits               |
 * | rampart:tls-cert-weak-signature      | Medium        | CWE-328 | SHA-1 or MD5 signature in the chain (not a root's)|
 */
import type { Check, CheckFinding, Endpoint, ServiceInfo } from './check.js';
import { judgeCertificate } from './tls-certificate.js';
import { severityOf } from '../severity.js';
import { LEGACY_CIPHERS, tryHandshake, type HandshakeResult, type HandshakeSuccess } from './tls-handshake.js';

const VERSIONS = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;

/** Suite groups offered one handshake each, at TLS 1.2 and below, security level 0. */
const WEAK_SUITES: ReadonlyArray<{ label: string; ciphers: string; cve: string[] }> = [
  { label: 'NULL encryption', ciphers: 'eNULL', cve: [] },
  { label: 'anonymous key exchange', ciphers: 'aNULL:!eNULL', cve: [] },
  { label: '3DES (SWEET32)', ciphers: '3DES', cve: ['CVE-2016-2183'] },
  { label: 'RC4', ciphers: 'RC4', cve: ['CVE-2013-2566', 'CVE-2015-2808'] },
];

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
  const findings: CheckFinding[] = [];
  const accepted = new Map<string, HandshakeSuccess>();
  for (const version of VERSIONS) {
    const result = await tryHandshake(endpoint, {
      minVersion: version,
      maxVersion: version,
      ciphers: LEGACY_CIPHERS,
    });
    if (endpoint.signal.aborted) return [];
    if (result.ok) accepted.set(version, result);
  }
  if (accepted.size === 0) return [];

  const tls10 = accepted.get('TLSv1');
  if (tls10 !== undefined) {
    findings.push(versionFinding('tls10', 'TLS 1.0', tls10,
      'TLS 1.0 is deprecated (RFC 8996): its CBC suites use predictable IVs (BEAST), its handshake relies on MD5 and SHA-1, and it has no AEAD suites. PCI DSS has forbidden it since 2018.'));
  }
  const tls11 = accepted.get('TLSv1.1');
  if (tls11 !== undefined) {
    findings.push(versionFinding('tls11', 'TLS 1.1', tls11,
      'TLS 1.1 is deprecated (RFC 8996): its handshake relies on MD5 and SHA-1 and it has no AEAD suites; modern clients no longer offer it.'));
  }

  const weak: Array<{ label: string; cve: string[]; seen: string }> = [];
  const untested: string[] = [];
  const legacyMax = [...VERSIONS].reverse().find((version) => version !== 'TLSv1.3' && accepted.has(version));
  if (legacyMax !== undefined) {
    for (const suite of WEAK_SUITES) {
      const result: HandshakeResult = await tryHandshake(endpoint, {
        minVersion: 'TLSv1',
        maxVersion: legacyMax,
        ciphers: `${suite.ciphers}@SECLEVEL=0`,
      });
      if (endpoint.signal.aborted) return [];
      if (result.ok) weak.push({ label: suite.label, cve: suite.cve, seen: `${result.protocol} ${result.cipher}` });
      else if (result.reason === 'unsupported-offer') untested.push(suite.label);
    }
  }
  findings.unshift(protocolsFinding(accepted, untested));
  if (weak.length > 0) findings.push(weakCipherFinding(weak));

  // The certificate of the newest version accepted: what current clients see.
  const newest = [...VERSIONS].reverse().map((version) => accepted.get(version)).find((result) => result !== undefined);
  if (newest !== undefined) findings.push(...judgeCertificate(newest, endpoint.hostname));
  return findings;
}

function protocolsFinding(accepted: Map<string, HandshakeSuccess>, untested: string[]): CheckFinding {
  const lines = [...accepted.values()].map((result) => `${result.protocol} accepted (${result.cipher})`);
  const refused = VERSIONS.filter((version) => !accepted.has(version)).map((version) => `${version} not accepted`);
  const note = untested.length > 0 ? [`suites not tested (this scanner's OpenSSL cannot offer them): ${untested.join(', ')}`] : [];
  return {
    ruleId: 'rampart:tls-protocols',
    name: 'TLS protocol versions accepted',
    description: 'The TLS protocol versions this service completed a handshake with. SSLv2 and SSLv3 were not tested (this scanner cannot offer them).',
    solution: 'Accept TLS 1.2 and TLS 1.3 only (Mozilla "intermediate" configuration).',
    ...severityOf('rampart:tls-protocols'),
    cve: [],
    cwe: null,
    evidence: [...lines, ...refused, ...note].join('; '),
    references: [RFC8996, MOZILLA_TLS],
  };
}

function versionFinding(
  slug: 'tls10' | 'tls11',
  label: string,
  result: HandshakeSuccess,
  description: string,
): CheckFinding {
  return {
    ruleId: `rampart:tls-${slug}-accepted`,
    name: `Deprecated protocol ${label} accepted`,
    description,
    solution: `Disable ${label} (and anything older) and accept TLS 1.2 and TLS 1.3 only.`,
    ...severityOf(`rampart:tls-${slug}-accepted` as const),
    cve: [],
    cwe: 'CWE-327',
    evidence: `A handshake offering only ${label} completed: ${result.protocol} with ${result.cipher}.`,
    references: [RFC8996, MOZILLA_TLS, OWASP_TLS],
  };
}

function weakCipherFinding(weak: Array<{ label: string; cve: string[]; seen: string }>): CheckFinding {
  return {
    ruleId: 'rampart:tls-weak-cipher',
    name: 'Weak TLS cipher suites accepted',
    description:
      'The server completes handshakes with cipher suites that give no confidentiality (NULL), no authentication (anonymous DH/ECDH, open to interception), or a broken cipher (3DES with 64-bit blocks: SWEET32; RC4 biases). A client that offers them, or an attacker who can influence the offer, gets a weak channel.',
    solution: 'Allow only AEAD suites with forward secrecy (ECDHE with AES-GCM or ChaCha20-Poly1305), following the Mozilla "intermediate" configuration.',
    // NULL and anonymous suites are High (the severity table); 3DES and RC4 alone Medium.
    ...severityOf('rampart:tls-weak-cipher', weak.some((entry) => entry.label === 'NULL encryption' || entry.label === 'anonymous key exchange') ? 'High' : 'Medium'),
    cve: weak.flatMap((entry) => entry.cve),
    cwe: 'CWE-327',
    evidence: weak.map((entry) => `${entry.label}: accepted ${entry.seen}`).join('; '),
    references: [MOZILLA_TLS, OWASP_TLS, 'https://sweet32.info/', 'https://www.rfc-editor.org/rfc/rfc7465'],
  };
}
