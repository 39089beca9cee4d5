/**
 * Where the store is, read from the environment alone. The CLI decides with it whether a running
 * server holds the embedded store (and so runs the command) before it loads anything heavier, such
 * as the full configuration; `loadConfig` validates the same two variables.
 */
import path from 'node:path';

/** The embedded store's directory when RAMPART_DATA_DIR is not set. */
export const DEFAULT_DATA_DIR = './data';

/** The data directory (absolute) and the PostgreSQL URL, if any. */
export function storeLocation(env: NodeJS.ProcessEnv = process.env): { dataDir: string; databaseUrl: string | undefined } {
  return { dataDir: path.resolve(env.RAMPART_DATA_DIR || DEFAULT_DATA_DIR), databaseUrl: env.DATABASE_URL || undefined };
}
