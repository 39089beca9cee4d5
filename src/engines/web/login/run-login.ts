/**
 * Replays a scan's login script (contract.ts `LoginRunner`; the contract for script authors is
 * docs/login-scripts.md). Each login:
 * - writes the script into a fresh private temporary directory, which is the child's cwd, HOME and
 *   TMPDIR, and is removed afterwards;
 * - starts the egress proxy (src/shared/egress-proxy.ts) for the login only, so that the browser
 *   reaches only what the run's address guard allows, loopback included;
 * - runs assets/login-runner.py with Debian's Python: one headless Chromium through that proxy,
 *   the script, then the browser's cookies and the page's storage written to a result file;
 * - gives the child a minimal environment (PATH, HOME, LANG, TMPDIR, TARGET_URL): none of
 *   Rampart's settings or secrets; when Rampart runs as root, the child runs as `nobody`, so that
 *   it cannot read them elsewhere either (the data directory, /proc/<pid>/environ);
 * - kills the child with everything it started on timeout or abort.
 *
 * The shape: `createLoginRunner` takes what is fixed for a deployment (the time limit,
 * the programs) and returns the contract's `LoginRunner`, called with the run's egress before the crawl
 * and again when the session is lost.
 *
 * The script is code run on the worker: only its browser's traffic goes through the guard.
 */
import { constants as fsConstants, readFileSync } from 'node:fs';
import { chown, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EngineError } from '../../engine.js';
import type { Egress } from '../../../shared/egress.js';
import { startEgressProxy } from '../../../shared/egress-proxy.js';
import type { LoginRunner, LoginSession } from '../contract.js';
import { runChild, type ChildOutcome } from './child-process.js';
import { toLoginSession, type BrowserState } from './session.js';
import { DEFAULT_PROGRAMS, LOGIN_PACKAGES, runnerPath, unprivilegedAccount, type LoginPrograms } from './support.js';

export interface LoginRunnerOptions extends LoginPrograms {
  /** Time limit of one login (browser start included). */
  timeoutMs: number;
  /**
   * Where each login's private directory is made; default the system's temporary directory. When
   * Rampart runs as root the script runs as `nobody`, who must be able to traverse it.
   */
  tempRoot?: string;
}

/** The script's own error output kept in the run's error: its last ~2 KB. */
const ERROR_OUTPUT_BYTES = 2048;
/** The runner's exit codes (assets/login-runner.py). */
const EXIT = { scriptFailed: 1, noSelenium: 3, noBrowser: 4 } as const;
const SCRIPT_NAME = 'login_script.py';

/** The login runner of a deployment (the runner asset and the account are read at the first login, not at start-up). */
export function createLoginRunner(options: LoginRunnerOptions): LoginRunner {
  const programs = { ...DEFAULT_PROGRAMS, ...pickPrograms(options) };
  let prepared: { runnerSource: string; account: ReturnType<typeof unprivilegedAccount> } | undefined;
  return async ({ script, startUrl, signal, egress }) => {
    if (signal.aborted) throw new EngineError('deadline', 'The login script was not run: the scan was stopped.');
    // Copied into each login's directory: `nobody` may not be able to read Rampart's install directory.
    prepared ??= { runnerSource: readFileSync(runnerPath(), 'utf8'), account: unprivilegedAccount() };
    const { runnerSource, account } = prepared;
    const dir = await mkdtemp(path.join(options.tempRoot ?? os.tmpdir(), 'rampart-login-'));
    try {
      const scriptFile = path.join(dir, SCRIPT_NAME);
      const runnerFile = path.join(dir, 'login-runner.py');
      const resultFile = path.join(dir, 'session.json');
      await writeFile(scriptFile, script, { mode: 0o600 });
      await writeFile(runnerFile, runnerSource, { mode: 0o600 });
      if (account) {
        for (const file of [dir, scriptFile, runnerFile]) await chown(file, account.uid, account.gid);
      }
      const proxy = await startEgressProxy({ egress });
      let outcome: ChildOutcome;
      try {
        const config = {
          script: scriptFile,
          result: resultFile,
          target_url: startUrl,
          proxy: proxy.url,
          profile: path.join(dir, 'profile'),
          chromium: programs.chromium,
          chromedriver: programs.chromedriver,
          // Chromium refuses its sandbox to root (root without a `nobody` account to drop to).
          no_sandbox: process.getuid?.() === 0 && !account,
        };
        outcome = await runChild({
          program: programs.python,
          args: [runnerFile, JSON.stringify(config)],
          cwd: dir,
          env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: dir, TMPDIR: dir, LANG: 'C.UTF-8', TARGET_URL: startUrl },
          timeoutMs: options.timeoutMs,
          signal,
          tailBytes: ERROR_OUTPUT_BYTES,
          account,
        });
      } catch (error) {
        throw new EngineError('config', `The login script could not be started with ${programs.python}: ${(error as Error).message}. Install the Debian packages ${LOGIN_PACKAGES}, or set RAMPART_PYTHON.`, { cause: error });
      } finally {
        await proxy.close();
      }
      judgeOutcome(outcome, options.timeoutMs, programs.python);
      // Awaited here, not returned: the directory is removed only once the session is read.
      return await readSession(resultFile, startUrl);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}

function pickPrograms(options: LoginPrograms): LoginPrograms {
  const out: LoginPrograms = {};
  if (options.python) out.python = options.python;
  if (options.chromium) out.chromium = options.chromium;
  if (options.chromedriver) out.chromedriver = options.chromedriver;
  return out;
}

/** Throws the EngineError an unsuccessful run of the runner means. */
function judgeOutcome(outcome: ChildOutcome, timeoutMs: number, python: string): void {
  const output = (outcome.stderr.trim() || outcome.stdout.trim()).replace(/\s+$/, '');
  if (outcome.killed === 'aborted') throw new EngineError('deadline', 'The login script was stopped: the scan was stopped.');
  if (outcome.killed === 'timeout') {
    throw new EngineError('config', `The login script did not finish within ${Math.round(timeoutMs / 1000)} s (RAMPART_LOGIN_SCRIPT_TIMEOUT_SECONDS) and was killed with its browser.${output ? ` Its last output:\n${output}` : ''}`);
  }
  if (outcome.code === 0) return;
  const sentence = output.replace(/\.?$/, '.');
  if (outcome.code === EXIT.noSelenium) throw new EngineError('config', `The login script cannot run: ${sentence} Install the Debian packages ${LOGIN_PACKAGES}, or set RAMPART_PYTHON.`);
  if (outcome.code === EXIT.noBrowser) throw new EngineError('config', `The login script cannot run: ${sentence} Install the Debian packages ${LOGIN_PACKAGES}.`);
  if (outcome.code === EXIT.scriptFailed) throw new EngineError('config', `The login script failed:\n${output || '(no error output)'}`);
  const end = outcome.code === null ? `was killed by ${outcome.exitSignal ?? 'a signal'}` : `exited with code ${outcome.code}`;
  throw new EngineError('config', `The login runner (${python}) ${end}:\n${output || '(no error output)'}`);
}

async function readSession(resultFile: string, startUrl: string): Promise<LoginSession> {
  let state: BrowserState;
  try {
    state = JSON.parse(await readResultFile(resultFile)) as BrowserState;
  } catch (error) {
    // The file is written where the user's script runs: its content (or what it points at) is never echoed.
    throw new EngineError('config', 'The login runner ended without a readable session: the login script must leave session.json to the runner.', { cause: error });
  }
  const session = toLoginSession(state, startUrl);
  if (session.cookies.length === 0 && !session.headers.authorization) {
    const elsewhere = state.cookies.length > 0 ? ` (the browser holds ${state.cookies.length} cookie(s), none for ${new URL(startUrl).hostname})` : '';
    throw new EngineError(
      'config',
      `The login script ran but produced no session (no cookies, no token)${elsewhere}; it ended on ${state.url}. Check that it submits the login form and waits for the signed-in page.`,
    );
  }
  return session;
}

/** The session file is at most this large: cookies and storage of one page. */
const MAX_RESULT_BYTES = 1024 * 1024;

/**
 * Reads the runner's session file, which the user's script could have replaced: a symbolic link
 * is not followed, a FIFO or device does not block nor stream for ever, and the size is capped.
 */
async function readResultFile(file: string): Promise<string> {
  const handle = await open(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error('not a regular file');
    if (stat.size > MAX_RESULT_BYTES) throw new Error('too large');
    const buffer = Buffer.alloc(stat.size);
    const { bytesRead } = await handle.read(buffer, 0, stat.size, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
