/**
 * What a local agent does with its scan's runs (docs/AGENT.md): check in, take a run (a new
 * attempt with a fresh lease), renew the lease with heartbeats, upload numbered chunks of events,
 * and look up the service's vulnerability database. Completing an attempt is agent-complete.service.ts.
 */
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Run, Scan } from '../db/schema.js';
import type { JobTarget, KnownVulnerability } from '../engines/engine.js';
import { wireEvent, type AgentSelf, type CheckInResponse, type TakeResponse, type WireEvent } from '../shared/agent-protocol.js';
import { AppError, notFound, validationError } from '../shared/errors.js';
import { findScanById } from '../scans/scans.service.js';
import { createVulnerabilityLookup } from '../vulndb/vulndb.service.js';
import type { AgentPrincipal } from './agent-credentials.service.js';
import { sha256 } from './agent-credentials.service.js';
import * as agentRuns from './agent-runs.queries.js';
import { eventsOutsideScope, targetScope } from './agent-scope.js';

/** How long a daemon waits before checking in again when no run waits. */
export const AGENT_POLL_SECONDS = 60;

export interface AgentDeps {
  db: Db;
  config: Config;
}

const LEASE_LOST = 'This agent no longer holds the run: its lease was taken over, expired and was retaken, or the run has ended. Check in again.';

/** The agent's scan (deleted since the credential was checked: 404). */
export async function agentScan(db: Db, principal: AgentPrincipal): Promise<Scan> {
  const scan = await findScanById(db, principal.scanId);
  if (!scan) throw notFound('Scan');
  return scan;
}

function scanTargets(scan: Scan): JobTarget[] {
  return scan.targets as JobTarget[];
}

/** POST check-in: the scan's job and the run waiting for an agent (or held by this one). */
export async function checkIn(deps: AgentDeps, principal: AgentPrincipal, self: AgentSelf): Promise<CheckInResponse> {
  const scan = await agentScan(deps.db, principal);
  const run = await agentRuns.findOpenRun(deps.db, scan.id, self.agent_id);
  return {
    scan: {
      uuid: scan.uuid,
      name: scan.scan_name,
      targets: scanTargets(scan).map((t) => ({ kind: t.kind, value: t.value })),
      engine_options: scan.engine_options,
      next_run_at: scan.next_run_at?.toISOString() ?? null,
    },
    run: run ? { run_index: run.run_index, held_by_you: run.lease_owner !== null && run.agent_id === self.agent_id } : null,
    poll_seconds: AGENT_POLL_SECONDS,
    credential_expires_at: principal.expiresAt.toISOString(),
  };
}

/** Why a run could not be taken: 404 when it does not exist, else 409 with the reason. */
function notTakeable(run: Run | undefined, runIndex: number): AppError {
  if (!run) return new AppError('not_found', `Run ${runIndex} of this scan not found.`);
  if (run.status === 'completed') return new AppError('conflict', `Run ${runIndex} has already ended (${run.progress}).`);
  if (run.lease_owner?.startsWith('agent:')) return new AppError('conflict', `Run ${runIndex} is held by another agent (${run.agent_hostname || run.agent_id}) until its lease expires.`);
  return new AppError('conflict', `Run ${runIndex} is not waiting for an agent (${run.progress}).`);
}

/** POST take: the run is this agent's for a new attempt; answers the lease and the job. */
export async function takeRun(deps: AgentDeps, principal: AgentPrincipal, runIndex: number, self: AgentSelf): Promise<TakeResponse> {
  const { db, config } = deps;
  const scan = await agentScan(db, principal);
  const lease = randomBytes(32).toString('base64url');
  const leaseSeconds = config.localAgent.leaseSeconds;
  const taken = await db.transaction().execute((trx) =>
    agentRuns.takeRun(trx, { scanId: scan.id, runIndex }, { leaseHash: sha256(lease), agentId: self.agent_id, hostname: self.hostname, leaseSeconds }),
  );
  if (!taken) throw notTakeable(await agentRuns.findRunByIndex(db, scan.id, runIndex), runIndex);
  const vulndb = await createVulnerabilityLookup(db);
  const { scan: limits } = config;
  return {
    run_index: taken.run_index,
    lease,
    lease_seconds: leaseSeconds,
    lease_expires_at: taken.lease_expires_at!.toISOString(),
    job: {
      targets: scanTargets(scan).map((t) => ({ kind: t.kind, value: t.value })),
      options: scan.engine_options,
      ports: limits.ports,
      limits: { connectTimeoutMs: limits.connectTimeoutMs, readTimeoutMs: limits.readTimeoutMs, maxConcurrency: limits.maxConcurrency, ratePerSecond: limits.ratePerSecond },
    },
    vulndb_synced_at: vulndb?.syncedAt.toISOString() ?? null,
  };
}

/** The run of the scan with this index; 404 when there is none. */
async function requireRun(db: Db, scanId: number, runIndex: number): Promise<Run> {
  const run = await agentRuns.findRunByIndex(db, scanId, runIndex);
  if (!run) throw new AppError('not_found', `Run ${runIndex} of this scan not found.`);
  return run;
}

/** POST heartbeat: renews the lease and records the percent; 409 when the attempt lost the run. */
export async function heartbeat(deps: AgentDeps, principal: AgentPrincipal, runIndex: number, body: { lease: string; percent: number }) {
  const run = await requireRun(deps.db, principal.scanId, runIndex);
  const leaseHash = sha256(body.lease);
  // "Running 100%" is no progress string: 100 is the run's end.
  const renewed = await agentRuns.renewAgentLease(deps.db, run.id, leaseHash, Math.min(body.percent, 99), deps.config.localAgent.leaseSeconds);
  if (renewed) return { lease_expires_at: renewed.lease_expires_at!.toISOString(), cancel: false };
  // A run cancelled while this attempt held it (read again: it may have ended since the read above): the agent stops.
  const now = await requireRun(deps.db, principal.scanId, runIndex);
  if (now.status === 'completed' && now.outcome === 'cancelled' && now.agent_lease_hash === leaseHash) {
    return { lease_expires_at: new Date().toISOString(), cancel: true };
  }
  throw new AppError('conflict', LEASE_LOST, { context: { run_id: run.id } });
}

/** Object keys sorted at every depth: the digest of a chunk does not depend on key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * PUT chunks/{seq}: stores the attempt's chunk as sent. The same seq again with the same events is
 * answered 200 again (a retry after a lost answer); with other events, 409. Events about hosts
 * outside the scan's targets are a 422 naming them.
 */
export async function putChunk(deps: AgentDeps, principal: AgentPrincipal, runIndex: number, seq: number, body: { lease: string; events: WireEvent[] }) {
  const scan = await agentScan(deps.db, principal);
  const events = body.events.map(wireEvent);
  const outside = eventsOutsideScope(events, targetScope(scanTargets(scan)));
  if (Object.keys(outside).length > 0) throw validationError(outside);
  const run = await requireRun(deps.db, scan.id, runIndex);
  const leaseHash = sha256(body.lease);
  const digest = sha256(canonicalJson(events));
  const stored = await deps.db.transaction().execute(async (trx) => {
    if (!(await agentRuns.lockHeldRun(trx, run.id, leaseHash))) throw new AppError('conflict', LEASE_LOST, { context: { run_id: run.id } });
    // An attempt's uploads are bounded as a file import is (under the run's lock, so chunks sent at once cannot pass it together).
    const cap = deps.config.uploadMaxBytes;
    if ((await agentRuns.storedChunkBytes(trx, run.id, seq)) + Buffer.byteLength(JSON.stringify(events)) > cap) {
      throw new AppError('payload_too_large', `This attempt's chunks would exceed ${cap} bytes in all (RAMPART_UPLOAD_MAX_BYTES): the run's results are too large to upload.`);
    }
    return agentRuns.storeChunk(trx, { runId: run.id, leaseHash, seq, events, digest });
  });
  if (stored !== digest) throw new AppError('conflict', `Chunk ${seq} of this attempt was already sent with other events; a chunk cannot change.`);
  return { seq };
}

/** POST lookup: the service's vulnerability database for one CPE (empty when none is synced). */
export async function lookup(
  deps: AgentDeps,
  principal: AgentPrincipal,
  runIndex: number,
  body: { lease: string; cpe: string; context?: { platforms?: string[]; server?: boolean } },
): Promise<{ vulnerabilities: KnownVulnerability[] }> {
  const run = await requireRun(deps.db, principal.scanId, runIndex);
  if (run.status !== 'current' || run.lease_owner !== agentRuns.agentOwner(sha256(body.lease))) throw new AppError('conflict', LEASE_LOST, { context: { run_id: run.id } });
  const vulndb = await createVulnerabilityLookup(deps.db);
  if (!vulndb) return { vulnerabilities: [] };
  const context = { ...(body.context?.platforms ? { platforms: body.context.platforms } : {}), ...(body.context?.server !== undefined ? { server: body.context.server } : {}) };
  return { vulnerabilities: await vulndb.forCpe(body.cpe, context) };
}

export { LEASE_LOST };
