/**
 * PGlite lets one process open a data directory. While `rampart serve` runs on the embedded store
 * it holds `<data dir>/rampart.lock` and answers admin commands on a Unix socket beside it (mode
 * 0600: only the owner of the data directory can use it); the CLI sends its command there instead
 * of opening the store a second time.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { AppError, type FieldErrors } from '../shared/errors.js';
import type { Store } from '../db/database.js';
import { runAdminCommand, type AdminCommand, type AdminResult } from './admin-commands.js';

const REQUEST_TIMEOUT_MS = 30_000;

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

/** Serves admin commands for the CLI; returns a function that stops it. */
export async function startAdminChannel(dataDir: string, store: Store): Promise<() => Promise<void>> {
  const sock = socketPath(dataDir);
  fs.rmSync(sock, { force: true });
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let status = 200;
    let body: unknown;
    try {
      body = await runAdminCommand(store, JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdminCommand);
    } catch (error) {
      status = error instanceof AppError ? 400 : 500;
      body = error instanceof AppError ? { message: error.message, errors: error.errors } : { message: 'The server failed to run the command; see its log.' };
    }
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(sock, resolve));
  fs.chmodSync(sock, 0o600);
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      fs.rmSync(sock, { force: true });
    });
}

/** Runs the command in the serving process; admin errors come back as AppErrors. */
export function sendAdminCommand(dataDir: string, cmd: AdminCommand): Promise<AdminResult> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath: socketPath(dataDir), path: '/command', method: 'POST', timeout: REQUEST_TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdminResult & { message?: string; errors?: FieldErrors };
        if (res.statusCode === 200) resolve(body);
        else reject(new AppError(res.statusCode === 400 ? 'validation_failed' : 'internal', body.message ?? 'Command failed.', body.errors ? { errors: body.errors } : {}));
      });
    });
    req.on('timeout', () => req.destroy(new Error('The running Rampart server did not answer the admin command in time.')));
    req.on('error', (error) => reject(new Error(`Could not reach the running Rampart server's admin socket: ${error.message}`)));
    req.end(JSON.stringify(cmd));
  });
}
