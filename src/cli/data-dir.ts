/**
 * The data directory holds the embedded store (with the generated JWT signing key), mail with
 * one-time codes, ZAP login scripts, the lock and the admin socket: only the account running
 * Rampart may read or write any of it. Every process that writes there calls
 * `secureDataDir` before creating anything.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Group and other permission bits. */
const GROUP_OTHER = 0o077;

/**
 * Removes group and other bits from every file and directory under `dir`. Symbolic links are left
 * alone, and so are entries that vanish meanwhile or belong to another account (not ours to change).
 */
function tightenTree(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    try {
      const mode = fs.lstatSync(file).mode;
      if ((mode & GROUP_OTHER) !== 0) fs.chmodSync(file, mode & 0o7700);
      if (entry.isDirectory()) tightenTree(file);
    } catch (error) {
      if (!['ENOENT', 'EPERM', 'EACCES'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
  }
}

/**
 * Makes every file and directory this process creates from now on private to its owner (umask
 * 077), for files made by libraries too. Then creates the data directory 0700 when `create` is
 * set and it is missing; refuses an existing one that group or others may enter unless
 * `allowInsecure` (RAMPART_ALLOW_INSECURE_DATA_DIR) is set; and takes group and other access
 * from what an earlier version left inside a directory that is private already.
 */
export function secureDataDir(dataDir: string, options: { create: boolean; allowInsecure: boolean }): void {
  process.umask(GROUP_OTHER);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dataDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (options.create) fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    return;
  }
  if (!stat.isDirectory()) throw new Error(`RAMPART_DATA_DIR ${dataDir} is not a directory.`);
  if ((stat.mode & GROUP_OTHER) !== 0 && !options.allowInsecure) {
    const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
    throw new Error(
      `The data directory ${dataDir} is open to other users (mode ${mode}); it holds the store and its signing key. ` +
        `Run: chmod 700 '${dataDir}' (or chmod -R go= '${dataDir}' to tighten the files inside too), ` +
        'or set RAMPART_ALLOW_INSECURE_DATA_DIR=true to start anyway.',
    );
  }
  if ((stat.mode & GROUP_OTHER) === 0) tightenTree(dataDir);
}
