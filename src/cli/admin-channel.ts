/**
 * PGlite lets one process open a data directory. While `rampart serve` runs on the embedded store
 * it holds `<data dir>/rampart.lock` and answers admin commands on a Unix socket beside it (mode
 * 0600: only the owner of the data directory can use it); the CLI sends its command there instead
 * of opening the store a second time.
 *
 * The answer is a stream of JSON lines: `{"progress": "..."}` as a long command goes (the CLI
 * prints them on stderr), `{}` every KEEPALIVE_MS so the CLI knows the server is still at it, and
 * last `{"result": {"lines": [...]}}` or `{"error": {"message", "errors"?, "public"}}`. A command
 * has no overall time limit (a vulnerability-database sync takes minutes); the CLI gives up only
 * when the server says nothing for IDLE_TIMEOUT_MS. When the CLI goes away, the command is aborted.
 *
 * This module stays light (node built-ins and the error type): every admin command of the CLI
 * loads it, and the commands themselves are handed in by `serve`.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { AppError, type FieldErrors } from '../shared/errors.js';
import type { AdminCommand, AdminContext, AdminResult } from './admin-types.js';

const KEEPALIVE_MS = 10_000;
const IDLE_TIMEOUT_MS = 60_000;

/** Runs one admin command in the serving process. */
export type AdminHandler = (cmd: AdminCommand, context: AdminContext) => Promise<AdminResult>;

type AnswerLine = { progress?: string; result?: AdminResult; error?: { message: string; errors?: FieldErrors; public: boolean } };

export function lockPath(dataDir: string): string {
  return path.join(dataDir, 'rampart.lock');
}

function socketPath(dataDir: string): string {
  return path.join(dataDir, 'admin.sock');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of the live process holding the store, if any (a stale lock is ignored). */
export function lockHolder(dataDir: string): number | undefined {
  try {
    const pid = Number(JSON.parse(fs.readFileSync(lockPath(dataDir), 'utf8')).pid);
    return Number.isInteger(pid) && pid !== process.pid && isAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the store's lock for this process; throws when another live process has it. */
export function acquireLock(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const holder = lockHolder(dataDir);
  if (holder !== undefined) {
    throw new Error(`The embedded store in ${dataDir} is in use by another Rampart process (pid ${holder}).`);
  }
  fs.writeFileSync(lockPath(dataDir), JSON.stringify({ pid: process.pid, started_at: new Date().toISOString() }), { mode: 0o600 });
  return () => fs.rmSync(lockPath(dataDir), { force: true });
}

/** What a failed command tells the CLI: an AppError's public message, else a pointer to the log. */
function errorLine(error: unknown): AnswerLine {
  if (error instanceof AppError) return { error: { message: error.message, ...(error.errors ? { errors: error.errors } : {}), public: true } };
  return { error: { message: 'The server failed to run the command; see its log.', public: false } };
}

/** Serves admin commands for the CLI; returns a function that stops it. */
export async function startAdminChannel(dataDir: string, handle: AdminHandler, onError?: (error: unknown) => void): Promise<() => Promise<void>> {
  const sock = socketPath(dataDir);
  fs.rmSync(sock, { force: true });
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const send = (line: AnswerLine | Record<string, never>) => {
      if (!res.writableEnded) res.write(`${JSON.stringify(line)}\n`);
    };
    const aborted = new AbortController();
    // An AppError, so a command stopped this way is not logged as the server's failure.
    res.on('close', () => aborted.abort(new AppError('bad_request', 'The CLI went away before the command finished.')));
    const keepalive = setInterval(() => send({}), KEEPALIVE_MS);
    try {
      const cmd = JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdminCommand;
      send({ result: await handle(cmd, { progress: (message) => send({ progress: message }), signal: aborted.signal }) });
    } catch (error) {
      if (!(error instanceof AppError)) onError?.(error);
      send(errorLine(error));
    } finally {
      clearInterval(keepalive);
      res.end();
    }
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(sock, resolve));
  fs.chmodSync(sock, 0o600);
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
      fs.rmSync(sock, { force: true });
    });
}

/**
 * Runs the command in the serving process, passing its progress lines to `onProgress`. Admin
 * errors come back as AppErrors with the server's message; a socket that cannot be reached, a
 * server that goes silent and one that stops mid-command each say so.
 */
export function sendAdminCommand(dataDir: string, cmd: AdminCommand, onProgress: (message: string) => void = () => {}): Promise<AdminResult> {
  const sock = socketPath(dataDir);
  return new Promise((resolve, reject) => {
    let answered = false;
    const settle = (fn: () => void) => {
      if (answered) return;
      answered = true;
      fn();
    };
    const req = http.request({ socketPath: sock, path: '/command', method: 'POST', timeout: IDLE_TIMEOUT_MS }, (res) => {
      createInterface({ input: res, crlfDelay: Infinity }).on('line', (text) => {
        let line: AnswerLine;
        try {
          line = JSON.parse(text) as AnswerLine;
        } catch {
          return;
        }
        if (line.progress !== undefined) onProgress(line.progress);
        else if (line.result) settle(() => resolve(line.result!));
        else if (line.error) {
          const { message, errors } = line.error;
          settle(() => reject(new AppError(line.error!.public ? 'validation_failed' : 'internal', message, errors ? { errors } : {})));
        }
      });
      res.on('end', () => settle(() => reject(new Error('The running Rampart server stopped before the command finished; see its log.'))));
    });
    req.on('timeout', () => {
      settle(() => reject(new Error(`The running Rampart server sent nothing for ${IDLE_TIMEOUT_MS / 1000} s while running the command; see its log.`)));
      req.destroy();
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      const unreachable = ['ENOENT', 'ECONNREFUSED', 'EACCES'].includes(error.code ?? '');
      const message = unreachable
        ? `Could not reach the running Rampart server's admin socket ${sock}: ${error.message}`
        : `The connection to the running Rampart server failed during the command: ${error.message}`;
      settle(() => reject(new Error(message)));
    });
    req.end(JSON.stringify(cmd));
  });
}
