/**
 * The files and pages the HTTP check asks for, and how each is recognised. A path counts as
 * exposed only on an answer whose body (and for a login, its challenge) carries the page's own
 * markers (never on status alone: many applications answer 200 to every path) and differs from
 * the site's catch-all page. Evidence never copies secrets: `.env` values and `.git/config`
 * contents are summarised.
 */
import type { Threat } from '../../engine.js';
import type { CheckFinding } from './check.js';
import type { HttpResponse } from './http-request.js';
import { severityOf, type RatedRuleId, type RatedThreat } from '../severity.js';
import { actuatorIndex, serverInfo, statusPage, statusThreat, tomcatManager, type Recognised } from './http-server-pages.js';

export { serverInfo, statusPage } from './http-server-pages.js';

/** The kinds of exposure, one rule id each. */
export type ExposureKind =
  | 'git'
  | 'env'
  | 'backup'
  | 'ds-store'
  | 'status-page'
  | 'server-info'
  | 'tomcat-manager'
  | 'actuator'
  | 'directory-listing'
  | 'listing-sensitive-files';

export type { Recognised } from './http-server-pages.js';

/** One path to ask for, and how to recognise the file that should not be there. */
export interface ExposureProbe {
  kind: ExposureKind;
  path: string;
  /** Statuses that can carry the page (default 200 only): a login challenge is a 401. */
  statuses?: readonly number[];
  /** What the answer showed, or null when it is not this page. */
  recognise(response: HttpResponse): Recognised | null;
}

/** A recogniser that needs the body only. */
const onBody = (recognise: (body: Buffer) => string | null) => (response: HttpResponse): string | null => recognise(response.body);

const text = (body: Buffer): string => body.toString('latin1');
const startsWith = (body: Buffer, magic: number[]): boolean => magic.every((byte, index) => body[index] === byte);

const gitHead = (body: Buffer): string | null => {
  const content = text(body).trim();
  return /^(ref: refs\/[\x21-\x7e]+|[0-9a-f]{40}|[0-9a-f]{64})$/.test(content) ? `HEAD is "${content}"` : null;
};

const gitConfig = (body: Buffer): string | null => {
  const content = text(body);
  if (!/^\s*\[core\]/m.test(content) || !/repositoryformatversion/.test(content)) return null;
  const sections = [...content.matchAll(/^\s*\[([^\]\n]{1,80})\]/gm)].map((match) => `[${match[1]}]`);
  return `git config with sections ${sections.slice(0, 10).join(' ')}`;
};

const dotenv = (body: Buffer): string | null => {
  const content = text(body);
  if (/^\s*</.test(content)) return null; // an HTML page, whatever it says
  const keys = content
    .split(/\r?\n/)
    .map((line) => /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1])
    .filter((key): key is string => key !== undefined);
  return keys.length >= 2 ? `${keys.length} variables (values withheld): ${keys.slice(0, 20).join(', ')}` : null;
};

const magic = (bytes: number[], label: string) => (body: Buffer): string | null =>
  startsWith(body, bytes) ? `${label} (${body.length} bytes read)` : null;

const phpSource = (body: Buffer): string | null => (/<\?php/.test(text(body)) ? 'PHP source code (contains "<?php")' : null);

const sqlDump = (body: Buffer): string | null => {
  const content = text(body);
  if (/^\s*</.test(content)) return null;
  const marker = /-- MySQL dump|-- MariaDB dump|PostgreSQL database dump|CREATE TABLE|INSERT INTO/i.exec(content);
  return marker === null ? null : `SQL dump (contains "${marker[0]}")`;
};

/** An auto-generated index (Apache, nginx autoindex, lighttpd, Python http.server, IIS). */
export const directoryListing = (body: Buffer): string | null => {
  const match = /<(?:title|h1)>\s*(Index of \/[^<]{0,200}|Directory listing for \/[^<]{0,200}|[^<]{0,100} - \/[^<]{0,200})<\/(?:title|h1)>/i.exec(
    text(body),
  );
  if (match?.[1] === undefined) return null;
  // IIS says "<host> - /path/" in its title, and lists "[To Parent Directory]".
  if (!/^(Index of|Directory listing for)/i.test(match[1]) && !/\[To Parent Directory\]/.test(text(body))) return null;
  return `index page titled "${match[1].trim()}"`;
};

const zip = magic([0x50, 0x4b, 0x03, 0x04], 'ZIP archive');
const gzip = magic([0x1f, 0x8b], 'gzip archive');
const status = (body: Buffer): Recognised | null => {
  const seen = statusPage(body);
  return seen === null ? null : statusThreat(seen);
};

/** Every path probed after `GET /`, in order: 18 requests. */
export const EXPOSURE_PROBES: readonly ExposureProbe[] = [
  { kind: 'git', path: '/.git/HEAD', recognise: onBody(gitHead) },
  { kind: 'git', path: '/.git/config', recognise: onBody(gitConfig) },
  { kind: 'env', path: '/.env', recognise: onBody(dotenv) },
  { kind: 'backup', path: '/backup.zip', recognise: onBody(zip) },
  { kind: 'backup', path: '/backup.tar.gz', recognise: onBody(gzip) },
  { kind: 'backup', path: '/index.php.bak', recognise: onBody(phpSource) },
  { kind: 'backup', path: '/db.sql', recognise: onBody(sqlDump) },
  { kind: 'ds-store', path: '/.DS_Store', recognise: onBody(magic([0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31], 'macOS .DS_Store file')) },
  { kind: 'status-page', path: '/server-status', recognise: (response) => status(response.body) },
  { kind: 'status-page', path: '/nginx_status', recognise: (response) => status(response.body) },
  { kind: 'status-page', path: '/stub_status', recognise: (response) => status(response.body) },
  { kind: 'status-page', path: '/basic_status', recognise: (response) => status(response.body) },
  { kind: 'status-page', path: '/status', recognise: (response) => status(response.body) },
  { kind: 'status-page', path: '/fpm-status', recognise: (response) => status(response.body) },
  { kind: 'status-page', path: '/ping', recognise: (response) => status(response.body) },
  { kind: 'server-info', path: '/server-info', recognise: onBody(serverInfo) },
  { kind: 'tomcat-manager', path: '/manager/html', statuses: [200, 401], recognise: tomcatManager },
  { kind: 'actuator', path: '/actuator', recognise: (response) => actuatorIndex(response.body) },
];

/** Directories tried for a listing whether or not a page links to them (the crawl fetches them first). */
export const LISTING_PROBES: readonly string[] = ['/uploads/', '/files/'];

/**
 * Recognisers for a file the crawl found linked (or listed) under a name that suggests a dump or
 * backup: judged on its content like the fixed probes, whatever its path.
 */
export function recogniseLinkedFile(path: string, body: Buffer): { kind: ExposureKind; seen: string } | null {
  const name = path.split('/').pop() ?? '';
  const checks: Array<[RegExp, ExposureKind, (body: Buffer) => string | null]> = [
    [/^\.env(\.|$)/i, 'env', dotenv],
    [/\.sql(\.gz)?$|\.dump$/i, 'backup', (b) => sqlDump(b) ?? gzip(b)],
    // An archive is a backup only by its name: a linked release tarball or brochure.zip is not.
    [/(backup|bak|dump|db|database|sql|www|site|src|source|htdocs|public_html).*\.zip$/i, 'backup', zip],
    [/(backup|bak|dump|db|database|sql|www|site|src|source|htdocs|public_html).*\.(tar\.gz|tgz|gz)$/i, 'backup', gzip],
    [/\.(bak|old|orig|save|backup)$|~$/i, 'backup', (b) => phpSource(b) ?? sqlDump(b) ?? zip(b) ?? gzip(b)],
  ];
  for (const [pattern, kind, recognise] of checks) {
    if (!pattern.test(name)) continue;
    const seen = recognise(body);
    if (seen !== null) return { kind, seen };
  }
  return null;
}

const OWASP_CONFIG = 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/';

const EXPOSURE_RULES: Record<ExposureKind, Omit<CheckFinding, 'evidence' | 'threat' | 'cvssBase' | 'cvssVector' | 'cve'>> = {
  git: {
    ruleId: 'rampart:http-git-exposed',
    name: 'Git repository exposed',
    description: "The web server serves the site's .git directory: anyone can download the repository, with its full history, source code and any secret ever committed.",
    solution: 'Deploy without the .git directory, or deny every path under /.git/ in the web server configuration.',
    cwe: 'CWE-538',
    references: [`${OWASP_CONFIG}04-Review_Old_Backup_and_Unreferenced_Files_for_Sensitive_Information`, 'https://git-scm.com/docs/gitrepository-layout'],
  },
  env: {
    ruleId: 'rampart:http-env-exposed',
    name: 'Environment file (.env) exposed',
    description: 'The web server serves a .env file, which typically holds database passwords, API keys and application secrets.',
    solution: 'Keep .env files outside the document root and deny dot-files in the web server; rotate every secret the file held.',
    cwe: 'CWE-538',
    references: [`${OWASP_CONFIG}04-Review_Old_Backup_and_Unreferenced_Files_for_Sensitive_Information`],
  },
  backup: {
    ruleId: 'rampart:http-backup-exposed',
    name: 'Backup or dump file exposed',
    description: 'The web server serves a backup archive, a source backup or a database dump: source code, credentials or data for anyone who asks.',
    solution: 'Remove backups and dumps from the document root and keep them where the web server cannot serve them.',
    cwe: 'CWE-530',
    references: [`${OWASP_CONFIG}04-Review_Old_Backup_and_Unreferenced_Files_for_Sensitive_Information`],
  },
  'ds-store': {
    ruleId: 'rampart:http-ds-store-exposed',
    name: '.DS_Store file exposed',
    description: 'The web server serves a macOS .DS_Store file, which lists the names of the files in its directory, hidden ones included.',
    solution: 'Delete .DS_Store files from the document root and deny dot-files in the web server.',
    cwe: 'CWE-538',
    references: [`${OWASP_CONFIG}04-Review_Old_Backup_and_Unreferenced_Files_for_Sensitive_Information`],
  },
  'status-page': {
    ruleId: 'rampart:http-status-page-exposed',
    name: 'Server status page exposed',
    description: 'A server status page is open to anyone. Apache mod_status and PHP-FPM status show the URLs being requested (with their query strings) and client addresses; nginx stub_status shows traffic counters only.',
    solution: 'Restrict status pages to the monitoring hosts (e.g. `Require ip` / `allow ... ; deny all;`), or turn them off.',
    cwe: 'CWE-200',
    references: ['https://httpd.apache.org/docs/2.4/mod/mod_status.html', 'https://nginx.org/en/docs/http/ngx_http_stub_status_module.html'],
  },
  'server-info': {
    ruleId: 'rampart:http-server-info-exposed',
    name: 'Apache server-info page exposed',
    description: "Apache mod_info is open to anyone: it shows the server's whole configuration, module by module, with file paths, virtual hosts and access rules, a map for an attacker.",
    solution: 'Restrict /server-info to the administrators\' addresses (`Require ip ...`) or unload mod_info.',
    cwe: 'CWE-200',
    references: ['https://httpd.apache.org/docs/2.4/mod/mod_info.html'],
  },
  'tomcat-manager': {
    ruleId: 'rampart:http-tomcat-manager-exposed',
    name: 'Tomcat Manager reachable',
    description: 'The Tomcat Manager application answers from the network. Whoever logs in to it deploys a WAR, that is, runs code on the server; it is a favourite target of password guessing and of default accounts (tomcat/tomcat, admin/admin).',
    solution: 'Keep the manager reachable from localhost only (the default RemoteAddrValve in META-INF/context.xml), or remove the manager and host-manager applications; never give manager roles weak passwords.',
    cwe: 'CWE-1188',
    references: ['https://tomcat.apache.org/tomcat-10.1-doc/manager-howto.html', 'https://tomcat.apache.org/tomcat-10.1-doc/security-howto.html'],
  },
  actuator: {
    ruleId: 'rampart:http-actuator-exposed',
    name: 'Spring Boot actuator endpoints exposed',
    description: 'The Spring Boot actuator publishes management endpoints beyond health and info. env and configprops show configuration (secrets where not masked), heapdump hands out the memory with its credentials and sessions, loggers, shutdown and jolokia change or stop the application.',
    solution: 'Expose only health (and info) over HTTP (`management.endpoints.web.exposure.include=health`), put the others behind authentication or on a management port reachable only internally.',
    cwe: 'CWE-200',
    references: ['https://docs.spring.io/spring-boot/reference/actuator/endpoints.html'],
  },
  'listing-sensitive-files': {
    ruleId: 'rampart:http-listing-sensitive-files',
    name: 'Directory listing shows sensitive-looking files',
    description: 'A directory listing shows files whose names suggest database dumps, backups, archives, keys, credentials or configuration. Judged on the names: what the listing shows is usually downloadable by anyone.',
    solution: 'Remove these files from the document root, turn automatic indexes off, and rotate any secret they held.',
    cwe: 'CWE-538',
    references: [`${OWASP_CONFIG}04-Review_Old_Backup_and_Unreferenced_Files_for_Sensitive_Information`, 'https://cwe.mitre.org/data/definitions/538.html'],
  },
  'directory-listing': {
    ruleId: 'rampart:http-directory-listing',
    name: 'Directory listing enabled',
    description: 'The web server generates an index of directories without an index page, revealing file names (backups, configuration, unlinked content) to anyone.',
    solution: 'Turn automatic indexes off (Apache `Options -Indexes`, nginx `autoindex off`), or add index pages.',
    cwe: 'CWE-548',
    references: [`${OWASP_CONFIG}04-Review_Old_Backup_and_Unreferenced_Files_for_Sensitive_Information`, 'https://cwe.mitre.org/data/definitions/548.html'],
  },
};

/** One exposure seen: where, what, and a threat when the page sets its own. */
export interface ExposureHit {
  kind: ExposureKind;
  path: string;
  seen: string;
  threat?: Threat;
  /** The status it answered with, when not 200 (a login challenge). */
  status?: number;
}

const THREAT_ORDER: readonly Threat[] = ['Informational', 'Low', 'Medium', 'High', 'Critical'];

/** The case of the severity table a kind with several rows is rated at when no page set its own threat. */
const DEFAULT_CASE: Partial<Record<ExposureKind, Threat>> = { 'status-page': 'Medium', 'tomcat-manager': 'Medium', actuator: 'High' };

/** A hit from what a probe's recogniser returned. */
export function exposureHit(kind: ExposureKind, path: string, recognised: Recognised, status = 200): ExposureHit {
  const base = typeof recognised === 'string' ? { kind, path, seen: recognised } : { kind, path, ...recognised };
  return status === 200 ? base : { ...base, status };
}

/** One finding per kind, listing every path of that kind that was exposed; its threat the highest of its hits. */
export function exposureFindings(hits: readonly ExposureHit[]): CheckFinding[] {
  const kinds = [...new Set(hits.map((hit) => hit.kind))];
  return kinds.map((kind) => {
    const ofKind = hits.filter((hit) => hit.kind === kind);
    const rule = EXPOSURE_RULES[kind];
    const threats = ofKind.map((hit) => hit.threat ?? DEFAULT_CASE[kind]).filter((threat): threat is Threat => threat !== undefined);
    const threat = threats.length === 0 ? undefined : threats.reduce((a, b) => (THREAT_ORDER.indexOf(b) > THREAT_ORDER.indexOf(a) ? b : a));
    return {
      ...rule,
      // The table has a row for every rule id and case used here (test/rampart-severity.test.ts).
      ...severityOf(rule.ruleId as RatedRuleId, threat as RatedThreat<RatedRuleId> | undefined),
      cve: [],
      evidence: ofKind.map((hit) => `GET ${hit.path} -> ${hit.status ?? 200}: ${hit.seen}`).join('; '),
    };
  });
}
