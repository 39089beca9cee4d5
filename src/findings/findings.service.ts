/**
 * Storing what engines find. The identity of a finding (its fingerprint) is the weakness on a
 * host and port for an account: the CVE when there is one, else the rule id. So a finding seen
 * again, by a later run or another engine, updates the same record and keeps its triage status;
 * each engine's evidence is kept beside the others'. When a run ends, its findings are labelled
 * against the previous run of the scan (new, still open, fixed, regressed).
 */
import type { Insertable } from 'kysely';
import { sha256Hex } from '../shared/crypto.js';
import type { Db } from '../db/database.js';
import type { FindingsTable, Lifecycle } from '../db/schema.js';
import type { Finding } from '../engines/engine.js';
import { judgeRun, markSeen, upsertFindings } from './findings.queries.js';
import { previousSucceededRun } from '../scans/runs.service.js';

/** Rows per INSERT: well under PostgreSQL's 65,535 bind parameters at ~26 columns a row. */
export const FINDINGS_BATCH = 200;

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

export function fingerprintOf(userId: number, f: Pick<Finding, 'hostname' | 'port' | 'protocol' | 'cve' | 'ruleId'>): string {
  const identity = f.cve.length > 0 ? [...f.cve].sort()[0] : f.ruleId;
  return sha256Hex([userId, f.hostname.toLowerCase(), f.port ?? '', f.protocol ?? '', identity].join('|'));
}

function toRow(ctx: FindingContext, f: Finding): Insertable<FindingsTable> {
  return {
    user_id: ctx.userId,
    scan_id: ctx.scanId,
    target_id: ctx.targetIds.get(f.hostname) ?? null,
    run_id: ctx.runId,
    run_index: ctx.runIndex,
    fingerprint: fingerprintOf(ctx.userId, f),
    name: f.name,
    description: f.description,
    solution: f.solution,
    threat: f.threat,
    cvss_base: f.cvssBase,
    cvss_vector: f.cvssVector,
    cve: f.cve,
    cwe: f.cwe,
    hostname: f.hostname,
    host_ip: f.hostIp,
    port: f.port,
    protocol: f.protocol,
    service: f.service,
    scan_type: ctx.scanType,
    engine: ctx.engine,
    rule_id: f.ruleId,
    evidence: f.evidence,
    engines: [ctx.engine],
    engine_evidence: JSON.stringify({ [ctx.engine]: f.evidence }),
    references: f.references,
    kev: f.kev ?? false,
    epss: f.epss ?? null,
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
