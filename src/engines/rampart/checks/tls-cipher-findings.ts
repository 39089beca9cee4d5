/**
 * Findings from a cipher suite enumeration (`tls-ciphers.ts`): one per weakness, naming every
 * accepted suite that has it, with the versions it was accepted at. Pure functions; threats come
 * from the severity table (`../severity.ts`). Only suites the server chose in a ServerHello are ever named.
 */
import { checkFinding, type CheckFinding } from './check.js';
import { severityOf } from '../severity.js';
import type { SuiteEnumeration } from './tls-ciphers.js';
import type { HelloVersion } from './tls-hello.js';
import { suiteTraits, type SuiteTraits } from './tls-suites.js';

const MOZILLA_TLS = 'https://wiki.mozilla.org/Security/Server_Side_TLS';
const OWASP_TLS = 'https://cheatsheetseries.owasp.org/cheatsheets/Transport_Layer_Security_Cheat_Sheet.html';
const IANA_SUITES = 'https://www.iana.org/assignments/tls-parameters/tls-parameters.xhtml#tls-parameters-4';
const SOLUTION = 'Allow only AEAD suites with forward secrecy (ECDHE with AES-GCM or ChaCha20-Poly1305) on TLS 1.2, and TLS 1.3, following the Mozilla "intermediate" configuration.';

/** One weakness a suite can have, and how it is reported. */
interface SuiteWeakness {
  rule: 'tls-null-cipher' | 'tls-anonymous-cipher' | 'tls-export-cipher' | 'tls-rc4-cipher' | 'tls-3des-cipher' | 'tls-cbc-tls10' | 'tls-no-forward-secrecy';
  name: string;
  cwe: string;
  /** Whether an accepted suite at `version` has the weakness. */
  has(suite: SuiteTraits, version: HelloVersion): boolean;
  /** The CVEs for the suites found (some depend on the suite). */
  cve(found: SuiteTraits[]): string[];
  description: string;
  references: string[];
}

const WEAKNESSES: readonly SuiteWeakness[] = [
  {
    rule: 'tls-null-cipher', name: 'TLS suites without encryption (NULL) accepted', cwe: 'CWE-319',
    has: (suite) => suite.nullCipher,
    cve: () => [],
    description: 'The server accepts cipher suites with NULL encryption: the traffic of a connection that uses them crosses the network in clear text, readable and (with an anonymous or broken exchange) alterable by anyone in the path.',
    references: [MOZILLA_TLS, OWASP_TLS],
  },
  {
    rule: 'tls-anonymous-cipher', name: 'Anonymous TLS suites accepted', cwe: 'CWE-306',
    has: (suite) => suite.anonymous,
    cve: () => [],
    description: 'The server accepts anonymous (DH_anon, ECDH_anon) suites: it proves no identity, so anyone in the path can answer in its place and read everything (a man in the middle needs no certificate).',
    references: [MOZILLA_TLS, OWASP_TLS],
  },
  {
    rule: 'tls-export-cipher', name: 'Export-grade or single-DES TLS suites accepted', cwe: 'CWE-326',
    has: (suite) => suite.exportGrade,
    cve: (found) => [
      ...(found.some((suite) => suite.name.includes('RSA_EXPORT')) ? ['CVE-2015-0204'] : []),
      ...(found.some((suite) => /DHE?_\w*EXPORT|DH_anon_EXPORT/.test(suite.name)) ? ['CVE-2015-4000'] : []),
    ],
    description: 'The server accepts 40- or 56-bit export suites or single DES: their keys are found by brute force in hours, and export key exchanges let an attacker in the path downgrade connections (FREAK, Logjam).',
    references: ['https://freakattack.com/', 'https://weakdh.org/', MOZILLA_TLS],
  },
  {
    rule: 'tls-rc4-cipher', name: 'RC4 TLS suites accepted', cwe: 'CWE-327',
    has: (suite) => suite.rc4,
    cve: () => ['CVE-2013-2566', 'CVE-2015-2808'],
    description: 'The server accepts RC4 suites, which RFC 7465 forbids: RC4\'s keystream biases let an attacker recover repeated secrets such as cookies from many encryptions.',
    references: ['https://www.rfc-editor.org/rfc/rfc7465', MOZILLA_TLS],
  },
  {
    rule: 'tls-3des-cipher', name: '3DES TLS suites accepted (SWEET32)', cwe: 'CWE-327',
    has: (suite) => suite.tripleDes,
    cve: () => ['CVE-2016-2183'],
    description: 'The server accepts 3DES suites: a 64-bit block cipher whose blocks collide after about 32 GB on one connection, letting an attacker who can make a client send much traffic recover secrets (SWEET32).',
    references: ['https://sweet32.info/', MOZILLA_TLS],
  },
  {
    rule: 'tls-cbc-tls10', name: 'CBC suites accepted with TLS 1.0 or SSLv3', cwe: 'CWE-327',
    has: (suite, version) => suite.cbc && (version === 'TLSv1' || version === 'SSLv3'),
    cve: () => ['CVE-2011-3389'],
    description: 'The server accepts CBC suites with TLS 1.0 (or SSLv3), whose record IVs are predictable (BEAST). Current clients split records to defend themselves; old ones do not.',
    references: ['https://www.rfc-editor.org/rfc/rfc8996', MOZILLA_TLS],
  },
  {
    rule: 'tls-no-forward-secrecy', name: 'TLS suites without forward secrecy accepted', cwe: 'CWE-327',
    has: (suite) => !suite.forwardSecrecy && !suite.nullCipher,
    cve: () => [],
    description: 'The server accepts suites with a static key exchange (RSA, static DH or ECDH, PSK): whoever obtains the server\'s private key later can decrypt every recorded session that used them.',
    references: [MOZILLA_TLS, OWASP_TLS],
  },
];

/** Every finding the enumeration supports: the informational list, one per weakness, and the order. */
export function judgeSuites(enumeration: SuiteEnumeration): CheckFinding[] {
  const note = connectionNote(enumeration);
  const findings: CheckFinding[] = [suiteListFinding(enumeration, note)];
  let weakFound = false;
  for (const weakness of WEAKNESSES) {
    const byVersion: string[] = [];
    const found = new Map<number, SuiteTraits>();
    for (const [version, suites] of enumeration.accepted) {
      const names = suites.map(suiteTraits).filter((suite) => weakness.has(suite, version));
      for (const suite of names) found.set(suite.id, suite);
      if (names.length > 0) byVersion.push(`${version}: ${names.map((suite) => suite.name).join(', ')}`);
    }
    if (found.size === 0) continue;
    weakFound = true;
    findings.push(checkFinding({
      ruleId: `rampart:${weakness.rule}`,
      name: weakness.name,
      description: weakness.description,
      solution: SOLUTION,
      ...severityOf(`rampart:${weakness.rule}`),
      cwe: weakness.cwe,
      cve: weakness.cve([...found.values()]),
      evidence: `Accepted: ${byVersion.join('; ')}. ${note}`,
      references: [...weakness.references, IANA_SUITES],
    }));
  }
  const order = enumeration.order;
  if (order?.result === 'client' && weakFound) {
    findings.push(checkFinding({
      ruleId: 'rampart:tls-no-server-cipher-order',
      name: 'TLS server follows the client\'s cipher suite order',
      description: 'The server does not enforce its own suite preference: with a client that prefers a weak suite it also accepts (above), the weak suite is used.',
      solution: 'Enforce the server\'s order (nginx `ssl_prefer_server_ciphers on`, Apache `SSLHonorCipherOrder on`), or accept only strong suites.',
      ...severityOf('rampart:tls-no-server-cipher-order'),
      cwe: 'CWE-757',
      evidence: `${orderText(order)}. ${note}`,
      references: [MOZILLA_TLS, OWASP_TLS],
    }));
  }
  return findings;
}

function suiteListFinding(enumeration: SuiteEnumeration, note: string): CheckFinding {
  const lines = [...enumeration.accepted].map(([version, suites]) => `${version} (${suites.length}): ${suites.map((id) => suiteTraits(id).name).join(', ')}`);
  const incomplete = [...enumeration.incomplete].map(([version, why]) => `${version} list may be incomplete: ${why}`);
  return checkFinding({
    ruleId: 'rampart:tls-cipher-suites',
    name: 'TLS cipher suites accepted',
    description: 'The cipher suites this service accepts at each protocol version, found by offering every suite of the IANA registry in hand-built ClientHellos and removing the one the server chose until it refused; listed in the order the server chose them.',
    solution: SOLUTION,
    ...severityOf('rampart:tls-cipher-suites'),
    evidence: [...lines, ...incomplete, ...(enumeration.order === null ? [] : [orderText(enumeration.order)]), note].join('; '),
    references: [MOZILLA_TLS, IANA_SUITES],
  });
}

function orderText(order: NonNullable<SuiteEnumeration['order']>): string {
  const [first, second] = order.pair.map((id) => suiteTraits(id).name);
  const verdict = order.result === 'server' ? 'the server enforces its own order' : order.result === 'client' ? "the server follows the client's order" : 'the order could not be told';
  return `Preference at ${order.version}: offered ${first}, ${second} in both orders: ${verdict}`;
}

function connectionNote(enumeration: SuiteEnumeration): string {
  return `Enumerated with ${enumeration.hellos} ClientHellos, each closed after the ServerHello`;
}
