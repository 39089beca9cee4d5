/**
 * SQL for storing findings and judging their lifecycle per run. A finding seen again updates its
 * row and keeps its triage status; another engine's report of it adds that engine's evidence.
 */
import { sql, type Insertable } from 'kysely';
import type { Db } from '../db/database.js';
import type { FindingsTable, Lifecycle } from '../db/schema.js';
import { REFRESHED_COLUMNS } from './finding-fields.js';

/** The columns of a web location. */
const WEB_LOCATION_COLUMNS = ['url', 'method', 'parameter'] as const;

/** Refreshed columns that follow the report itself, whichever engine is surest (below). */
const OWN_COLUMNS = new Set<string>(['evidence', 'qod', 'kev', 'epss', ...WEB_LOCATION_COLUMNS]);

/** Each engine's QoD of the row; a row stored before engine_qod existed knows its last engine's. */
const KNOWN_QODS = sql`(case when findings.engine_qod = '{}'::jsonb then jsonb_build_object(findings.engine, findings.qod) else findings.engine_qod end)`;

/** The highest QoD another engine gave the row (null when none did). */
const OTHERS_QOD = sql`(select max(q.value::int) from jsonb_each_text(${KNOWN_QODS} - excluded.engine) q)`;

/**
 * Whether the new report describes the finding: it is at least as sure as every other engine's.
 * So a version match (QoD 30) does not overwrite the threat and name of a CVE a template proved
 * (95), while an engine's own later report, surer or not, replaces its earlier one.
 */
const LEADS = sql`(excluded.qod >= coalesce(${OTHERS_QOD}, 0))`;

/** Inserts or refreshes findings in one statement; returns the ids of the rows it touched. */
export async function upsertFindings(db: Db, rows: Insertable<FindingsTable>[]): Promise<number[]> {
  if (rows.length === 0) return [];
  const touched = await db
    .insertInto('findings')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['user_id', 'fingerprint']).doUpdateSet({
        // Descriptive fields (FINDING_FIELDS says which) follow the surest engine's latest report.
        ...Object.fromEntries(
          REFRESHED_COLUMNS.filter((column) => !OWN_COLUMNS.has(column)).map((column) => [
            column,
            sql`case when ${LEADS} then excluded.${sql.ref(column)} else findings.${sql.ref(column)} end`,
          ]),
        ),
        evidence: sql`excluded.evidence`,
        // The row is as sure as its surest engine.
        qod: sql`greatest(excluded.qod, coalesce(${OTHERS_QOD}, 0))`,
        engine_qod: sql`${KNOWN_QODS} || excluded.engine_qod`,
        kev: sql`excluded.kev`,
        epss: sql`excluded.epss`,
        // A report without a web location (Rampart's version match of a CVE a template proved at a
        // URL: one identity, finding-identity.ts) keeps the location known.
        ...Object.fromEntries(WEB_LOCATION_COLUMNS.map((column) => [column, sql`coalesce(excluded.${sql.ref(column)}, findings.${sql.ref(column)})`])),
        scan_id: sql`excluded.scan_id`,
        target_id: sql`excluded.target_id`,
        run_id: sql`excluded.run_id`,
        run_index: sql`excluded.run_index`,
        scan_type: sql`excluded.scan_type`,
        engine: sql`excluded.engine`,
        // Engines accumulate; each engine's evidence replaces only its own earlier evidence.
        engines: sql`case when findings.engines @> excluded.engines then findings.engines else findings.engines || excluded.engines end`,
        engine_evidence: sql`findings.engine_evidence || excluded.engine_evidence`,
        last_seen_at: sql`now()`,
        updated_at: sql`now()`,
      }),
    )
    .returning('id')
    .execute();
  return touched.map((row) => Number(row.id));
}

/** Marks findings as seen by a run; their label is settled when the run ends. */
export async function markSeen(db: Db, runId: number, findingIds: number[]): Promise<void> {
  if (findingIds.length === 0) return;
  await db
    .insertInto('run_findings')
    .values(findingIds.map((id) => ({ run_id: runId, finding_id: id, lifecycle: 'new' as const })))
    .onConflict((oc) => oc.columns(['run_id', 'finding_id']).doUpdateSet({ lifecycle: 'new' }))
    .execute();
}


export interface LifecycleJudgement {
  runId: number;
  scanId: number;
  runIndex: number;
  /** The run compared with, if the scan has one. */
  previousRunId: number | undefined;
  /** Whether the run saw everything it was asked to: only then may absence mean "fixed". */
  complete: boolean;
}

/**
 * Labels what the run saw against the previous run, adds the findings it no longer saw as fixed,
 * copies each label to its finding and returns the counts. Idempotent, so a retried run can
 * judge again.
 */
export async function judgeRun(db: Db, j: LifecycleJudgement): Promise<Record<Lifecycle, number>> {
  const previous = j.previousRunId ?? null;
  // Fixed rows of an earlier attempt of this run are judged afresh.
  await db.deleteFrom('run_findings').where('run_id', '=', j.runId).where('lifecycle', '=', 'fixed').execute();
  // Rows whose label does not change are not rewritten (a rewrite costs every index an entry).
  await sql`
    update run_findings rf set lifecycle = judged.label
    from (select s.finding_id, case
            when exists (select 1 from run_findings p
                         where p.run_id = ${previous} and p.finding_id = s.finding_id and p.lifecycle <> 'fixed') then 'still_open'
            when exists (select 1 from run_findings e join runs r on r.id = e.run_id
                         where e.finding_id = s.finding_id and e.lifecycle = 'fixed'
                           and r.scan_id = ${j.scanId} and r.run_index < ${j.runIndex}) then 'regressed'
            else 'new' end as label
          from run_findings s where s.run_id = ${j.runId}) judged
    where rf.run_id = ${j.runId} and rf.finding_id = judged.finding_id and rf.lifecycle <> judged.label`.execute(db);
  if (j.complete && previous !== null) {
    await sql`
      insert into run_findings (run_id, finding_id, lifecycle)
      select ${j.runId}, p.finding_id, 'fixed' from run_findings p
      where p.run_id = ${previous} and p.lifecycle <> 'fixed'
      on conflict (run_id, finding_id) do nothing`.execute(db);
  }
  await sql`
    update findings f set lifecycle = rf.lifecycle
    from run_findings rf where rf.run_id = ${j.runId} and rf.finding_id = f.id and f.lifecycle is distinct from rf.lifecycle`.execute(db);
  const rows = await db
    .selectFrom('run_findings')
    .select(['lifecycle', (eb) => eb.fn.countAll<number>().as('n')])
    .where('run_id', '=', j.runId)
    .groupBy('lifecycle')
    .execute();
  const counts: Record<Lifecycle, number> = { new: 0, still_open: 0, fixed: 0, regressed: 0 };
  for (const row of rows) counts[row.lifecycle] = Number(row.n);
  return counts;
}
