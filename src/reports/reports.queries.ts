/**
 * SQL for reports: a run's findings in report order, read a page at a time, and the aggregates a
 * report opens with (counts by threat, hosts and services). A run's findings are its
 * `run_findings` rows; "present" means the run saw them, "fixed" that it no longer did.
 */
import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { FindingsTable, Lifecycle, ThreatLevel } from '../db/schema.js';
import { FIELD_ENTRIES, columnOf } from '../findings/finding-fields.js';

const THREAT_RANK = sql<number>`case f.threat when 'Critical' then 4 when 'High' then 3 when 'Medium' then 2 when 'Low' then 1 else 0 end`;

export type RunFindingRow = Pick<
  Selectable<FindingsTable>,
  | 'id' | 'name' | 'threat' | 'cvss_base' | 'cvss_vector' | 'cve' | 'cwe' | 'hostname' | 'host_ip' | 'port' | 'protocol' | 'service'
  | 'engine' | 'engines' | 'engine_evidence' | 'rule_id' | 'description' | 'solution' | 'evidence' | 'references' | 'status'
  | 'kev' | 'epss' | 'first_seen_at' | 'last_seen_at' | 'url' | 'method' | 'parameter' | 'qod'
> & {
  lifecycle: Lifecycle;
  /** The sort key of the row, for the next page. */
  rank: number;
  score: number;
};

/** The finding's columns a report carries (FINDING_FIELDS with a report `key`); the lifecycle is the run's. */
const REPORT_COLUMNS = sql.join(
  FIELD_ENTRIES.filter(([name, field]) => field.key && !field.scan && name !== 'lifecycle').map(([name]) => sql.ref(`f.${columnOf(name)}`)),
);

/** Where the previous page ended: the report order is (threat rank desc, CVSS desc, id asc). */
export interface RunFindingCursor {
  rank: number;
  score: number;
  id: number;
}

/**
 * One page of the run's present (or fixed) findings in report order, after `cursor`. Keyset
 * paging on the order itself, so every page costs the same however deep it is.
 */
export async function runFindingsPage(db: Db, runId: number, which: 'present' | 'fixed', cursor: RunFindingCursor | null, limit: number, minQod = 0): Promise<RunFindingRow[]> {
  const lifecycle = which === 'fixed' ? sql`rf.lifecycle = 'fixed'` : sql`rf.lifecycle <> 'fixed'`;
  // -1 stands for "no score", so unscored findings come last within their threat.
  const after = cursor ? sql`and (${THREAT_RANK}, coalesce(f.cvss_base, -1), -f.id) < (${cursor.rank}, ${cursor.score}, ${-cursor.id})` : sql``;
  const result = await sql<RunFindingRow>`
    select ${REPORT_COLUMNS}, f.engine_evidence, rf.lifecycle,
           ${THREAT_RANK} as rank, coalesce(f.cvss_base, -1) as score
    from run_findings rf join findings f on f.id = rf.finding_id
    where rf.run_id = ${runId} and ${lifecycle} and f.qod >= ${minQod} ${after}
    order by ${THREAT_RANK} desc, coalesce(f.cvss_base, -1) desc, f.id asc
    limit ${limit}`.execute(db);
  return result.rows;
}

/** Present findings of the run by threat, those with a quality of detection of at least `minQod`. */
export async function runThreatCounts(db: Db, runId: number, minQod = 0): Promise<Map<ThreatLevel, number>> {
  const result = await sql<{ threat: ThreatLevel; n: number }>`
    select f.threat, count(*)::int as n
    from run_findings rf join findings f on f.id = rf.finding_id
    where rf.run_id = ${runId} and rf.lifecycle <> 'fixed' and f.qod >= ${minQod}
    group by f.threat`.execute(db);
  return new Map(result.rows.map((row) => [row.threat, Number(row.n)]));
}

/** The run's findings by lifecycle (new, still open, fixed, regressed), those with a quality of detection of at least `minQod`. */
export async function runLifecycleCounts(db: Db, runId: number, minQod = 0): Promise<Map<string, number>> {
  const result = await sql<{ lifecycle: string; n: number }>`
    select rf.lifecycle, count(*)::int as n
    from run_findings rf join findings f on f.id = rf.finding_id
    where rf.run_id = ${runId} and f.qod >= ${minQod}
    group by rf.lifecycle`.execute(db);
  return new Map(result.rows.map((row) => [row.lifecycle, Number(row.n)]));
}

/** Present findings of the run whose quality of detection is below `minQod` (what a report hides). */
export async function countRunFindingsBelow(db: Db, runId: number, minQod: number): Promise<number> {
  if (minQod <= 0) return 0;
  const result = await sql<{ n: number }>`
    select count(*)::int as n
    from run_findings rf join findings f on f.id = rf.finding_id
    where rf.run_id = ${runId} and rf.lifecycle <> 'fixed' and f.qod < ${minQod}`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}

interface RunServiceRow {
  hostname: string;
  host_ip: string;
  port: number | null;
  protocol: string | null;
  service: string | null;
  findings: number;
  worst_rank: number;
}

/** Every host and port the run has findings on (of at least `minQod`), with the count and the worst threat there. */
export async function runServices(db: Db, runId: number, minQod = 0): Promise<RunServiceRow[]> {
  const result = await sql<RunServiceRow>`
    select f.hostname, f.host_ip, f.port, f.protocol, max(f.service) as service,
           count(*)::int as findings, max(${THREAT_RANK}) as worst_rank
    from run_findings rf join findings f on f.id = rf.finding_id
    where rf.run_id = ${runId} and rf.lifecycle <> 'fixed' and f.qod >= ${minQod}
    group by f.hostname, f.host_ip, f.port, f.protocol
    order by f.hostname, f.host_ip, f.port nulls first, f.protocol`.execute(db);
  return result.rows.map((row) => ({ ...row, findings: Number(row.findings), worst_rank: Number(row.worst_rank) }));
}

