/** Runs the local agent as users do: one file, `node agent.js`, in an empty directory. */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { AgentConfig } from '../../src/shared/agent-protocol.js';

/** The bundle `npm run build` writes (dist/test/helpers -> dist/agent). */
export const AGENT_BUNDLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../agent/agent.cjs');

/** The downloaded file's shape, for tests that play the service themselves: the bundle's shebang, the config line, the rest. */
export function agentFileText(config: AgentConfig, bundle: string): string {
  const shebang = bundle.startsWith('#!') ? bundle.slice(0, bundle.indexOf('\n') + 1) : '';
  return `${shebang}globalThis.RAMPART_AGENT = ${JSON.stringify(config)};\n${bundle.slice(shebang.length)}`;
}

export interface AgentProcess {
  child: ChildProcess;
  /** Every stdout line so far. */
  lines: string[];
  /** Resolves with the first line (present or future) that matches. */
  waitForLine(pattern: RegExp): Promise<string>;
  /** The exit code (null when killed by a signal) once stdout is read to its end. */
  exited: Promise<number | null>;
  output(): string;
}

/** How long a test waits for a line of the agent's before failing instead of hanging. */
const LINE_WAIT_MS = 180_000;

/**
 * Starts `node agent.js args` with `cwd` the file's directory; `prefix` runs it through another
 * program first (`ip netns exec <ns>`). The process is killed after the test if still running.
 */
export function startAgent(t: { after(fn: () => Promise<void> | void): void }, file: string, args: string[] = [], prefix: string[] = []): AgentProcess {
  const command = [...prefix, process.execPath, path.basename(file), ...args];
  const child = spawn(command[0]!, command.slice(1), { cwd: path.dirname(file), stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
  const lines: string[] = [];
  let stderr = '';
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const output = () => `${lines.join('\n')}\n${stderr}`;
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return {
    child,
    lines,
    exited,
    output,
    waitForLine(pattern) {
      const found = lines.find((line) => pattern.test(line));
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        // A bound, not a synchronisation: a line that never comes fails the test.
        const timer = setTimeout(() => reject(new Error(`the agent printed no line matching ${pattern} within ${LINE_WAIT_MS / 1000} s:\n${output()}`)), LINE_WAIT_MS);
        timer.unref();
        waiters.push({ pattern, resolve: (line) => { clearTimeout(timer); resolve(line); } });
        void exited.then((code) => reject(new Error(`the agent exited (${code}) before printing a line matching ${pattern}:\n${output()}`)));
      });
    },
  };
}

/** Writes `text` as agent.js in `dir` and returns its path. */
export async function writeAgentFile(dir: string, text: string | Buffer): Promise<string> {
  const file = path.join(dir, 'agent.js');
  await writeFile(file, text);
  return file;
}
