/**
 * Removing what a run made in gvmd, whatever ended the run: the task is stopped when it still
 * runs (a cancelled run, the time limit, a failure while polling) and waited for until gvmd says
 * it stopped, then the task and the target are deleted for good (`ultimate="1"`; a target still
 * used by a task cannot be deleted, so the task goes first). When the run's connection was lost,
 * a new one is opened for this. The whole cleanup has its own time limit and never throws: it
 * returns what it could not do, so the run's own error (if any) stays the error.
 */
import type { GmpConnection, GmpEndpoint } from './gmp-connection.js';
import { openSession, type GmpCredentials } from './gmp-session.js';
import { taskState, TERMINAL_STATUSES, type Created } from './gmp-task.js';
import { gmpCommand } from './gmp-xml.js';

export const DEFAULT_CLEANUP_TIMEOUT_MS = 60_000;

/** What the cleanup needs: where gvmd is, who to log in as, and how long it may take. */
export interface CleanupSettings extends GmpEndpoint, GmpCredentials {
  pollMs: number;
  cleanupTimeoutMs?: number;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function removeAll(conn: GmpConnection, created: Created, settings: CleanupSettings, gave: { up: boolean }): Promise<void> {
  if (created.taskId && created.running) {
    await conn.request(gmpCommand('stop_task', { task_id: created.taskId }));
    // gvmd stops the scanner asynchronously ("Stop Requested"); a task still active cannot be deleted.
    while (!gave.up && !TERMINAL_STATUSES.has((await taskState(conn, created.taskId)).status)) await delay(settings.pollMs);
    created.running = false;
  }
  if (created.taskId) {
    await conn.request(gmpCommand('delete_task', { task_id: created.taskId, ultimate: '1' }));
    delete created.taskId;
  }
  if (created.targetId) {
    await conn.request(gmpCommand('delete_target', { target_id: created.targetId, ultimate: '1' }));
    delete created.targetId;
  }
}

/**
 * Stops and removes the run's task and target. Returns null when done, else why not (for a
 * warning, or the log when the run already failed).
 */
export async function cleanUp(settings: CleanupSettings, created: Created, runConnection: GmpConnection | null): Promise<string | null> {
  if (!created.taskId && !created.targetId) return null;
  const limitMs = settings.cleanupTimeoutMs ?? DEFAULT_CLEANUP_TIMEOUT_MS;
  const gave = { up: false };
  const own: { conn: GmpConnection | null } = { conn: null };
  let timer: NodeJS.Timeout | undefined;
  const work = (async () => {
    let conn = runConnection;
    if (!conn?.usable) {
      conn = own.conn = await openSession(settings);
      // Opened after the time limit struck: nobody will close it but this.
      if (gave.up) return conn.close();
    }
    await removeAll(conn, created, settings, gave);
  })();
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), limitMs)));
  try {
    const outcome = await Promise.race([work.then(() => null, (error: unknown) => ({ error })), timedOut]);
    if (outcome === null) return null;
    gave.up = true;
    if (outcome === 'timeout') {
      // A command still waiting must not hold the run: its connection goes, and its answer with it.
      runConnection?.close();
      work.catch(() => undefined);
    }
    const why = outcome === 'timeout' ? `it took longer than ${limitMs} ms` : outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
    const left = [created.taskId && `task ${created.taskId}`, created.targetId && `target ${created.targetId}`].filter(Boolean).join(' and ');
    return `Rampart could not remove its ${left} from gvmd (${why}); delete ${left.includes(' and ') ? 'them' : 'it'} in gvmd by hand.`;
  } finally {
    clearTimeout(timer);
    own.conn?.close();
  }
}
