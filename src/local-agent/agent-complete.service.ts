/**
 * POST complete: the end of an agent's attempt. Every chunk 0..n-1 must be stored (else the
 * missing seqs are answered, the agent sends them and completes again); then, in one transaction,
 * the chunks are replayed in order through the run recorder, as an upload is, under the attempt's
 * lease, the run ends with its counts, labels, report email and webhook events, and the chunks go.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { EngineEvent, Finding } from '../engines/engine.js';
import type { WireEvent } from '../shared/agent-protocol.js';
import { AppError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { recordRunEvents } from '../runs/run-import.service.js';
import { createVulnerabilityLookup } from '../vulndb/vulndb.service.js';
import { sha256, type AgentPrincipal } from './agent-credentials.service.js';
import * as agentRuns from './agent-runs.queries.js';
import { agentScan, LEASE_LOST } from './agent-runs.service.js';

export interface CompleteBody {
  lease: string;
  chunks: number;
  outcome: 'succeeded' | 'failed';
  error?: string;
  error_kind?: 'network-temporary' | 'network-permanent' | 'deadline' | 'config' | 'internal';
  complete: boolean;
  engine: { name: string; version: string; detail?: string };
}

/** The attempt ended the run (`findings` stored), or chunks are missing. */
export type CompleteResult = { ended: true; run_index: number; findings: number } | { ended: false; missing: number[] };

/** A stored chunk's events as the run recorder takes them. */
function* engineEvents(events: WireEvent[]): Generator<EngineEvent> {
  for (const event of events) yield event.type === 'finding' ? { type: 'finding', finding: event.finding as Finding } : event;
}

/** The events of chunks 0..count-1 in order, read one chunk at a time. */
async function* replay(db: Db, runId: number, count: number): AsyncGenerator<EngineEvent> {
  for (let seq = 0; seq < count; seq++) yield* engineEvents((await agentRuns.readChunk(db, runId, seq)) as WireEvent[]);
}

export async function completeAttempt(
  deps: { db: Db; config: Config; log: Logger },
  principal: AgentPrincipal,
  runIndex: number,
  body: CompleteBody,
): Promise<CompleteResult> {
  const scan = await agentScan(deps.db, principal);
  const leaseHash = sha256(body.lease);
  return deps.db.transaction().execute(async (trx): Promise<CompleteResult> => {
    const run = await agentRuns.lockRunByIndex(trx, scan.id, runIndex);
    if (!run) throw new AppError('not_found', `Run ${runIndex} of this scan not found.`);
    // The answer was lost and the agent completes again: the same answer.
    if (run.status === 'completed' && run.agent_lease_hash === leaseHash && run.outcome !== 'cancelled') {
      return { ended: true, run_index: run.run_index, findings: run.findings_count };
    }
    if (run.status !== 'current' || run.lease_owner !== agentRuns.agentOwner(leaseHash)) throw new AppError('conflict', LEASE_LOST, { context: { run_id: run.id } });
    const missing = await agentRuns.missingChunks(trx, run.id, body.chunks);
    if (missing.length > 0) return { ended: false, missing };
    const vulndb = await createVulnerabilityLookup(trx);
    const failed = body.outcome === 'failed';
    const recorded = await recordRunEvents(
      { ...deps, db: trx },
      run,
      scan,
      { owner: agentRuns.agentOwner(leaseHash), engine: body.engine, vulnDbSyncedAt: vulndb?.syncedAt ?? null },
      replay(trx, run.id, body.chunks),
      {
        outcome: body.outcome,
        error: failed ? (body.error ?? 'The local agent reported that the scan failed.') : null,
        errorKind: failed ? (body.error_kind ?? 'internal') : null,
        complete: body.complete,
      },
    );
    // The row is locked and its lease checked above: the recorder cannot have lost it.
    if (!recorded.ended) throw new AppError('conflict', LEASE_LOST, { context: { run_id: run.id } });
    await agentRuns.deleteChunks(trx, run.id);
    deps.log.info({ scan_id: scan.id, run_id: run.id, agent_id: run.agent_id, findings: recorded.findings, outcome: body.outcome }, 'agent attempt completed');
    return { ended: true, run_index: run.run_index, findings: recorded.findings };
  });
}
