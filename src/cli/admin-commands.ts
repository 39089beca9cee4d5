/**
 * The administration commands (`rampart user ...`, `rampart key ...`, `rampart migrate`,
 * `rampart vulndb ...`), written
 * once against the store. The CLI runs them directly, or, when `rampart serve` holds the embedded
 * store, the server runs them for it (see admin-channel.ts).
 */
import { AppError, notFound } from '../shared/errors.js';
import { migrateToLatest, type Db, type Store } from '../db/database.js';
import { changeUserRole, createUser, findUserByEmail, toPublicUser } from '../accounts/users.service.js';
import { createApiKey, deleteApiKey, listApiKeys, toPublicApiKey } from '../accounts/api-keys.service.js';
import { syncVulnDb, vulnDbStatus } from '../vulndb/vulndb.service.js';
import type { AdminCommand, AdminContext, AdminResult } from './admin-types.js';
import { importResultsFile } from '../imports/imports.service.js';

/** One sync at a time per process: a second would download everything again beside the first. */
let syncing = false;

async function userByEmail(db: Db, email: string) {
  const user = await findUserByEmail(db, email);
  if (!user) throw notFound(`No account with email ${email}: create it with "rampart user create". Account`);
  return user;
}

/** Runs one admin command against the store; failures a person can fix are AppErrors. */
export async function runAdminCommand(store: Store, cmd: AdminCommand, context: AdminContext = {}): Promise<AdminResult> {
  const { db } = store;
  switch (cmd.command) {
    case 'migrate': {
      const applied = await migrateToLatest(store);
      return { lines: [applied.length ? `Applied migrations: ${applied.join(', ')}` : 'The store is up to date; no migrations to apply.'] };
    }
    case 'user.create': {
      const user = await createUser(db, { email: cmd.email, password: cmd.password, name: cmd.name, role: cmd.role, emailVerified: true });
      const pub = toPublicUser(user);
      return { lines: [`Created user ${pub.id}: ${pub.name} <${pub.email}>, role ${pub.role.name}.`, `Next: rampart key create --email ${pub.email}`] };
    }
    case 'user.role': {
      const user = await userByEmail(db, cmd.email);
      const changed = await changeUserRole(db, user.id, cmd.role);
      return { lines: [changed.role === user.role ? `${changed.email} already has the role ${changed.role}.` : `Changed the role of ${changed.email} from ${user.role} to ${changed.role}.`] };
    }
    case 'key.create': {
      const user = await userByEmail(db, cmd.email);
      const created = await createApiKey(db, user.id, cmd.name ?? 'default');
      return {
        lines: [
          `Created API key "${created.record.name}" (${created.record.prefix}) for ${user.email}.`,
          'This is the only time the key is shown; store it now. Exchange it with POST /api/token?key=<key>.',
          created.key,
        ],
      };
    }
    case 'key.list': {
      const user = await userByEmail(db, cmd.email);
      const keys = (await listApiKeys(db, user.id)).map(toPublicApiKey);
      if (keys.length === 0) return { lines: [`${user.email} has no API keys.`] };
      return {
        lines: [
          'PREFIX        NAME                  CREATED                   LAST USED',
          ...keys.map((k) => `${k.prefix.padEnd(13)} ${k.name.slice(0, 20).padEnd(21)} ${k.created_at.padEnd(25)} ${k.last_used_at ?? 'never'}`),
        ],
      };
    }
    case 'key.delete': {
      const user = await userByEmail(db, cmd.email);
      const deleted = await deleteApiKey(db, user.id, cmd.key);
      return { lines: [`Deleted API key "${deleted.name}" (${deleted.prefix}); it can no longer be exchanged for tokens.`] };
    }
    case 'vulndb.sync': {
      if (syncing) throw new AppError('conflict', 'A vulnerability-database sync is already running in this server; wait for it to finish.');
      syncing = true;
      try {
        const result = await syncVulnDb(db, {
          sources: cmd.sources,
          ...(cmd.full ? { full: true } : {}),
          ...(cmd.retries !== undefined ? { retries: cmd.retries } : {}),
          ...(cmd.timeoutSeconds !== undefined ? { timeoutMs: cmd.timeoutSeconds * 1000 } : {}),
          ...(context.signal ? { signal: context.signal } : {}),
          onProgress: (message) => context.progress?.(message),
        });
        return { lines: [`Vulnerability database synced: ${result.cves} NVD records, ${result.kev} KEV entries, ${result.epss} EPSS scores.`] };
      } finally {
        syncing = false;
      }
    }
    case 'import': {
      if (!context.config) throw new AppError('internal', 'The import command needs the configuration.');
      const silent = { info() {}, warn() {}, error() {} };
      const outcome = await importResultsFile({ db, config: context.config, log: context.log ?? silent }, cmd.scan, cmd.file);
      const { hostsUp, hostsDown, findings } = outcome;
      return { lines: [`Imported ${cmd.file} (${outcome.engine.name} ${outcome.engine.version}) as run ${outcome.runIndex}: ${findings} finding${findings === 1 ? '' : 's'}, ${hostsUp} host${hostsUp === 1 ? '' : 's'} up, ${hostsDown} down.`] };
    }
    case 'vulndb.status': {
      const status = await vulnDbStatus(db);
      const when = (at: Date | null) => (at ? `synced ${at.toISOString()}` : 'never synced');
      return {
        lines: [
          `NVD: ${status.cves} CVE records, ${status.cpeMatches} CPE match criteria, ${when(status.syncedAt.nvd)}`,
          `KEV: ${status.kev} entries, ${when(status.syncedAt.kev)}`,
          `EPSS: ${status.epss} scores, ${when(status.syncedAt.epss)}`,
        ],
      };
    }
    default:
      throw new AppError('bad_request', 'Unknown admin command.');
  }
}
