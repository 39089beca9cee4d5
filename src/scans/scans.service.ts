/**
 * Scans: create, list, show, update, delete, rerun, their runs and their schedule. Creating a
 * scan records its targets and either queues the first run (due now) or sets next_run_at for the
 * scheduler; Unmanaged scans wait for the local agent.
 */
import { randomUUID } from 'node:crypto';
import { AppError, notFound, validationError, type FieldErrors } from '../shared/errors.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Scan, ScansTable, User } from '../db/schema.js';
import type { Updateable } from 'kysely';
import { AWAITING_AGENT, enqueueRun, findCurrentRun, runsSummary } from './runs.service.js';
import type { RunQueue } from './run-queue.js';
import { removeLoginScript, storeLoginScript } from './login-scripts.js';
import * as scans from './scans.queries.js';
import type { CreateScanBody, ScanResource, UpdateScanBody } from './scans.schema.js';
import { validateNewScan, validateScanUpdate, type Guard } from './scans.validation.js';
import { scheduleOf, firstRun, formatAnchor, reschedule } from './scan-schedule.js';
import { buildSchedule, previewOccurrences } from './schedule.js';
import { localTime } from './schedule-preview.js';
import { hostOf, type ParsedTarget } from './targets.js';
import type { EngineRegistry } from '../engines/registry.js';
import { unavailableReason } from './engine-choice.js';

/** What the run worker and the scheduler need of scans (they use scans through this service). */
export { findScanById, lockDueScans, setNextRunAt } from './scans.queries.js';
/** A scan by uuid, unscoped: for signed report links, whose signature names the scan. */
export { findScanByUuid } from './scans.queries.js';
/** Ids of the account's scans whose name holds a text (a findings search covers scan names). */
export const findScanIdsByName = scans.scanIdsNamedLike;

export interface ScanDeps {
  db: Db;
  config: Config;
  guard: Guard;
  queue: RunQueue;
  clock: () => Date;
  /** Which engine serves each scan type here: a type with none is refused. */
  engines: EngineRegistry;
  /**
   * Records the hosts a scan names as the account's targets (Unknown until scanned), inside the
   * scan's transaction. A port, not an import: the targets module sits above scans (a target's
   * vulnerabilities come from findings, which read scans), so the composition root passes
   * targets.service's ensureTargets in.
   */
  recordNamedTargets: (db: Db, userId: number, hosts: string[]) => Promise<unknown>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The account's scan, or a 404 (another account's scan is not found, never forbidden). */
export async function requireScan(db: Db, userId: number, uuid: string): Promise<Scan> {
  const scan = UUID.test(uuid) ? await scans.findScan(db, userId, uuid.toLowerCase()) : undefined;
  if (!scan) throw notFound('Scan');
  return scan;
}

export function toScanResource(scan: Scan, currentProgress: string | null): ScanResource {
  return {
    id: scan.id,
    uuid: scan.uuid,
    user_id: scan.user_id,
    scan_name: scan.scan_name,
    scan_type: scan.scan_type,
    scan_target: scan.scan_target,
    zap_authenticated: scan.zap_authenticated,
    zap_login_script: scan.zap_login_script,
    include_attack_narrative: scan.include_attack_narrative,
    engine_options: scan.engine_options,
    scan_frequency: scan.scan_frequency,
    agent_frequency: scan.scan_frequency === 'Unmanaged' ? (scan.agent_frequency ?? 'One-time') : null,
    scan_start_date: scan.scan_start_date,
    scan_start_time: scan.scan_start_time,
    scan_time_zone: scan.scan_time_zone,
    scan_email: scan.scan_email,
    next_run_at: scan.next_run_at?.toISOString() ?? null,
    current_progress: currentProgress,
    created_at: scan.created_at.toISOString(),
    updated_at: scan.updated_at.toISOString(),
  };
}

/** Host names a scan names directly (CIDR ranges become targets only for hosts that answer). */
function namedHosts(targets: ParsedTarget[]): string[] {
  return targets.filter((t) => t.kind !== 'cidr').map(hostOf);
}

export async function createScan(deps: ScanDeps, user: User, body: CreateScanBody): Promise<Scan> {
  const { db, config } = deps;
  const valid = await validateNewScan(body, {
    role: user.role,
    guard: deps.guard,
    maxAddresses: config.maxTargetAddresses,
    loginScriptMaxBytes: config.loginScriptMaxBytes,
    engines: deps.engines,
  });
  const now = deps.clock();
  const uuid = randomUUID();
  const unmanaged = body.scan_frequency === 'Unmanaged';
  // An Unmanaged scan's schedule is that of its agent runs; One-time (the default) is one run now.
  const agentFrequency = unmanaged && body.agent_frequency && body.agent_frequency !== 'One-time' ? body.agent_frequency : null;
  const frequency = unmanaged ? agentFrequency : (body.scan_frequency as Exclude<typeof body.scan_frequency, 'Unmanaged'>);
  const schedule = frequency ? buildSchedule({ frequency, startDate: valid.startDate, startTime: valid.startTime, timeZone: body.scan_time_zone }, now) : null;
  const plan = schedule ? firstRun(schedule, now, { explicitStart: Boolean(valid.startDate || valid.startTime) }) : { runNow: unmanaged, nextRunAt: null };

  const scriptPath = valid.loginScript === undefined ? null : await storeLoginScript(config.dataDir, uuid, valid.loginScript);
  try {
    const scan = await db.transaction().execute(async (trx) => {
      const created = await scans.insertScan(trx, {
        uuid,
        user_id: user.id,
        scan_name: body.scan_name.trim(),
        scan_type: body.scan_type,
        scan_target: valid.targets.map((t) => t.value).join(', '),
        targets: JSON.stringify(valid.targets),
        zap_authenticated: Boolean(body.zap_authenticated),
        zap_login_script: scriptPath,
        login_script: valid.loginScript ?? null,
        include_attack_narrative: Boolean(body.include_attack_narrative),
        engine_options: JSON.stringify(body.engine_options ?? {}),
        scan_frequency: body.scan_frequency,
        scan_start_date: body.scan_start_date?.trim() || null,
        scan_start_time: body.scan_start_time?.trim() || null,
        scan_time_zone: body.scan_time_zone,
        scan_email: body.scan_email.trim(),
        schedule_anchor: schedule ? formatAnchor(schedule) : null,
        next_run_at: plan.nextRunAt,
        agent_frequency: agentFrequency,
      });
      await deps.recordNamedTargets(trx, user.id, namedHosts(valid.targets));
      if (plan.runNow) await enqueueRun(trx, undefined, { scanId: created.id, trigger: 'create', ...(unmanaged ? { progress: AWAITING_AGENT } : {}) });
      return created;
    });
    if (plan.runNow && !unmanaged) deps.queue.notify();
    return scan;
  } catch (error) {
    await removeLoginScript(config.dataDir, scriptPath);
    throw error;
  }
}

export async function listScans(db: Db, userId: number): Promise<ScanResource[]> {
  const rows = await scans.listScans(db, userId);
  return rows.map((row) => toScanResource(row, row.current_progress ?? null));
}

/** A scan as the web application's list shows it: the resource and when a run of it last ended. */
export interface ScanOverview {
  scan: ScanResource;
  lastRunAt: Date | null;
}

/** The account's scans with when each last ran (the list page of the web application). */
export async function listScanOverviews(db: Db, userId: number): Promise<ScanOverview[]> {
  const rows = await scans.listScans(db, userId);
  return rows.map((row) => ({
    scan: toScanResource(row, row.current_progress ?? null),
    lastRunAt: row.last_completed_at ? new Date(row.last_completed_at as Date | string) : null,
  }));
}

/**
 * Checks a new scan's fields as createScan does, without storing anything: the web form uses it to
 * show the service's errors beside its own (an empty name) in one answer. Throws as createScan does.
 */
export async function checkNewScan(deps: ScanDeps, user: User, body: CreateScanBody): Promise<void> {
  await validateNewScan(body, {
    role: user.role,
    guard: deps.guard,
    maxAddresses: deps.config.maxTargetAddresses,
    loginScriptMaxBytes: deps.config.loginScriptMaxBytes,
    engines: deps.engines,
  });
}

export async function showScan(db: Db, userId: number, uuid: string): Promise<ScanResource> {
  const scan = await requireScan(db, userId, uuid);
  return toScanResource(scan, (await findCurrentRun(db, scan.id))?.progress ?? null);
}

/** Fields whose change recomputes the schedule. */
const SCHEDULE_FIELDS = ['scan_frequency', 'agent_frequency', 'scan_time_zone', 'scan_start_date', 'scan_start_time'] as const;

/**
 * PUT /api/scans/{uuid}: applies every field sent, each checked as at creation. A change to the
 * frequency, zone or start recomputes the schedule and `next_run_at` (see `reschedule`); new
 * targets are recorded as targets. A run already going is not touched.
 */
export async function updateScan(deps: ScanDeps, user: User, uuid: string, body: UpdateScanBody): Promise<Scan> {
  const { db, config } = deps;
  const scan = await requireScan(db, user.id, uuid);
  const valid = await validateScanUpdate(body, scan, {
    role: user.role,
    guard: deps.guard,
    maxAddresses: config.maxTargetAddresses,
    loginScriptMaxBytes: config.loginScriptMaxBytes,
    engines: deps.engines,
  });
  const changes: Updateable<ScansTable> = {};
  if (body.scan_name !== undefined) changes.scan_name = body.scan_name.trim();
  if (body.include_attack_narrative !== undefined) changes.include_attack_narrative = body.include_attack_narrative;
  if (body.scan_email !== undefined) changes.scan_email = body.scan_email.trim();
  if (body.engine_options !== undefined) changes.engine_options = JSON.stringify(body.engine_options);
  if (valid.targets) {
    changes.scan_target = valid.targets.map((t) => t.value).join(', ');
    changes.targets = JSON.stringify(valid.targets);
  }
  if (SCHEDULE_FIELDS.some((field) => body[field] !== undefined)) {
    const frequency = body.scan_frequency ?? scan.scan_frequency;
    const timeZone = body.scan_time_zone ?? scan.scan_time_zone;
    Object.assign(changes, {
      scan_frequency: frequency,
      scan_time_zone: timeZone,
      scan_start_date: body.scan_start_date !== undefined ? body.scan_start_date?.trim() || null : scan.scan_start_date,
      scan_start_time: body.scan_start_time !== undefined ? body.scan_start_time?.trim() || null : scan.scan_start_time,
    });
    // Unmanaged scans stay Unmanaged (validation); their schedule is their agent runs'.
    const agentFrequency = frequency === 'Unmanaged' ? (body.agent_frequency ?? scan.agent_frequency ?? 'One-time') : null;
    if (frequency === 'Unmanaged') changes.agent_frequency = agentFrequency === 'One-time' ? null : agentFrequency;
    const runsOn = frequency === 'Unmanaged' ? agentFrequency : frequency;
    if (runsOn && !(frequency === 'Unmanaged' && runsOn === 'One-time')) {
      const { schedule, nextRunAt } = reschedule(scheduleOf(scan), { frequency: runsOn, timeZone, startDate: valid.startDate, startTime: valid.startTime }, deps.clock());
      changes.schedule_anchor = formatAnchor(schedule);
      changes.next_run_at = nextRunAt;
    } else {
      // A One-time Unmanaged scan has no schedule: a rerun queues its next run.
      changes.schedule_anchor = null;
      changes.next_run_at = null;
    }
  }
  let scriptPath = scan.zap_login_script;
  if (body.remove_login_script) {
    await removeLoginScript(config.dataDir, scan.zap_login_script);
    scriptPath = null;
    changes.login_script = null;
  } else if (valid.loginScript !== undefined) {
    scriptPath = await storeLoginScript(config.dataDir, scan.uuid, valid.loginScript);
    changes.login_script = valid.loginScript;
  }
  changes.zap_login_script = scriptPath;
  changes.zap_authenticated = body.remove_login_script ? false : (body.zap_authenticated ?? (valid.loginScript !== undefined ? true : scan.zap_authenticated));
  return db.transaction().execute(async (trx) => {
    const updated = await scans.updateScan(trx, scan.id, changes);
    if (valid.targets) await deps.recordNamedTargets(trx, user.id, namedHosts(valid.targets));
    return updated;
  });
}

/** Deletes the scan with its runs, findings and stored script; a current run is cancelled. */
export async function deleteScan(deps: ScanDeps, userId: number, uuid: string): Promise<void> {
  const scan = await requireScan(deps.db, userId, uuid);
  const current = await findCurrentRun(deps.db, scan.id);
  await scans.deleteScan(deps.db, scan.id);
  if (current) deps.queue.cancel(current.id);
  await removeLoginScript(deps.config.dataDir, scan.zap_login_script);
}

/**
 * POST /api/scans/{uuid}/rerun: a new run now (an Unmanaged scan's awaits its local agent); 409
 * while one is current.
 */
export async function rerunScan(deps: ScanDeps, userId: number, uuid: string): Promise<number> {
  const scan = await requireScan(deps.db, userId, uuid);
  if (scan.scan_frequency === 'Unmanaged') return queueRun(deps, scan.id, { trigger: 'rerun', progress: AWAITING_AGENT });
  // A scan created before its type lost its engine here (or on another deployment) is not re-run into a failure.
  const unavailable = unavailableReason(deps.engines, scan.scan_type);
  if (unavailable) throw validationError({ scan_type: [unavailable] });
  return queueRun(deps, scan.id, { trigger: 'rerun' });
}

/** Queues a run of the scan; 409 naming the current run when there is one. */
async function queueRun(deps: ScanDeps, scanId: number, run: { trigger: 'rerun'; progress?: string }): Promise<number> {
  const queued = await enqueueRun(deps.db, run.progress ? undefined : deps.queue, { scanId, ...run });
  if (!queued) {
    const current = await findCurrentRun(deps.db, scanId);
    throw new AppError('conflict', `The scan already has a run in progress (run ${current?.run_index ?? '?'}); wait for it to finish.`);
  }
  return queued.run_index;
}

export async function scanRuns(db: Db, userId: number, uuid: string) {
  return runsSummary(db, await requireScan(db, userId, uuid));
}

/** The scan's next run and the following ones, without changing anything. */
export async function previewSchedule(deps: ScanDeps, userId: number, uuid: string, count = 5) {
  const scan = await requireScan(deps.db, userId, uuid);
  const schedule = scheduleOf(scan);
  const from = scan.next_run_at ?? deps.clock();
  const upcoming = schedule && scan.next_run_at ? previewOccurrences(schedule, from, count) : [];
  return {
    scan_frequency: scan.scan_frequency,
    scan_time_zone: scan.scan_time_zone,
    next_run_at: scan.next_run_at?.toISOString() ?? null,
    upcoming: upcoming.map((at) => ({
      at: at.toISOString(),
      local: localTime(at, scan.scan_time_zone),
    })),
  };
}

