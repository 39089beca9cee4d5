/**
 * SQL for runs. The runs table is also the work queue: a current run without a live lease is
 * waiting for a worker; workers claim with FOR UPDATE SKIP LOCKED and keep a lease alive with
 * heartbeats. Every write by a worker is conditioned on it still owning the lease.
 */
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { Run, RunErrorKind, RunOutcome, ScanType } from '../db/schema.js';

export const AWAITING_AGENT = 'Awaiting agent';

/**
 * Updates `runId` only while `workerId` holds its lease and it is still current. A null owner (an
 * import) updates it only while no worker holds it.
 */
function updateOwnedRun(db: Db, runId: number, workerId: string | null) {
  const run = db.updateTable('runs').where('id', '=', runId).where('status', '=', 'current');
  return workerId === null ? run.where('lease_owner', 'is', null) : run.where('lease_owner', '=', workerId);
}

/**
 * Adds a current run with the next run_index. Returns undefined when the scan already has a
 * current run, or (for a scheduled run) when that period already has its run.
 */
export async function insertRun(
  db: Db,
  run: { scanId: number; trigger: 'create' | 'schedule' | 'rerun'; scheduledFor?: Date | null; progress?: string },
): Promise<Run | undefined> {
  const result = await sql<Run>`
    insert into runs (scan_id, run_index, trigger, scheduled_for, progress)
    select ${run.scanId}, coalesce(max(run_index) + 1, 0), ${run.trigger}, ${run.scheduledFor ?? null}, ${run.progress ?? 'Queued'}
    from runs where scan_id = ${run.scanId}
    on conflict do nothing
    returning *`.execute(db);
  return result.rows[0];
}

/**
 * Claims the oldest queued run (no lease owner) of a scan of one of `scanTypes` (the types the
 * worker serves): new, released by a worker that shut down, or put back by the lease reaper. The
 * claim sets the lease and counts the attempt. Runs of other types stay queued for their workers;
 * runs of a disabled account stay queued until an admin enables it again. Runs of Unmanaged scans
 * are the local agent's, whatever their progress: never claimed here.
 */
export async function claimRun(db: Db, workerId: string, leaseSeconds: number, scanTypes: readonly ScanType[]): Promise<Run | undefined> {
  if (scanTypes.length === 0) return undefined;
  const result = await sql<Run>`
    update runs set
      lease_owner = ${workerId},
      lease_expires_at = now() + make_interval(secs => ${leaseSeconds}),
      attempts = attempts + 1,
      started_at = coalesce(started_at, now()),
      progress = 'Running ' || progress_percent || '%'
    where id = (
      select runs.id from runs join scans on scans.id = runs.scan_id join users on users.id = scans.user_id
      where runs.status = 'current' and runs.progress <> ${AWAITING_AGENT} and runs.lease_owner is null
        and scans.scan_frequency <> 'Unmanaged'
        and scans.scan_type in (${sql.join([...scanTypes])})
        and users.disabled_at is null
      order by runs.queued_at, runs.id
      limit 1
      for update of runs skip locked
    )
    returning *`.execute(db);
  return result.rows[0];
}

/**
 * Puts back in the queue the runs whose lease expired (their worker died) and that have an
 * attempt left. With no owner, `lease_expires_at` is the takeover deadline: a worker must claim
 * the run before it, or `failExpiredRuns` fails it.
 */
export async function requeueExpiredRuns(db: Db, maxAttempts: number, takeoverSeconds: number): Promise<Run[]> {
  const result = await sql<Run>`
    update runs set lease_owner = null, lease_expires_at = now() + make_interval(secs => ${takeoverSeconds}), progress = 'Queued'
    where id in (
      select id from runs
      where status = 'current' and lease_owner is not null and lease_owner not like 'agent:%'
        and lease_expires_at < now() and attempts < ${maxAttempts}
      for update skip locked
    )
    returning *`.execute(db);
  return result.rows;
}

/**
 * Fails the runs that can no longer finish: leased with no attempts left and the lease expired
 * (`errors.outOfAttempts`), or put back by the reaper and not claimed by the deadline
 * (`errors.notTakenOver`). Returns them.
 */
export async function failExpiredRuns(db: Db, maxAttempts: number, errors: { outOfAttempts: string; notTakenOver: string }): Promise<Run[]> {
  // SET expressions see the row as it was, so the case reads the owner before it is cleared.
  const result = await sql<Run>`
    update runs set status = 'completed', outcome = 'failed', progress = 'Failed',
      error = case when lease_owner is null then ${errors.notTakenOver} else ${errors.outOfAttempts} end,
      completed_at = now(), lease_owner = null, lease_expires_at = null
    where id in (
      select id from runs
      where status = 'current' and lease_expires_at < now() and (lease_owner is null or attempts >= ${maxAttempts})
        and (lease_owner is null or lease_owner not like 'agent:%')
      for update skip locked
    )
    returning *`.execute(db);
  return result.rows;
}

/** Extends the lease; false when the run is gone (scan deleted) or another worker owns it now. */
export async function renewLease(db: Db, runId: number, workerId: string, leaseSeconds: number): Promise<boolean> {
  const row = await updateOwnedRun(db, runId, workerId)
    .set({ lease_expires_at: sql`now() + make_interval(secs => ${leaseSeconds})` })
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Records a run's progress while `workerId` holds it (null: while no worker does). */
export async function recordProgress(
  db: Db,
  runId: number,
  workerId: string | null,
  fields: { percent: number; engine?: string; engineVersion?: string; engineDetail?: string | null; hostsUp?: number; hostsDown?: number; findings?: number },
): Promise<boolean> {
  const row = await updateOwnedRun(db, runId, workerId)
    .set({
      progress_percent: fields.percent,
      progress: `Running ${fields.percent}%`,
      ...(fields.engine ? { engine: fields.engine, engine_version: fields.engineVersion ?? null, engine_detail: fields.engineDetail ?? null } : {}),
      ...(fields.hostsUp !== undefined ? { hosts_up: fields.hostsUp } : {}),
      ...(fields.hostsDown !== undefined ? { hosts_down: fields.hostsDown } : {}),
      ...(fields.findings !== undefined ? { findings_count: fields.findings } : {}),
    })
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Ends a run while `workerId` holds it (null: while no worker does); undefined when it lost it. */
export async function finishRun(
  db: Db,
  runId: number,
  workerId: string | null,
  result: {
    outcome: RunOutcome;
    error: string | null;
    /** Whose fault a failure was; null (or absent) when the run succeeded. */
    errorKind?: RunErrorKind | null;
    hostsUp: number;
    hostsDown: number;
    findings: number;
    engine?: { name: string; version: string; detail?: string | null };
    notes?: string[];
    lifecycle?: { new: number; still_open: number; fixed: number; regressed: number };
    vulnDbSyncedAt?: Date | null;
  },
): Promise<Run | undefined> {
  const lifecycle = result.lifecycle;
  return updateOwnedRun(db, runId, workerId)
    .set({
      ...(result.engine ? { engine: result.engine.name, engine_version: result.engine.version, engine_detail: result.engine.detail ?? null } : {}),
      ...(result.notes ? { notes: result.notes } : {}),
      ...(result.vulnDbSyncedAt !== undefined ? { vulndb_synced_at: result.vulnDbSyncedAt } : {}),
      ...(lifecycle
        ? { new_findings: lifecycle.new, still_open_findings: lifecycle.still_open, fixed_findings: lifecycle.fixed, regressed_findings: lifecycle.regressed }
        : {}),
      status: 'completed',
      outcome: result.outcome,
      progress: result.outcome === 'succeeded' ? 'Completed' : 'Failed',
      progress_percent: result.outcome === 'succeeded' ? 100 : sql`progress_percent`,
      error: result.error,
      error_kind: result.errorKind ?? null,
      hosts_up: result.hostsUp,
      hosts_down: result.hostsDown,
      findings_count: result.findings,
      completed_at: sql`now()`,
      // An imported run was never claimed: it started when its results arrived.
      started_at: sql`coalesce(started_at, now())`,
      lease_owner: null,
      lease_expires_at: null,
    })
    .returningAll()
    .executeTakeFirst();
}

export function listRuns(db: Db, scanId: number): Promise<Run[]> {
  return db.selectFrom('runs').selectAll().where('scan_id', '=', scanId).orderBy('run_index').execute();
}

export function findCurrentRun(db: Db, scanId: number): Promise<Run | undefined> {
  return db.selectFrom('runs').selectAll().where('scan_id', '=', scanId).where('status', '=', 'current').executeTakeFirst();
}

/**
 * Inside a transaction: waits for any other import of the scan to end (imports of one scan are
 * serialised), then returns the scan's current run, locked, if it has one.
 */
export async function lockCurrentRunForImport(trx: Db, scanId: number): Promise<Run | undefined> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`run-import:${scanId}`}, 0))`.execute(trx);
  return trx.selectFrom('runs').selectAll().where('scan_id', '=', scanId).where('status', '=', 'current').forUpdate().executeTakeFirst();
}

/**
 * Adds a run for imported results (trigger 'import', started now, unleased so that only its
 * transaction's own writes touch it). Undefined when the scan has a current run after all.
 */
export async function insertImportRun(trx: Db, scanId: number): Promise<Run | undefined> {
  const result = await sql<Run>`
    insert into runs (scan_id, run_index, trigger, progress, started_at)
    select ${scanId}, coalesce(max(run_index) + 1, 0), 'import', 'Importing', now()
    from runs where scan_id = ${scanId}
    on conflict do nothing
    returning *`.execute(trx);
  return result.rows[0];
}

/** Gives a run back to the queue without counting the attempt (its worker is shutting down). */
export async function releaseLease(db: Db, runId: number, workerId: string): Promise<void> {
  await updateOwnedRun(db, runId, workerId)
    .set({ lease_owner: null, lease_expires_at: null, attempts: sql`greatest(attempts - 1, 0)`, progress: 'Queued' })
    .execute();
}

/** The run of the scan with this index, or its latest completed run when no index is given. */
export function findRunOfScan(db: Db, scanId: number, runIndex: number | undefined): Promise<Run | undefined> {
  let query = db.selectFrom('runs').selectAll().where('scan_id', '=', scanId);
  query = runIndex === undefined ? query.where('status', '=', 'completed').orderBy('run_index', 'desc').limit(1) : query.where('run_index', '=', runIndex);
  return query.executeTakeFirst();
}

export function findRunById(db: Db, runId: number): Promise<Run | undefined> {
  return db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirst();
}

/**
 * Stores the run's attack narrative unless one is there already, and returns the one stored: two
 * first downloads at once both write one, and both then show the first writer's.
 */
export async function keepRunNarrative(db: Db, runId: number, narrative: unknown): Promise<unknown> {
  const stored = await db
    .updateTable('runs')
    .set({ narrative: JSON.stringify(narrative) })
    .where('id', '=', runId)
    .where('narrative', 'is', null)
    .returning('narrative')
    .executeTakeFirst();
  if (stored) return stored.narrative;
  const kept = await db.selectFrom('runs').select('narrative').where('id', '=', runId).executeTakeFirst();
  return kept?.narrative ?? narrative;
}

/** The latest run of the scan before `runIndex` that succeeded: the one a run is compared with. */
export async function previousSucceededRun(db: Db, scanId: number, runIndex: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('runs')
    .select('id')
    .where('scan_id', '=', scanId)
    .where('run_index', '<', runIndex)
    .where('outcome', '=', 'succeeded')
    .orderBy('run_index', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.id) : undefined;
}
