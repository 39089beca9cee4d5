/**
 * The login runner's child process: its own process group (the browser and its driver are in it),
 * a time limit and the scan's abort signal, and a sweep that leaves no process behind. Chromium's
 * crash handler starts a session of its own, out of the group: every process of a run is found
 * instead by the run's private TMPDIR, which each descendant inherits in its environment.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';

export interface ChildOutcome {
  /** The exit code; null when killed. */
  code: number | null;
  /** Why we killed it, when we did. */
  killed: 'timeout' | 'aborted' | null;
  /** The signal that ended it, when one did (ours or another's, e.g. the OOM killer's). */
  exitSignal: NodeJS.Signals | null;
  /** The last bytes of stdout and stderr (at most `tailBytes` each). */
  stdout: string;
  stderr: string;
}

export interface ChildOptions {
  program: string;
  args: string[];
  cwd: string;
  /** The whole environment of the child (nothing of the parent's is added). Its TMPDIR marks the run's processes. */
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  tailBytes: number;
  /** Run as this account (Rampart as root drops to it). */
  account?: { uid: number; gid: number } | null;
}

/** Runs the child to its end (or kills it, and everything it started, on timeout or abort). */
export async function runChild(options: ChildOptions): Promise<ChildOutcome> {
  const child = spawn(options.program, options.args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.account ? { uid: options.account.uid, gid: options.account.gid } : {}),
  });
  const stdout = tail(options.tailBytes);
  const stderr = tail(options.tailBytes);
  child.stdout.on('data', stdout.add);
  child.stderr.on('data', stderr.add);
  const pipesClosed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let killed: ChildOutcome['killed'] = null;
  const kill = (why: 'timeout' | 'aborted'): void => {
    killed ??= why;
    killGroup(child.pid);
  };
  const timer = setTimeout(() => kill('timeout'), options.timeoutMs);
  const onAbort = (): void => kill('aborted');
  options.signal.addEventListener('abort', onAbort, { once: true });
  if (options.signal.aborted) onAbort();
  let swept = false;
  const sweep = async (): Promise<void> => {
    swept = true;
    killGroup(child.pid);
    await killMarked(options.env.TMPDIR);
  };
  try {
    const [code, exitSignal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (exitCode, endSignal) => resolve([exitCode, endSignal]));
    });
    // The browser normally quits with the runner; whatever is left (a hung browser, the crash
    // handler) is killed now, so that nothing holds the pipes and the output can be read to its end.
    await sweep();
    await settled(pipesClosed, PIPE_CLOSE_GRACE_MS);
    return { code: killed ? null : code, killed, exitSignal, stdout: stdout.text(), stderr: stderr.text() };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
    if (!swept) await sweep();
    child.stdout.destroy();
    child.stderr.destroy();
  }
}

/** How long the pipes may stay open once every process of the run was killed (a process that left the run's environment behind). */
const PIPE_CLOSE_GRACE_MS = 5000;

/** Resolves when `promise` does, or after `ms`. */
function settled(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([promise, elapsed]).finally(() => clearTimeout(timer));
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}

/** SIGKILLs every process whose environment holds `TMPDIR=<dir>` (Linux /proc; elsewhere nothing to do). */
export async function killMarked(dir: string | undefined): Promise<number> {
  if (!dir) return 0;
  const marker = Buffer.from(`TMPDIR=${dir}\0`);
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return 0;
  }
  let count = 0;
  await Promise.all(
    entries
      .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
      .map(async (name) => {
        let environ: Buffer;
        try {
          environ = await readFile(`/proc/${name}/environ`);
        } catch {
          return; // gone, or another user's
        }
        if (environ.subarray(0, marker.length).equals(marker) || environ.includes(Buffer.concat([Buffer.from([0]), marker]))) {
          try {
            process.kill(Number(name), 'SIGKILL');
            count++;
          } catch {
            // exited meanwhile
          }
        }
      }),
  );
  return count;
}

/** Keeps the last `max` bytes written. */
function tail(max: number): { add: (chunk: Buffer) => void; text: () => string } {
  let kept = Buffer.alloc(0);
  let dropped = false;
  return {
    add: (chunk) => {
      kept = Buffer.concat([kept, chunk]);
      if (kept.length > max) {
        kept = kept.subarray(kept.length - max);
        dropped = true;
      }
    },
    text: () => (dropped ? '…' : '') + kept.toString('utf8').replace(/^\uFFFD+/, ''),
  };
}
