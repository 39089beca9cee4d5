/**
 * The manifest `rampart templates sync` writes into the templates directory it installs: which
 * release, when, and what the signature check found. `rampart templates check` prints it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** The manifest's file name inside the templates directory (not a `.yaml`: the loader skips it). */
export const SYNC_MANIFEST = '.rampart-sync.json';

/** What a sync installed. */
export interface SyncManifest {
  /** The release's tag (`tag_name`), e.g. `v10.3.9`. */
  release: string;
  /** The archive it came from. */
  archiveUrl: string;
  /** SHA-256 of the archive as downloaded. */
  archiveSha256: string;
  syncedAt: string;
  /** `.yaml` files in the archive. */
  templates: number;
  /** Files ending in a digest line, and how many of them verified. */
  signed: number;
  verified: number;
  /** Signed templates that did not verify: left out of the installed set (paths relative to it). */
  removed: string[];
}

/** The manifest of a directory, or null when it has none (or an unreadable one). */
export async function readSyncManifest(directory: string): Promise<SyncManifest | null> {
  try {
    return JSON.parse(await readFile(path.join(directory, SYNC_MANIFEST), 'utf8')) as SyncManifest;
  } catch {
    return null;
  }
}
