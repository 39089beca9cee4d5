/**
 * MySQL and MariaDB: accounts without a password, and servers that do not require TLS.
 *
 * | Rule id                          | Threat   | CWE     | Finding when                                                       |
 * |----------------------------------|----------|---------|--------------------------------------------------------------------|
 * | `rampart:mysql-empty-password`   | Critical | CWE-521 | `root` logs in with an empty password                              |
 * | `rampart:mysql-anonymous-login`  | High     | CWE-287 | the anonymous account (empty user name) logs in with an empty password |
 * | `rampart:mysql-no-tls`           | Medium   | CWE-319 | the greeting lacks the CLIENT_SSL capability: the server cannot speak TLS |
 * | `rampart:mysql-tls-not-required` | Low      | CWE-319 | the server offers TLS but accepted one of our logins in plaintext  |
 *
 * Why: `root` is the administrative account (every database, user and, through FILE or plugins,
 * often the host); the anonymous account of old default installations grants less, usually the
 * `test` databases, but lets anyone in. Without TLS, queries, results and the challenge-response
 * of every login (crackable offline) cross the network in the clear (Medium, as for the other
 * cleartext protocols); when TLS is offered but optional, a client may still choose it (Low).
 *
 * The empty-password login is the ONLY credential attempt of the engine: one attempt per account,
 * `root` first, then the anonymous account, each with an empty password, never another password.
 * A deployment turns it off with RAMPART_EMPTY_PASSWORD_LOGINS=false, a scan with the engine
 * option `empty_password_logins: false`; the TLS rule from the greeting still runs then.
 */
import { checkFinding, type Check, type CheckFinding, type Endpoint, type ServiceInfo } from './check.js';
import { severityOf } from '../severity.js';
import { CLIENT_SSL, parseGreeting, readPacket, tryEmptyPassword, type LoginOutcome } from '../protocols/mysql.js';
import { withSession } from '../protocols/session.js';
import { printable } from './evidence.js';

/** The accounts tried, in order: the administrative one, then the anonymous one (empty user name). */
export const MYSQL_EMPTY_PASSWORD_ACCOUNTS = ['root', ''] as const;

const REFERENCES = ['https://dev.mysql.com/doc/refman/8.0/en/default-privileges.html', 'https://mariadb.com/kb/en/mariadb-secure-installation/'];
const TLS_REFERENCES = ['https://mariadb.com/kb/en/securing-connections-for-client-and-server/', 'https://dev.mysql.com/doc/refman/8.0/en/using-encrypted-connections.html'];

const isMysql = (service: ServiceInfo): boolean => service.name === 'mysql' && !service.tls;

/** TLS capability from the greeting service detection read (no connection of its own). */
export const mysqlTlsCheck: Check = {
  id: 'mysql-tls',
  appliesTo: (service) => isMysql(service) && service.details.ssl === 'no',
  run: async (_endpoint: Endpoint, service: ServiceInfo) => [
    checkFinding({
      ruleId: 'rampart:mysql-no-tls',
      name: 'MySQL/MariaDB server does not offer TLS',
      description:
        'The database server does not announce the SSL capability in its handshake, so every client connection, with its queries, results and login exchange, crosses the network unencrypted. A sniffed mysql_native_password exchange can be cracked offline.',
      solution: 'Configure a certificate and key on the server (ssl_cert, ssl_key), make clients connect with TLS, and require it (require_secure_transport=ON, or REQUIRE SSL per account).',
      ...severityOf('rampart:mysql-no-tls'),
      cwe: 'CWE-319',
      evidence: `The server's initial handshake (${printable(service.details.server_version ?? service.version ?? 'unknown version', 80)}) lacks the CLIENT_SSL capability flag.`,
      references: TLS_REFERENCES,
    }),
  ],
};

/** The empty-password login: one attempt per account of MYSQL_EMPTY_PASSWORD_ACCOUNTS, each on its own connection. */
export const mysqlEmptyPasswordCheck: Check = {
  id: 'mysql-empty-password',
  attemptsLogin: true,
  appliesTo: (service) => isMysql(service) && service.details.error === undefined,
  run: async (endpoint: Endpoint) => {
    const findings: CheckFinding[] = [];
    let plaintextLogin: { user: string; version: string } | null = null;
    for (const user of MYSQL_EMPTY_PASSWORD_ACCOUNTS) {
      if (endpoint.signal.aborted) break;
      const attempt = await attemptLogin(endpoint, user);
      if (!attempt || attempt.outcome.kind !== 'accepted') continue;
      const offersTls = (attempt.capabilities & CLIENT_SSL) !== 0;
      findings.push(emptyPasswordFinding(user, attempt.serverVersion, attempt.outcome.plugin));
      if (offersTls && !plaintextLogin) plaintextLogin = { user, version: attempt.serverVersion };
    }
    if (plaintextLogin) findings.push(tlsNotRequiredFinding(plaintextLogin.user, plaintextLogin.version));
    return findings;
  },
};

interface Attempt {
  serverVersion: string;
  capabilities: number;
  outcome: LoginOutcome;
}

/** One connection, one login attempt; null when no greeting came (an error packet such as "host not allowed", or silence). */
async function attemptLogin(endpoint: Endpoint, user: string): Promise<Attempt | null> {
  return withSession(endpoint, {}, null, async (session) => {
    const first = await readPacket(session);
    if (!first) return null;
    const greeting = parseGreeting(first.payload);
    if (!greeting) return null;
    const outcome = await tryEmptyPassword(session, greeting, first.sequence, user);
    // After COM_QUIT the server closes; waiting for that keeps the session from being reset first.
    if (outcome.kind === 'accepted') await session.readUntil(() => false, Math.min(endpoint.limits.readTimeoutMs, 1000));
    return { serverVersion: greeting.serverVersion, capabilities: greeting.capabilities, outcome };
  });
}

function accountLabel(user: string): string {
  return user === '' ? 'the anonymous account (empty user name)' : `the account '${printable(user, 32)}'`;
}

function emptyPasswordFinding(user: string, serverVersion: string, plugin: string): CheckFinding {
  const admin = user === 'root';
  return checkFinding({
    ruleId: admin ? 'rampart:mysql-empty-password' : 'rampart:mysql-anonymous-login',
    name: admin ? 'MySQL/MariaDB root account has no password' : 'MySQL/MariaDB anonymous account accepts logins',
    description: admin
      ? 'The database server lets anyone who reaches it log in as root, its administrative account, with an empty password: full read and write access to every database and account, and often to files on the host (FILE privilege, plugins).'
      : 'The database server has an anonymous account (empty user name) without a password, a leftover of default installations: anyone who reaches it can log in, and whatever user name they give falls back to this account.',
    solution: admin
      ? "Set a strong password for every root account (ALTER USER 'root'@'host' IDENTIFIED BY ...) or switch them to unix_socket authentication, run mariadb-secure-installation, and do not expose the port beyond the hosts that need it."
      : "Drop the anonymous accounts (DROP USER ''@'host' for each host; mariadb-secure-installation does it) and do not expose the port beyond the hosts that need it.",
    ...(admin ? severityOf('rampart:mysql-empty-password') : severityOf('rampart:mysql-anonymous-login')),
    cwe: admin ? 'CWE-521' : 'CWE-287',
    evidence: `Logged in as ${accountLabel(user)} with an empty password (plugin ${printable(plugin, 40)}, server ${printable(serverVersion, 80)}), then sent COM_QUIT; no statement was run.`,
    references: REFERENCES,
  });
}

function tlsNotRequiredFinding(user: string, serverVersion: string): CheckFinding {
  return checkFinding({
    ruleId: 'rampart:mysql-tls-not-required',
    name: 'MySQL/MariaDB server does not require TLS',
    description: 'The server offers TLS but accepts logins over an unencrypted connection, so a client that does not insist on TLS sends its login exchange, queries and results in the clear.',
    solution: 'Require TLS on the server (require_secure_transport=ON, or REQUIRE SSL per account) and make clients verify the server certificate.',
    ...severityOf('rampart:mysql-tls-not-required'),
    cwe: 'CWE-319',
    evidence: `The handshake announces CLIENT_SSL, yet ${accountLabel(user)} logged in over a plaintext connection (server ${printable(serverVersion, 80)}).`,
    references: TLS_REFERENCES,
  });
}
