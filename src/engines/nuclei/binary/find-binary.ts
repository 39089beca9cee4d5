/**
 * Finding the nuclei program and asking its version. The deployment names it
 * (RAMPART_NUCLEI_BIN: a path, or a name looked up on PATH) or it is `nuclei` on PATH; it must be
 * an executable file. `nuclei -version` prints `Nuclei Engine Version: v3.x.y` (to stderr).
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** How long `nuclei -version` may take (it starts fast, but reads its config). */
const VERSION_TIMEOUT_MS = 15_000;

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The absolute path of the program, or a reason it is not there. */
export function findNucleiBinary(configured: string | undefined, env: NodeJS.ProcessEnv = process.env): { path: string } | { reason: string } {
  const name = configured ?? 'nuclei';
  if (name.includes('/')) {
    const file = path.resolve(name);
    return isExecutableFile(file) ? { path: file } : { reason: `RAMPART_NUCLEI_BIN=${name} is not an executable file.` };
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const file = path.resolve(dir, name);
    if (isExecutableFile(file)) return { path: file };
  }
  return { reason: `${configured ? `RAMPART_NUCLEI_BIN=${name}` : 'the `nuclei` program'} was not found on PATH.` };
}

/**
 * The version `nuclei -version` reports (e.g. `3.4.10`); throws when the program does not run.
 * The signal's abort ends the program at once and resolves undefined.
 */
export function readNucleiVersion(bin: string, signal?: AbortSignal): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    execFile(bin, ['-version'], { timeout: VERSION_TIMEOUT_MS, maxBuffer: 1024 * 1024, ...(signal ? { signal } : {}) }, (error, stdout, stderr) => {
      if (signal?.aborted) return resolve(undefined);
      const output = `${stdout}\n${stderr}`;
      const version = /Engine Version:?\s*v?(\d+\.\d+[\w.+-]*)/i.exec(output)?.[1] ?? /\bv(\d+\.\d+\.\d+[\w.+-]*)/.exec(output)?.[1];
      if (version) return resolve(version);
      if (error) return reject(new Error(`\`${bin} -version\` failed: ${error.killed ? `no answer within ${VERSION_TIMEOUT_MS / 1000} s` : error.message.split('\n')[0]}`));
      resolve('unknown');
    });
  });
}
