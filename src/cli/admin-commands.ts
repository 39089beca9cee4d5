/**
 * The administration commands (`rampart user ...`, `rampart key ...`, `rampart migrate`), written
 * once against the store. The CLI runs them directly, or, when `rampart serve` holds the embedded
 * store, the server runs them for it (see admin-channel.ts).
 */
import { AppError, notFound } from '../shared/errors.js';
import { migrateToLatest, type Db, type Store } from '../db/database.js';
import { changeUserRole, createUser, findUserByEmail, toPublicUser } from '../accounts/users.service.js';
import { createApiKey, deleteApiKey, listApiKeys, toPublicApiKey } from '../accounts/api-keys.service.js';
import { loadConfig, type Config } from '../config.js';
import { DEFAULT_SOURCES, syncVulnDb } from '../vulndb/vulndb.service.js';

export type AdminCommand =
  | { command: 'migrate' }
  | { command: 'user.create'; email: string; password: string; name?: string | undefined; role?: string | undefined }
  | { command: 'user.role'; email: string; role: string }
  | { command: 'key.create'; email: string; name?: string | undefined }
  | { command: 'key.list'; email: string }
  | { command: 'key.delete'; email: string; key: string }
  | { command: 'vulndb.sync'; full?: boolean | undefined };

/** What a command may use besides the store: configuration and a progress sink for long jobs. */
export interface AdminContext {
  config?: Config;
  progress?: (message: string) => void;
}

/** What a command prints: lines for stdout; the last line of key.create is the key alone. */
export interface AdminResult {
  lines: string[];
}

async function userByEmail(db: Db, email: string) {
  const user = await findUserByEmail(db, email);
  if (!user) throw notFound(`No account with email ${email}: create it with "rampart user create". Account`);
  return user;
}

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
      const { vulndb } = context.config ?? loadConfig();
      const result = await syncVulnDb(db, {
        sources: {
          nvdBaseUrl: vulndb.nvdUrl ?? DEFAULT_SOURCES.nvdBaseUrl,
          kevUrl: vulndb.kevUrl ?? DEFAULT_SOURCES.kevUrl,
          epssUrl: vulndb.epssUrl ?? DEFAULT_SOURCES.epssUrl,
          ...(vulndb.nvdApiKey ? { nvdApiKey: vulndb.nvdApiKey } : {}),
        },
        ...(cmd.full ? { full: true } : {}),
        onProgress: (message) => context.progress?.(message),
      });
      return { lines: [`Vulnerability database synced: ${result.cves} NVD records, ${result.kev} KEV entries, ${result.epss} EPSS scores.`] };
    }
    default:
      throw new AppError('bad_request', 'Unknown admin command.');
  }
}
