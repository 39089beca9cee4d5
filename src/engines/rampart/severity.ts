/**
 * The one severity table of the Rampart engine: for every rule id it emits, the threat, its basis
 * (a CVSS v3.1 base vector where one applies, otherwise this table's row) and the reason. Checks
 * take their `threat`, `cvssBase` and `cvssVector` from here (`severityOf`), the engine appends
 * the basis to each finding's description (`withSeverityBasis`), and docs/SEVERITY.md is this
 * table rendered (`renderSeverityTable`; test/rampart-severity.test.ts keeps them equal).
 *
 * A rule with several rows rates different cases differently (e.g. the worst SSH algorithm it
 * lists); the check picks the case by its threat, which is why the threats of one rule differ.
 */
import { cvss31BaseScore } from '../../shared/cvss.js';
import { threatFromCvss, type Finding, type Threat } from '../engine.js';

/** One rating of the table. */
export interface SeverityRow {
  ruleId: string;
  /** The case this row rates, when the rule has more than one row. */
  when?: string;
  /** The threat, or `CVE` for findings rated by their CVE's own NVD score. */
  threat: Threat | 'CVE';
  /** CVSS v3.1 base vector when CVSS fits the weakness; null when the row itself is the basis. */
  vector: string | null;
  /** Why this rating, for the engineer who signs it. */
  reason: string;
}

const NET_FULL = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
const NET_READ_ALL = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N';
const NET_READ_SOME = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N';
/** Reading (and altering) traffic from a position on the network path. */
const ON_PATH_READ = 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:L/A:N';
/** Impersonating or hijacking from a position on the network path. */
const ON_PATH_TAKEOVER = 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N';
/** Statistical TLS attacks that need a victim running the attacker's script and huge traffic. */
const TLS_STATISTICAL = 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:N/A:N';

/** The table, ordered as docs/SEVERITY.md shows it. */
export const SEVERITY_TABLE = [
  // Exposure records and known vulnerabilities
  { ruleId: 'rampart:open-port', threat: 'Informational', vector: null, reason: 'Records what is reachable so that an unexpected service is noticed; an open port is not itself a weakness.' },
  { ruleId: 'rampart:known-vulnerability', threat: 'CVE', vector: null, reason: "The CVE's own CVSS base score and vector from NVD (9.0 Critical, 7.0 High, 4.0 Medium, 0.1 Low); its quality of detection says how sure the version match is." },

  // Services without authentication (issue 14: no authentication on Redis, MongoDB, Elasticsearch or a database's administrative account is Critical)
  { ruleId: 'rampart:redis-noauth', threat: 'Critical', vector: NET_FULL, reason: 'Any client reads, changes and deletes every key; CONFIG SET and MODULE LOAD commonly lead to code execution on the host.' },
  { ruleId: 'rampart:mongodb-noauth', threat: 'Critical', vector: NET_FULL, reason: 'Any client reads, changes and drops every database; mass wiping and ransom of open MongoDB servers is routine.' },
  { ruleId: 'rampart:elasticsearch-noauth', threat: 'Critical', vector: NET_FULL, reason: 'Any client reads, writes and deletes every index through the REST API.' },
  { ruleId: 'rampart:mysql-empty-password', threat: 'Critical', vector: NET_FULL, reason: 'A well-known administrative account (root first) logs in without a password: full control of every database, and FILE privileges reach the host.' },
  { ruleId: 'rampart:mysql-anonymous-login', threat: 'High', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:L/A:L', reason: "The anonymous account (empty user name) logs in without a password: it reaches whatever its grants allow (by default the `test` databases) and a foothold for privilege escalation; not the administrative account." },
  { ruleId: 'rampart:memcached-noauth', threat: 'Medium', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:L/A:N', reason: 'Anyone reads cached values by key and overwrites them (cache poisoning); a cache holds copies, not the data of record, and rebuilds itself, so no availability impact is counted.' },
  { ruleId: 'rampart:rsync-modules-listed', threat: 'Medium', vector: NET_READ_SOME, reason: 'The module list discloses what the host shares and often leads to modules readable without a password.' },
  { ruleId: 'rampart:ftp-anonymous', threat: 'Medium', vector: NET_READ_SOME, reason: 'Anyone reads what the anonymous area holds; sometimes a deliberate public archive, so limited confidentiality impact.' },
  { ruleId: 'rampart:ftp-anonymous-write', threat: 'High', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:L/A:L', reason: 'Anyone stores files: malware and warez hosting, overwriting what others download, filling the disk.' },
  { ruleId: 'rampart:ftp-sensitive-files', threat: 'Medium', vector: NET_READ_SOME, reason: 'Files whose names mark dumps, backups, passwords or configuration are listed to anyone; judged on the names (nothing is downloaded), so the impact is counted as some data, not all.' },

  // Cleartext protocols
  { ruleId: 'rampart:telnet-cleartext', threat: 'High', vector: ON_PATH_TAKEOVER, reason: 'Logins and whole shell sessions cross the network readable and hijackable from the path (command execution as the user); Telnet is also a favourite botnet login target.' },
  { ruleId: 'rampart:ftp-no-starttls', threat: 'Medium', vector: ON_PATH_READ, reason: 'User names, passwords and files cross the network in clear text; reading them needs a position on the network path.' },
  { ruleId: 'rampart:smtp-no-starttls', threat: 'Medium', vector: ON_PATH_READ, reason: 'Mail and SMTP AUTH credentials cross the network in clear text; reading them needs a position on the network path.' },
  { ruleId: 'rampart:pop3-no-starttls', threat: 'Medium', vector: ON_PATH_READ, reason: 'Mailbox passwords and mail cross the network in clear text; reading them needs a position on the network path.' },
  { ruleId: 'rampart:imap-no-starttls', threat: 'Medium', vector: ON_PATH_READ, reason: 'Mailbox passwords and mail cross the network in clear text; reading them needs a position on the network path.' },
  { ruleId: 'rampart:mysql-no-tls', threat: 'Medium', vector: ON_PATH_READ, reason: 'The server does not require TLS: logins and query results can cross the network in clear text; reading them needs a position on the network path.' },
  { ruleId: 'rampart:mysql-tls-not-required', threat: 'Low', vector: null, reason: 'TLS is offered but not required: a client that does not ask for it (or an attacker on the path who strips it) logs in in clear text; well-configured clients are safe.' },
  { ruleId: 'rampart:http-no-https-redirect', threat: 'Medium', vector: ON_PATH_READ, reason: 'Pages, form posts and cookies cross the network in clear text; reading them needs a position on the network path.' },

  // SSH
  { ruleId: 'rampart:ssh-protocol-v1', threat: 'High', vector: ON_PATH_TAKEOVER, reason: 'SSH-1 sessions can be decrypted and hijacked from the network path (CRC-32 integrity, session-key recovery).' },
  { ruleId: 'rampart:ssh-terrapin', threat: 'Medium', vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:H/A:N', reason: "NVD's vector for CVE-2023-48795: an attacker on the path can drop handshake messages and downgrade extensions." },
  { ruleId: 'rampart:ssh-password-auth', when: 'the address is public (internet-facing)', threat: 'Medium', vector: null, reason: 'Password and keyboard-interactive logins are exposed to the internet-wide guessing that runs against every public SSH server; one weak password is a shell.' },
  { ruleId: 'rampart:ssh-password-auth', when: 'the address is private, loopback or link-local', threat: 'Low', vector: null, reason: 'The same guessing needs a foothold inside the network first; keys are still the better practice.' },
  { ruleId: 'rampart:ssh-weak-kex', when: 'diffie-hellman-group1-sha1 or SHA-1 group exchange', threat: 'Medium', vector: null, reason: 'A 1024-bit or server-chosen group with SHA-1: within reach of well-funded attackers (Logjam).' },
  { ruleId: 'rampart:ssh-weak-kex', when: 'other SHA-1 key exchange only', threat: 'Low', vector: null, reason: 'Deprecated (RFC 9142) but not practically attackable today.' },
  { ruleId: 'rampart:ssh-weak-cipher', when: 'RC4, 3DES, Blowfish or CAST-128', threat: 'Medium', vector: null, reason: 'Broken stream cipher or 64-bit blocks (Sweet32-style collisions).' },
  { ruleId: 'rampart:ssh-weak-cipher', when: 'CBC modes only', threat: 'Low', vector: null, reason: 'CBC plaintext recovery on SSH is theoretical against current servers; past its time.' },
  { ruleId: 'rampart:ssh-weak-mac', when: 'MD5 or 96-bit MACs', threat: 'Medium', vector: null, reason: 'Broken hash or truncated tags: little integrity margin.' },
  { ruleId: 'rampart:ssh-weak-mac', when: 'SHA-1 or 64-bit UMAC only', threat: 'Low', vector: null, reason: 'HMAC-SHA1 is still unbroken as a MAC; past its time.' },
  { ruleId: 'rampart:ssh-weak-hostkey', when: 'DSA', threat: 'Medium', vector: null, reason: '1024-bit DSA keys, removed from OpenSSH.' },
  { ruleId: 'rampart:ssh-weak-hostkey', when: 'ssh-rsa (SHA-1 signatures) only', threat: 'Low', vector: null, reason: 'SHA-1 signatures are open to chosen-prefix collisions, expensive to exploit.' },

  // TLS protocols and cipher suites (issue 14: NULL or anonymous TLS suites are High)
  { ruleId: 'rampart:tls-protocols', threat: 'Informational', vector: null, reason: 'The versions accepted, for the record.' },
  { ruleId: 'rampart:tls-cipher-suites', threat: 'Informational', vector: null, reason: 'The suites accepted at each version and the order the server chose them in, for the record.' },
  { ruleId: 'rampart:tls-ssl3-accepted', threat: 'Medium', vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N', reason: 'SSLv3 is broken and forbidden (RFC 7568): POODLE decrypts CBC records from the path and its other suites are RC4; reading needs a position on the path and a client that still offers SSLv3 (the vector OpenVAS gives deprecated SSL versions, 5.9).' },
  { ruleId: 'rampart:tls-tls10-accepted', threat: 'Medium', vector: null, reason: 'Deprecated (RFC 8996): BEAST-prone CBC, MD5/SHA-1 handshake, no AEAD; forbidden by PCI DSS.' },
  { ruleId: 'rampart:tls-tls11-accepted', threat: 'Low', vector: null, reason: 'Deprecated (RFC 8996) without AEAD, but no practical attack; modern clients no longer offer it.' },
  { ruleId: 'rampart:tls-null-cipher', threat: 'High', vector: null, reason: "The server agrees to send data unencrypted. Its CVSS vector (AV:N/AC:H/C:H, 5.9) undersells a switch that only misconfiguration turns on and that any client with a permissive cipher list takes; the table rates it High." },
  { ruleId: 'rampart:tls-anonymous-cipher', threat: 'High', vector: ON_PATH_TAKEOVER, reason: 'No server authentication: anyone on the path impersonates the server to a client that offers the suite.' },
  { ruleId: 'rampart:tls-export-cipher', threat: 'High', vector: ON_PATH_TAKEOVER, reason: '40- and 56-bit export keys and 512-bit key exchange break in hours (FREAK, Logjam): sessions read and altered from the path.' },
  { ruleId: 'rampart:tls-rc4-cipher', threat: 'Medium', vector: TLS_STATISTICAL, reason: 'RC4 biases recover cookies after millions of encryptions of the same secret, driven by a script in the victim\'s browser (RFC 7465 forbids RC4).' },
  { ruleId: 'rampart:tls-3des-cipher', threat: 'Medium', vector: TLS_STATISTICAL, reason: "64-bit block collisions after hundreds of gigabytes in one session, driven by a script in the victim's browser. NVD scores CVE-2016-2183 7.5 (AC:L, no user interaction) for the library; the attack on a server needs both." },
  { ruleId: 'rampart:tls-no-forward-secrecy', threat: 'Low', vector: null, reason: 'Static RSA key exchange: whoever obtains the private key later decrypts recorded sessions; no attack today without the key.' },
  { ruleId: 'rampart:tls-cbc-tls10', threat: 'Low', vector: null, reason: 'BEAST needs a client without the 1/n-1 record split, which every current browser has; the TLS 1.0 row carries the protocol weakness.' },
  { ruleId: 'rampart:tls-no-server-cipher-order', threat: 'Low', vector: null, reason: "The client's order picks the suite, so a weaker suite the server also accepts can be used; harmless when only strong suites are enabled." },

  // TLS certificates (issue 14: an expired certificate is High)
  { ruleId: 'rampart:tls-cert-expired', threat: 'High', vector: null, reason: 'Every client fails at once or users learn to click through warnings, which hides a real interception; renewal has stopped working.' },
  { ruleId: 'rampart:tls-cert-not-yet-valid', threat: 'Medium', vector: null, reason: 'Clients reject it; usually a clock error that resolves within hours.' },
  { ruleId: 'rampart:tls-cert-expiring-soon', threat: 'Low', vector: null, reason: 'Within 30 days: an outage to come, not a weakness yet.' },
  { ruleId: 'rampart:tls-cert-self-signed', threat: 'Low', vector: null, reason: 'Unverifiable identity; usually a deliberate choice on internal services whose clients pin the certificate.' },
  { ruleId: 'rampart:tls-cert-untrusted', threat: 'Low', vector: null, reason: 'The chain does not reach the public trust store (private CA or missing intermediates); clients that have the CA are fine.' },
  { ruleId: 'rampart:tls-cert-name-mismatch', threat: 'Medium', vector: null, reason: 'Clients reject the connection or users learn to ignore the warning.' },
  { ruleId: 'rampart:tls-cert-weak-key', threat: 'Medium', vector: null, reason: 'RSA/DSA below 2048 bits or EC below 224 bits: factoring or discrete logs within reach during the key\'s lifetime.' },
  { ruleId: 'rampart:tls-cert-weak-signature', threat: 'Medium', vector: null, reason: 'SHA-1 or MD5 signatures allow forged certificates (SHAttered, the 2008 rogue CA); browsers reject them.' },

  // HTTP
  { ruleId: 'rampart:http-git-exposed', threat: 'High', vector: NET_READ_ALL, reason: 'The whole repository downloads: source, history and every secret ever committed.' },
  { ruleId: 'rampart:http-env-exposed', threat: 'High', vector: NET_READ_ALL, reason: 'The file holds database passwords, API keys and application secrets.' },
  { ruleId: 'rampart:http-backup-exposed', threat: 'High', vector: NET_READ_ALL, reason: 'A database dump or a source backup, recognised by its content: data or credentials for anyone who asks.' },
  { ruleId: 'rampart:http-directory-listing', threat: 'Medium', vector: NET_READ_SOME, reason: 'Anyone sees and fetches files nobody linked (backups, configuration, uploads).' },
  { ruleId: 'rampart:http-listing-sensitive-files', threat: 'Medium', vector: NET_READ_SOME, reason: 'A listing shows files whose names mark dumps, backups, keys or configuration; judged on the names (the content is not fetched), so the impact is counted as some data, not all.' },
  { ruleId: 'rampart:http-status-page-exposed', when: 'Apache mod_status or PHP-FPM status', threat: 'Medium', vector: NET_READ_SOME, reason: 'Requested URLs with their query strings (tokens), client addresses and the server configuration.' },
  { ruleId: 'rampart:http-status-page-exposed', when: 'nginx stub_status or PHP-FPM ping only', threat: 'Low', vector: null, reason: 'Traffic counters only.' },
  { ruleId: 'rampart:http-server-info-exposed', threat: 'Medium', vector: NET_READ_SOME, reason: "Apache mod_info shows the whole configuration (paths, virtual hosts, access rules): a map for an attacker, no data." },
  { ruleId: 'rampart:http-tomcat-manager-exposed', when: 'the manager answers without any login', threat: 'Critical', vector: NET_FULL, reason: 'Anyone deploys a WAR: code execution on the server.' },
  { ruleId: 'rampart:http-tomcat-manager-exposed', when: 'the manager asks for a login', threat: 'Medium', vector: null, reason: 'One weak or default password (tomcat/tomcat) away from code execution, and a favourite target of password guessing; no weakness proven without a password.' },
  { ruleId: 'rampart:http-actuator-exposed', when: 'env, configprops, heapdump or a control endpoint (loggers, shutdown, jolokia) is published', threat: 'High', vector: NET_READ_ALL, reason: 'Configuration with its secrets, or the heap with credentials and sessions, for anyone who asks.' },
  { ruleId: 'rampart:http-actuator-exposed', when: 'other non-default endpoints only', threat: 'Medium', vector: NET_READ_SOME, reason: 'Mappings, beans and metrics describe the application to an attacker; no secrets.' },
  { ruleId: 'rampart:http-ds-store-exposed', threat: 'Low', vector: null, reason: 'File names of one directory, no content; a help to find other files.' },
  { ruleId: 'rampart:http-trace-enabled', threat: 'Low', vector: null, reason: 'Cross-site tracing needs another flaw, and browsers have refused to send TRACE for over a decade.' },
  { ruleId: 'rampart:http-cookie-no-secure', threat: 'Low', vector: null, reason: 'The cookie leaks only if the browser is made to visit plain HTTP and someone on the path reads it.' },
  { ruleId: 'rampart:http-cookie-no-httponly', threat: 'Low', vector: null, reason: 'Matters only together with a cross-site scripting flaw.' },
  { ruleId: 'rampart:http-cookie-no-samesite', threat: 'Low', vector: null, reason: 'Browsers default to Lax; matters for old browsers and CSRF-prone applications.' },
  { ruleId: 'rampart:http-missing-hsts', threat: 'Low', vector: null, reason: 'The first plain-HTTP visit can be stripped of TLS by someone on the path.' },
  { ruleId: 'rampart:http-missing-csp', threat: 'Low', vector: null, reason: 'Defence in depth against cross-site scripting; no flaw by itself.' },
  { ruleId: 'rampart:http-missing-frame-options', threat: 'Low', vector: null, reason: 'Clickjacking needs a page with a state-changing click; defence in depth.' },
  { ruleId: 'rampart:http-missing-content-type-options', threat: 'Low', vector: null, reason: 'MIME sniffing of user uploads; defence in depth.' },
  { ruleId: 'rampart:http-version-disclosure', threat: 'Low', vector: null, reason: 'Tells attackers which known vulnerabilities to try; no flaw by itself.' },

  // UDP services (issue 14: SNMP with the public community is Medium)
  { ruleId: 'rampart:udp-snmp-default-community', threat: 'Medium', vector: NET_READ_SOME, reason: 'A default community reads the management data (interfaces, routes, processes, software). Writing is not tested (no SET is ever sent), so no integrity impact is claimed.' },
  { ruleId: 'rampart:udp-memcached-amplification', threat: 'High', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H', reason: "NVD's vector for CVE-2018-1000115: the largest DDoS amplifier on record (up to 50,000 times)." },
  { ruleId: 'rampart:udp-dns-open-resolver', threat: 'Medium', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L', reason: 'Answers recursive queries for anyone: a DNS amplifier (about 50 times) and a target for cache snooping and poisoning.' },
  { ruleId: 'rampart:udp-ssdp-exposed', threat: 'Medium', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:L', reason: 'Describes the device to anyone and reflects about 30 times the request.' },
  { ruleId: 'rampart:udp-netbios-name-table', threat: 'Low', vector: null, reason: 'Discloses the computer, domain and sometimes user names; a small amplifier.' },
  { ruleId: 'rampart:udp-ntp-exposed', threat: 'Informational', vector: null, reason: 'A time service answering, for the record; no amplification request (monlist) is sent.' },
  { ruleId: 'rampart:udp-dns-exposed', threat: 'Informational', vector: null, reason: 'An authoritative or refusing DNS server answering, for the record.' },
] as const satisfies readonly SeverityRow[];

type Row = (typeof SEVERITY_TABLE)[number];
/** A rule id the table rates. */
export type RatedRuleId = Exclude<Row['ruleId'], 'rampart:known-vulnerability'>;
/** The threats the table allows for one rule. */
export type RatedThreat<R extends RatedRuleId> = Extract<Row, { ruleId: R }>['threat'];

/** The severity fields of a finding of `ruleId`: its threat, and its CVSS score and vector when the row has one. */
export interface Severity {
  threat: Threat;
  cvssBase: number | null;
  cvssVector: string | null;
}

/**
 * The severity of a finding of `ruleId`, from the table. A rule with several rows needs the case,
 * named by its threat; a threat the table does not give the rule throws (a programming error,
 * which the types already refuse).
 */
export function severityOf<R extends RatedRuleId>(ruleId: R, threat?: RatedThreat<R>): Severity {
  const row = findRow(ruleId, threat);
  if (row === undefined || row.threat === 'CVE') throw new Error(`The severity table has no row for ${ruleId}${threat ? ` at ${threat}` : ''}`);
  return { threat: row.threat, cvssBase: row.vector === null ? null : cvss31BaseScore(row.vector), cvssVector: row.vector };
}

function findRow(ruleId: string, threat?: string): SeverityRow | undefined {
  const rows = (SEVERITY_TABLE as readonly SeverityRow[]).filter((row) => row.ruleId === ruleId);
  if (threat === undefined) return rows.length === 1 ? rows[0] : undefined;
  return rows.find((row) => row.threat === threat);
}

/**
 * The finding with the basis of its threat appended to its description: its CVSS vector and score,
 * or the table row, with the row's reason. A finding the table does not rate at that threat (a rule
 * the table does not know yet) is returned unchanged.
 */
export function withSeverityBasis<F extends Pick<Finding, 'ruleId' | 'threat' | 'description'>>(finding: F): F {
  const row = findRow(finding.ruleId, finding.threat);
  // Informational findings are records (open ports, versions seen): a basis line would be noise.
  if (row === undefined || row.threat === 'CVE' || row.threat === 'Informational') return finding;
  const basis = row.vector === null
    ? `rated ${row.threat} by Rampart's severity table (docs/SEVERITY.md, ${row.ruleId}${row.when ? `, when ${row.when}` : ''})`
    : `rated ${row.threat} by its CVSS v3.1 base score ${cvss31BaseScore(row.vector)?.toFixed(1)} (${row.vector})`;
  return { ...finding, description: `${finding.description}\n\nSeverity: ${basis}. ${row.reason}` };
}

/** docs/SEVERITY.md's table: one line per row, in table order. */
export function renderSeverityTable(): string {
  const lines = ['| Rule id | When | Threat | Basis | Reason |', '|---|---|---|---|---|'];
  for (const row of SEVERITY_TABLE as readonly SeverityRow[]) {
    const score = row.vector === null ? null : cvss31BaseScore(row.vector);
    const basis = row.threat === 'CVE' ? "the CVE's NVD vector" : row.vector === null ? 'this table' : `${score?.toFixed(1)} \`${row.vector}\``;
    const threat = row.threat === 'CVE' ? 'from CVSS' : row.threat;
    lines.push(`| \`${row.ruleId}\` | ${row.when ?? ''} | ${threat} | ${basis} | ${row.reason.replace(/\|/g, '\\|')} |`);
  }
  return lines.join('\n');
}

/** Consistency a row must keep: a vector that parses and whose score gives the row's threat. */
export function severityRowProblem(row: SeverityRow): string | null {
  if (row.vector === null || row.threat === 'CVE') return null;
  const score = cvss31BaseScore(row.vector);
  if (score === null) return `${row.ruleId}: ${row.vector} is not a CVSS v3.1 base vector`;
  const fromScore = threatFromCvss(score);
  return fromScore === row.threat ? null : `${row.ruleId}: ${row.vector} scores ${score} (${fromScore}), the row says ${row.threat}`;
}
