/**
 * rsync daemon module listing: answer the `@RSYNCD: <version> [digests]` greeting in kind,
 * send `#list`, and read module lines until `@RSYNCD: EXIT`. Any module listed tells an attacker
 * what to fetch (and modules without `auth users` can be downloaded outright).
 */
import type { Check, CheckFinding, Endpoint, ServiceInfo } from './check.js';
import { withSession } from '../protocols/session.js';
import { printable } from './evidence.js';
import { severityOf } from '../severity.js';

/** Lines of the listing read at most (a message of the day may precede the modules). */
const MAX_LIST_LINES = 500;
const MAX_NAMES_IN_EVIDENCE = 20;

/** The rsync check: applies to `rsync`. */
export const rsyncModulesCheck: Check = {
  id: 'rsync-modules',
  appliesTo: (service: ServiceInfo) => service.name === 'rsync' && !service.tls,
  run: (endpoint: Endpoint) =>
    withSession(endpoint, {}, [] as CheckFinding[], async (session) => {
      const greeting = await session.readLine(256);
      // `@RSYNCD: 31.0`, or since protocol 32 `@RSYNCD: 32.0 sha512 sha256 ...`: a protocol-32
      // server drops a client that omits the digest list, so we answer with its own line.
      const hello = greeting === null ? null : /^@RSYNCD: \d+\.\d+(?: [\w.-]+)*$/.exec(greeting.trim())?.[0];
      if (!hello) return [];
      session.write(`${hello}\n#list\n`);
      const modules: { name: string; comment: string }[] = [];
      for (let i = 0; i < MAX_LIST_LINES; i++) {
        const line = await session.readLine(1024);
        if (line === null || line.startsWith('@RSYNCD: EXIT') || line.startsWith('@ERROR')) break;
        // Module lines are `name<spaces>\tcomment`; a message of the day has no tab.
        const tab = line.indexOf('\t');
        if (tab > 0 && line.slice(0, tab).trim()) modules.push({ name: line.slice(0, tab).trim(), comment: line.slice(tab + 1).trim() });
      }
      if (modules.length === 0) return [];
      const shown = modules
        .slice(0, MAX_NAMES_IN_EVIDENCE)
        .map((m) => (m.comment ? `${m.name} (${m.comment})` : m.name))
        .join(', ');
      return [
        {
          ruleId: 'rampart:rsync-modules-listed',
          name: 'rsync daemon lists its modules to anyone',
          description:
            'The rsync daemon answers an unauthenticated #list request with its modules. This maps what the server shares, and modules without "auth users" can be downloaded (or, if not read only, written) by anyone.',
          solution:
            'Set "list = no" on modules that are not public, require "auth users" with a secrets file for private modules, restrict "hosts allow", and firewall port 873 or tunnel rsync over SSH.',
          ...severityOf('rampart:rsync-modules-listed'),
          cve: [],
          cwe: 'CWE-200',
          evidence: printable(`Greeting ${greeting}; #list returned ${modules.length} module(s): ${shown}${modules.length > MAX_NAMES_IN_EVIDENCE ? ', ...' : ''}.`, 600),
          references: ['https://download.samba.org/pub/rsync/rsyncd.conf.5', 'https://cwe.mitre.org/data/definitions/200.html'],
        },
      ];
    }),
};
