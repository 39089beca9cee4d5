/**
 * Storing what engines find: the one path every finding takes into the store, bounded and
 * masked on the way. The identity of a finding (its fingerprint, finding-identity.ts) is the
 * weakness at a location for an account. So a finding seen again, by a later run or another
 * engine, updates the same record and keeps its triage status; each engine's evidence is kept
 * beside the others'. When a run ends, its findings are labelled
 * against the previous run of the scan (new, still open, fixed, regressed).
 */
import type { Insertable } from 'kysely';
import { boundFinding } from '../shared/evidence.js';
import type { Db } from '../db/database.js';
import type { FindingsTable, Lifecycle } from '../db/schema.js';
import type { Finding } from '../engines/engine.js';
import { QOD } from '../shared/finding.js';
import { judgeRun, markSeen, upsertFindings } from './findings.queries.js';
import { fingerprintOf } from './finding-identity.js';
import { STORED_FIELDS } from './finding-fields.js';
import { previousSucceededRun } from '../scans/runs.service.js';

/** Rows per INSERT: well under PostgreSQL's 65,535 bind parameters at ~30 columns a row. */
export const FINDINGS_BATCH = 1000;

export interface FindingContext {
  userId: number;
  scanId: number;
  runId: number;
  runIndex: number;
  scanType: string;
  engine: string;
  /** Target ids by host name, for linking findings to targets. */
  targetIds: Map<string, number>;
}

export { fingerprintOf } from './finding-identity.js';

/**
 * The row of a finding: the fields FINDING_FIELDS stores from a `Finding`, then what the run
 * adds. The finding is bounded first (evidence capped, secrets masked: src/shared/evidence.ts),
 * so every source (engine, importer, agent) stores the same safe shape.
 */
function toRow(ctx: FindingContext, reported: Finding): Insertable<FindingsTable> {
  const f = boundFinding(reported);
  const fields: Record<string, unknown> = {};
  for (const [column, key, whenAbsent] of STORED_FIELDS) fields[column] = f[key] ?? whenAbsent;
  return {
    ...(fields as Omit<Insertable<FindingsTable>, 'user_id' | 'scan_id' | 'run_id' | 'run_index' | 'fingerprint' | 'scan_type' | 'engine'>),
    user_id: ctx.userId,
    scan_id: ctx.scanId,
    target_id: ctx.targetIds.get(f.hostname) ?? null,
    run_id: ctx.runId,
    run_index: ctx.runIndex,
    // From the finding as reported: bounding must not change which record it is.
    fingerprint: fingerprintOf(ctx.userId, reported),
    scan_type: ctx.scanType,
    engine: ctx.engine,
    engines: [ctx.engine],
    engine_evidence: JSON.stringify({ [ctx.engine]: f.evidence }),
    engine_qod: JSON.stringify({ [ctx.engine]: f.qod ?? QOD.confirmed }),
  };
}

/**
 * Stores a batch of findings and marks them seen by the run; the same finding twice in one batch
 * is stored once. Returns how many findings were stored.
 */
export async function recordFindings(db: Db, ctx: FindingContext, findings: Finding[]): Promise<number> {
  const unique = new Map<string, Insertable<FindingsTable>>();
  for (const f of findings) {
    const row = toRow(ctx, f);
    unique.set(row.fingerprint, row);
  }
  let stored = 0;
  const rows = [...unique.values()];
  for (let i = 0; i < rows.length; i += FINDINGS_BATCH) {
    const ids = await upsertFindings(db, rows.slice(i, i + FINDINGS_BATCH));
    await markSeen(db, ctx.runId, ids);
    stored += ids.length;
  }
  return stored;
}

export type LifecycleCounts = Record<Lifecycle, number>;

/**
 * Labels the run's findings against the previous successful run of its scan and returns the
 * counts. A run that did not complete (`complete` false) labels what it saw but calls nothing
 * fixed: an unfinished scan's silence proves nothing. Give it the transaction that ends the run,
 * so that the labels and the run's counts commit together.
 */
export async function judgeRunFindings(trx: Db, run: { id: number; scanId: number; runIndex: number; complete: boolean }): Promise<LifecycleCounts> {
  const previousRunId = await previousSucceededRun(trx, run.scanId, run.runIndex);
  return judgeRun(trx, { runId: run.id, scanId: run.scanId, runIndex: run.runIndex, previousRunId, complete: run.complete });
}
