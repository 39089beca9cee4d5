/** Runs the real `rampart` command as a child process. */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { findFreeLoopbackPort } from '../../src/shared/free-port.js';

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/rampart.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** How to start the command: node itself, or through sh with a umask set first. */
function command(args: string[], options: ProcessOptions): [string, string[]] {
  if (options.umask === undefined) return [process.execPath, [BIN, ...args]];
  return ['/bin/sh', ['-c', `umask ${options.umask.toString(8).padStart(3, '0')}; exec "$0" "$@"`, process.execPath, BIN, ...args]];
}

export interface ProcessOptions {
  /** The umask the process starts with (an operator's shell may have 0). */
  umask?: number;
}

export function runCli(args: string[], env: Record<string, string | undefined>, options: ProcessOptions = {}): Promise<CliResult> {
  const [file, argv] = command(args, options);
  return new Promise((resolve) => {
    execFile(file, argv, { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A port that was free a moment ago. */
export const freePort = findFreeLoopbackPort;

export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  /** Every log line so far, parsed. */
  logs: Record<string, unknown>[];
  /** Resolves with the first log line (present or future) that satisfies the predicate. */
  waitForLog(predicate: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
  /** Everything written to stderr so far. */
  stderr(): string;
}

export function startServe(t: TestContext, env: Record<string, string | undefined>, options: ProcessOptions = {}): ServeProcess {
  return startRampart(t, ['serve'], env, options);
}

/** How long a test waits for a log line before failing: generous for a loaded CI machine. */
const LOG_WAIT_MS = 180_000;

/** Starts `rampart <args>` as a long-running process whose JSON log lines are collected. */
export function startRampart(t: TestContext, args: string[], env: Record<string, string | undefined>, options: ProcessOptions = {}): ServeProcess {
  const [file, argv] = command(args, options);
  const child = spawn(file, argv, { env: { ...process.env, ...env } });
  const logs: Record<string, unknown>[] = [];
  const waiters: { predicate: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] = [];
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  createInterface({ input: child.stdout }).on('line', (text) => {
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text) as Record<string, unknown>;
    } catch {
      line = { msg: text };
    }
    logs.push(line);
    for (const w of [...waiters]) {
      if (w.predicate(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  // 'close': the process has exited and its output has all been read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  t.after(async () => {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return {
    child,
    logs,
    exited,
    stderr: () => stderr,
    waitForLog(predicate) {
      const found = logs.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        // A bound, not a synchronisation: a line that never comes fails the test instead of hanging the suite.
        const timer = setTimeout(() => reject(new Error(`no such log line within ${LOG_WAIT_MS / 1000} s; last lines: ${JSON.stringify(logs.slice(-5))}`)), LOG_WAIT_MS);
        timer.unref();
        waiters.push({ predicate, resolve: (line) => { clearTimeout(timer); resolve(line); } });
        void exited.then((code) => reject(new Error(`rampart serve exited (${code}) before the expected log line. stderr: ${stderr}`)));
      });
    },
  };
}
