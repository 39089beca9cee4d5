/**
 * The files and pages the HTTP check asks for, and how each is recognised. A path counts as
 * exposed only on a 200 whose body carries the file's own signature (never on status alone:
 * many applications answer 200 to every path) and differs from the site's catch-all page.
 * Evidence never copies secrets: `.env` values and `.git/config` contents are summarised.
 */
import type { CheckFinding } from './check.js';
import { severityOf, type RatedRuleId } from '../severity.js';

/** The kinds of exposure, one rule id each. */
export type ExposureKind = 'git' | 'env' | 'backup' | 'ds-store' | 'status-page' | 'directory-listing';

/** One path to ask for, and how to recognise the file that should not be there. */
export interface ExposureProbe {
  kind: ExposureKind;
  path: string;
  /** A safe one-line description of what the body showed, or null when it is not this file. */
  recognise(body: Buffer): string | null;
}

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

/** Apache mod_status, nginx stub_status or PHP-FPM status; the label says which. */
export const statusPage = (body: Buffer): string | null => {
  const content = text(body);
  if (/Apache Server Status for|Server uptime:[\s\S]*Total accesses:/i.test(content)) return 'Apache mod_status page';
  if (/Active connections:\s*\d+\s*\n\s*server accepts handled requests/i.test(content)) return 'nginx stub_status page';
  if (/^pool:\s+\S+[\s\S]*^process manager:/m.test(content)) return 'PHP-FPM status page';
  return null;
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

/** Every path probed after `GET /`, in order; at most a dozen requests. */
export const EXPOSURE_PROBES: readonly ExposureProbe[] = [
  { kind: 'git', path: '/.git/HEAD', recognise: gitHead },
  { kind: 'git', path: '/.git/config', recognise: gitConfig },
  { kind: 'env', path: '/.env', recognise: dotenv },
  { kind: 'backup', path: '/backup.zip', recognise: magic([0x50, 0x4b, 0x03, 0x04], 'ZIP archive') },
  { kind: 'backup', path: '/backup.tar.gz', recognise: magic([0x1f, 0x8b], 'gzip archive') },
  { kind: 'backup', path: '/index.php.bak', recognise: phpSource },
  { kind: 'backup', path: '/db.sql', recognise: sqlDump },
  { kind: 'ds-store', path: '/.DS_Store', recognise: magic([0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31], 'macOS .DS_Store file') },
  { kind: 'status-page', path: '/server-status', recognise: statusPage },
  { kind: 'status-page', path: '/nginx_status', recognise: statusPage },
  { kind: 'status-page', path: '/status', recognise: statusPage },
  { kind: 'directory-listing', path: '/uploads/', recognise: directoryListing },
  { kind: 'directory-listing', path: '/files/', recognise: directoryListing },
];

const OWASP_CONFIG = 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/';

const EXPOSURE_RULES: Record<ExposureKind, Omit<CheckFinding, 'evidence' | 'threat' | 'cvssBase' | 'cvssVector' | 'cve'> & { ruleId: RatedRuleId }> = {
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
  'directory-listing': {
    ruleId: 'rampart:http-directory-listing',
    name: 'Directory listing enabled',
    description: 'The web server generates an index of directories without an index page, revealing file names (backups, configuration, unlinked content) to anyone.',
    solution: 'Turn automatic indexes off (Apache `Options -Indexes`, nginx `autoindex off`), or add index pages.',
    cwe: 'CWE-548',
    references: [`${OWASP_CONFIG}04-Review_Old_Backup_and_Unreferenced_Files_for_Sensitive_Information`, 'https://cwe.mitre.org/data/definitions/548.html'],
  },
};

/** One finding per kind, listing every path of that kind that was exposed. */
export function exposureFindings(hits: ReadonlyArray<{ kind: ExposureKind; path: string; seen: string }>): CheckFinding[] {
  const kinds = [...new Set(hits.map((hit) => hit.kind))];
  return kinds.map((kind) => {
    const ofKind = hits.filter((hit) => hit.kind === kind);
    const rule = EXPOSURE_RULES[kind];
    // nginx stub_status alone shows counters only.
    const level = kind === 'status-page' ? (ofKind.every((hit) => hit.seen.startsWith('nginx')) ? 'Low' : 'Medium') : undefined;
    return {
      ...rule,
      ...severityOf(rule.ruleId, level as never),
      cve: [],
      evidence: ofKind.map((hit) => `GET ${hit.path} -> 200: ${hit.seen}`).join('; '),
    };
  });
}
