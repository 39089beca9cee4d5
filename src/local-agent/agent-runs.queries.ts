/**
 * SQL for runs held by a local agent. While an agent holds a run, `runs.lease_owner` is
 * `agent:<SHA-256 of the attempt's lease>`, so the run recorder's lease conditions hold for the
 * attempt and nothing else; `agent_lease_hash` keeps the hash after the run ends.
 */
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { Run } from '../db/schema.js';
import { AWAITING_AGENT } from '../scans/runs.service.js';

/** The lease_owner of a run held by the agent attempt whose lease hashes to `leaseHash`. */
export function agentOwner(leaseHash: string): string {
  return `agent:${leaseHash}`;
}

/** The scan's current run an agent may take or holds: awaiting an agent, its lease expired, or held by `agentId`. */
export async function findOpenRun(db: Db, scanId: number, agentId: string): Promise<Run | undefined> {
  const result = await sql<Run>`
    select * from runs
    where scan_id = ${scanId} and status = 'current'
      and ((lease_owner is null and progress = ${AWAITING_AGENT})
        or (lease_owner like 'agent:%' and (lease_expires_at < now() or agent_id = ${agentId})))
    limit 1`.execute(db);
  return result.rows[0];
}

export function findRunByIndex(db: Db, scanId: number, runIndex: number): Promise<Run | undefined> {
  return db.selectFrom('runs').selectAll().where('scan_id', '=', scanId).where('run_index', '=', runIndex).executeTakeFirst();
}

/**
 * Gives the run to the agent, atomically: one UPDATE whose condition PostgreSQL re-checks on the
 * row after any concurrent taker commits, so of two takers one wins. Allowed while it awaits an
 * agent, when its agent lease expired, or when the same agent holds it (a restarted agent).
 * A take is a new attempt: the previous attempt's chunks are deleted in the same transaction.
 */
export async function takeRun(
  trx: Db,
  run: { scanId: number; runIndex: number },
  agent: { leaseHash: string; agentId: string; hostname: string; leaseSeconds: number },
): Promise<Run | undefined> {
  const result = await sql<Run>`
    update runs set
      lease_owner = ${agentOwner(agent.leaseHash)},
      agent_lease_hash = ${agent.leaseHash},
      agent_id = ${agent.agentId},
      agent_hostname = ${agent.hostname},
      lease_expires_at = now() + make_interval(secs => ${agent.leaseSeconds}),
      attempts = attempts + 1,
      started_at = now(),
      progress = 'Running 0%',
      progress_percent = 0
    where scan_id = ${run.scanId} and run_index = ${run.runIndex} and status = 'current'
      and ((lease_owner is null and progress = ${AWAITING_AGENT})
        or (lease_owner like 'agent:%' and (lease_expires_at < now() or agent_id = ${agent.agentId})))
    returning *`.execute(trx);
  const taken = result.rows[0];
  if (taken) await trx.deleteFrom('agent_chunks').where('run_id', '=', taken.id).execute();
  return taken;
}

/** Renews the attempt's lease and records its percent; undefined when the attempt no longer holds the run. */
export async function renewAgentLease(db: Db, runId: number, leaseHash: string, percent: number, leaseSeconds: number): Promise<Run | undefined> {
  return db
    .updateTable('runs')
    .set({
      lease_expires_at: sql`now() + make_interval(secs => ${leaseSeconds})`,
      progress_percent: percent,
      progress: `Running ${percent}%`,
    })
    .where('id', '=', runId)
    .where('status', '=', 'current')
    .where('lease_owner', '=', agentOwner(leaseHash))
    .returningAll()
    .executeTakeFirst();
}

/**
 * The run, locked for the rest of the transaction when the attempt holds it (a take waits for the
 * lock, so a chunk of an old attempt is never stored after a retake deleted the old chunks).
 */
export function lockHeldRun(trx: Db, runId: number, leaseHash: string): Promise<Run | undefined> {
  return trx
    .selectFrom('runs')
    .selectAll()
    .where('id', '=', runId)
    .where('status', '=', 'current')
    .where('lease_owner', '=', agentOwner(leaseHash))
    .forUpdate()
    .executeTakeFirst();
}

/** Stores a chunk unless its seq is there; returns the digest stored under the seq (this one's or the earlier one's). */
export async function storeChunk(trx: Db, chunk: { runId: number; leaseHash: string; seq: number; events: unknown; digest: string }): Promise<string> {
  await trx
    .insertInto('agent_chunks')
    .values({ run_id: chunk.runId, lease_hash: chunk.leaseHash, seq: chunk.seq, events: JSON.stringify(chunk.events), digest: chunk.digest })
    .onConflict((oc) => oc.columns(['run_id', 'seq']).doNothing())
    .execute();
  const stored = await trx.selectFrom('agent_chunks').select('digest').where('run_id', '=', chunk.runId).where('seq', '=', chunk.seq).executeTakeFirstOrThrow();
  return stored.digest;
}

/** The bytes of the events the run's chunks hold (as stored JSON text). */
export async function storedChunkBytes(trx: Db, runId: number, exceptSeq: number): Promise<number> {
  // A chunk sent again (a retry) replaces nothing: it does not count twice.
  const result = await sql<{ bytes: string | number | null }>`select sum(octet_length(events::text)) as bytes from agent_chunks where run_id = ${runId} and seq <> ${exceptSeq}`.execute(trx);
  return Number(result.rows[0]?.bytes ?? 0);
}

/** The seqs below `count` that the run has no chunk for. */
export async function missingChunks(db: Db, runId: number, count: number): Promise<number[]> {
  const rows = await db.selectFrom('agent_chunks').select('seq').where('run_id', '=', runId).where('seq', '<', count).execute();
  const present = new Set(rows.map((r) => r.seq));
  const missing: number[] = [];
  for (let seq = 0; seq < count; seq++) if (!present.has(seq)) missing.push(seq);
  return missing;
}

/** The events of chunk `seq` of the run (as sent). */
export async function readChunk(db: Db, runId: number, seq: number): Promise<unknown> {
  const row = await db.selectFrom('agent_chunks').select('events').where('run_id', '=', runId).where('seq', '=', seq).executeTakeFirstOrThrow();
  return typeof row.events === 'string' ? JSON.parse(row.events) : row.events;
}

export async function deleteChunks(db: Db, runId: number): Promise<void> {
  await db.deleteFrom('agent_chunks').where('run_id', '=', runId).execute();
}

/** The run of the scan with this index, locked for the rest of the transaction. */
export function lockRunByIndex(trx: Db, scanId: number, runIndex: number): Promise<Run | undefined> {
  return trx.selectFrom('runs').selectAll().where('scan_id', '=', scanId).where('run_index', '=', runIndex).forUpdate().executeTakeFirst();
}
