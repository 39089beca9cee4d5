/**
 * What replaying a login script needs on this machine, and whether it is there: Debian's Python
 * with Selenium (`python3-selenium`), Chromium (`chromium`) and its driver (`chromium-driver`).
 * Scan creation asks `loginScriptSupport` so that an authenticated scan this deployment cannot run
 * is refused up front, never accepted and failed on every run.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The programs a login runs; each has a default (Debian's paths). */
export interface LoginPrograms {
  /** A Python 3 with Selenium; default `/usr/bin/python3` (Debian's, where python3-selenium installs). */
  python?: string;
  chromium?: string;
  chromedriver?: string;
}

export const DEFAULT_PROGRAMS: Required<LoginPrograms> = {
  python: '/usr/bin/python3',
  chromium: '/usr/bin/chromium',
  chromedriver: '/usr/bin/chromedriver',
};

/** The Debian packages to name when something is missing. */
export const LOGIN_PACKAGES = 'python3-selenium, chromium and chromium-driver';

export type LoginScriptSupport = { ok: true } | { ok: false; reason: string };

const cache = new Map<string, LoginScriptSupport>();

/**
 * Whether login scripts can run here (cached per set of programs: the check imports Selenium once,
 * about a second). The reason names what is missing and the Debian packages that bring it.
 */
export function loginScriptSupport(programs: LoginPrograms = {}): LoginScriptSupport {
  const { python, chromium, chromedriver } = { ...DEFAULT_PROGRAMS, ...programs };
  const key = JSON.stringify([python, chromium, chromedriver]);
  let support = cache.get(key);
  if (!support) {
    support = checkSupport(python, chromium, chromedriver);
    cache.set(key, support);
  }
  return support;
}

function checkSupport(python: string, chromium: string, chromedriver: string): LoginScriptSupport {
  const missing: string[] = [];
  if (!isExecutable(python)) missing.push(`Python (${python}, RAMPART_PYTHON)`);
  else {
    const probe = spawnSync(python, ['-c', 'import selenium'], { encoding: 'utf8', timeout: 30_000, env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' } });
    if (probe.status !== 0) missing.push(`Selenium for ${python}`);
  }
  if (!isExecutable(chromium)) missing.push(`Chromium (${chromium})`);
  if (!isExecutable(chromedriver)) missing.push(`ChromeDriver (${chromedriver})`);
  try {
    runnerPath();
  } catch {
    missing.push("Rampart's own assets/login-runner.py (reinstall Rampart)");
  }
  if (missing.length === 0) return { ok: true };
  return {
    ok: false,
    reason: `Authenticated ZAP scans replay the login script in a headless Chromium, and this deployment lacks ${missing.join(', ')}: install the Debian packages ${LOGIN_PACKAGES}.`,
  };
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The runner's path: `assets/login-runner.py` at the package root, found by walking up from this
 * module, so that the src/ (tsx) and dist/ builds find the same file (tsc does not copy .py files).
 */
export function runnerPath(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'assets', 'login-runner.py');
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`assets/login-runner.py not found above ${fileURLToPath(import.meta.url)}`);
  }
}

/**
 * The account a login script runs as when Rampart runs as root: `nobody`, so that the script can
 * read neither Rampart's data directory nor its process's environment (/proc/<pid>/environ), and
 * Chromium keeps its sandbox. Null when Rampart is not root (the script runs as Rampart's user) or
 * the machine has no `nobody`.
 */
export function unprivilegedAccount(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  let passwd: string;
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return null;
  }
  const fields = passwd.split('\n').find((line) => line.startsWith('nobody:'))?.split(':');
  const uid = Number(fields?.[2]);
  const gid = Number(fields?.[3]);
  return Number.isInteger(uid) && Number.isInteger(gid) && uid > 0 ? { uid, gid } : null;
}
