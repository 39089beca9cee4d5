/**
 * The shapes of admin commands, their context and their answers: types only, so the CLI's admin
 * channel client can name them without loading the commands (and the store) themselves.
 */
import type { Config } from '../config.js';
import type { Logger } from '../shared/logger.js';
import type { VulnDbSources } from '../vulndb/sources.js';

export type AdminCommand =
  | { command: 'migrate' }
  | { command: 'user.create'; email: string; password: string; name?: string | undefined; role?: string | undefined }
  | { command: 'user.role'; email: string; role: string }
  | { command: 'key.create'; email: string; name?: string | undefined }
  | { command: 'key.list'; email: string }
  | { command: 'key.delete'; email: string; key: string }
  /**
   * `sources` are the CLI's (its environment's RAMPART_NVD_URL, ... and NVD API key), so a sync
   * run by the server for the CLI downloads what the person running the CLI asked for.
   */
  | { command: 'vulndb.sync'; sources: VulnDbSources; full?: boolean | undefined; retries?: number | undefined; timeoutSeconds?: number | undefined }
  | { command: 'vulndb.status' }
  /** `file` is an absolute path, read by whichever process runs the command (same host). */
  | { command: 'import'; scan: string; file: string };

/** What a command may use besides the store: a progress sink and a cancel signal. */
export interface AdminContext {
  progress?: (message: string) => void;
  signal?: AbortSignal;
  /** The configuration of the process running the command (imports need the upload limit). */
  config?: Config;
  log?: Logger;
}

/** What a command prints: lines for stdout; the last line of key.create is the key alone. */
export interface AdminResult {
  lines: string[];
}
