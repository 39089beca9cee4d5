/**
 * SQL for browsing and triaging findings (the Vulnerability resource). Every statement is scoped
 * to the owning account (`findings.user_id`); the scan is joined for its uuid and name.
 *
 * Built for an account with hundreds of thousands of findings: the filters touch `findings` alone
 * (a search of scan names becomes a list of scan ids), so counting needs no join and each branch
 * of a search can use its own index; a page is chosen by ids first (an index-only walk when an
 * index matches the sort) and only its rows are then read and joined ("deferred join").
 */
import { sql, type Expression, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database, Lifecycle, ThreatLevel } from '../db/schema.js';
import { containsPattern } from '../db/like-pattern.js';

export type VulnerabilityStatus = 'Unresolved' | 'Accepted' | 'False Positive';

/** The list and export filters; absent or empty means "any". */
export interface VulnerabilityFilters {
  severity?: ThreatLevel | undefined;
  status?: VulnerabilityStatus | undefined;
  /** Only findings with this label from the latest run that judged them. */
  lifecycle?: Lifecycle | undefined;
  /** A host name (case-insensitive) or an address, matched exactly. */
  target?: string | undefined;
  /** A case-insensitive substring of the name, host name, address or scan name. */
  search?: string | undefined;
  /**
   * A case-insensitive substring of the web finding's URL (within its first URL_FILTER_CHARS
   * characters, as the index holds it); network findings never match.
   */
  url?: string | undefined;
  /** Only the findings of this target (the target's own vulnerability list). */
  targetId?: number | undefined;
  /** Only findings whose quality of detection is at least this (0-100; 0 or absent: all). */
  minQod?: number | undefined;
}

export type SortKey = 'name' | 'threat' | 'cvss_base' | 'hostname' | 'host_ip' | 'scan_type' | 'status' | 'created_at';
export type Direction = 'asc' | 'desc';

type Eb = ExpressionBuilder<Database, 'findings'>;


/** Filters with the scans whose name matches the search looked up (see `resolveFilters`). */
export interface ResolvedFilters extends VulnerabilityFilters {
  searchScanIds: number[];
}


/**
 * Severity as a number, so `threat` sorts Critical > High > Medium > Low > Informational. The
 * expression is the one `findings_user_rank_idx` (migration 0012) indexes: keep them the same, or
 * the default order loses its index.
 */
const THREAT_RANK = sql<number>`case findings.threat when 'Critical' then 4 when 'High' then 3 when 'Medium' then 2 when 'Low' then 1 else 0 end`;
const RANK_OF: Record<ThreatLevel, number> = { Critical: 4, High: 3, Medium: 2, Low: 1, Informational: 0 };

/** How much of a URL the `url` filter looks at: the prefix migration 0013 keeps in `url_text`. */
export const URL_FILTER_CHARS = 400;

function matching(userId: number, filters: ResolvedFilters) {
  return (eb: Eb) => {
    const conditions: Expression<SqlBool>[] = [eb('findings.user_id', '=', userId)];
    if (filters.severity) {
      conditions.push(eb('findings.threat', '=', filters.severity));
      // Said again of the rank, so the default order's index seeks to this threat instead of
      // walking past every more severe finding (145 ms to 0.2 ms for High among 100,000).
      conditions.push(sql<SqlBool>`${THREAT_RANK} = ${RANK_OF[filters.severity]}`);
    }
    if (filters.status) conditions.push(eb('findings.status', '=', filters.status));
    if (filters.lifecycle) conditions.push(eb('findings.lifecycle', '=', filters.lifecycle));
    if (filters.targetId !== undefined) conditions.push(eb('findings.target_id', '=', filters.targetId));
    if (filters.minQod) conditions.push(eb('findings.qod', '>=', filters.minQod));
    if (filters.target) {
      const target = filters.target.toLowerCase();
      conditions.push(eb.or([eb(eb.fn('lower', ['findings.hostname']), '=', target), eb(eb.fn('lower', ['findings.host_ip']), '=', target)]));
    }
    if (filters.url) {
      // `url_text` is the URL's first URL_FILTER_CHARS characters lower-cased (migration 0013).
      conditions.push(eb('findings.url_text', 'is not', null));
      conditions.push(sql<SqlBool>`findings.url_text like lower(${containsPattern(filters.url)})`);
    }
    if (filters.search) {
      const text = sql<SqlBool>`findings.search_text like lower(${containsPattern(filters.search)})`;
      conditions.push(filters.searchScanIds.length > 0 ? eb.or([text, eb('findings.scan_id', 'in', filters.searchScanIds)]) : text);
    }
    return eb.and(conditions);
  };
}

/** The account's findings with their scan, filtered; the caller orders and limits. */
function selectVulnerabilities(db: Db, userId: number, filters: ResolvedFilters) {
  return db
    .selectFrom('findings')
    .innerJoin('scans', 'scans.id', 'findings.scan_id')
    .selectAll('findings')
    .select(['scans.uuid as scan_uuid', 'scans.scan_name'])
    .where(matching(userId, filters));
}

export type VulnerabilityRow = Awaited<ReturnType<ReturnType<typeof selectVulnerabilities>['executeTakeFirstOrThrow']>>;


/** The order of a list when the client names none: `threat`, most severe first. */
export const DEFAULT_ORDER = { sort: 'threat', direction: 'desc' } as const satisfies { sort: SortKey; direction: Direction };

const SORT_COLUMNS = {
  name: 'findings.name',
  hostname: 'findings.hostname',
  host_ip: 'findings.host_ip',
  scan_type: 'findings.scan_type',
  status: 'findings.status',
  created_at: 'findings.created_at',
} as const;

/**
 * How many matches a search may have for its page to be chosen among them (read and sorted)
 * rather than by walking the sort's index and skipping non-matches. Walking is fast when matches
 * are dense and slow when they are rare (a term in 1 row of 100,000 walks them all); the exact
 * count, known before the page is read, tells which case this is.
 */
export const SORT_AMONG_MATCHES = 5000;

/** The columns a page can be ordered by: all the page query needs from a set of matches. */
const SORTABLE = ['findings.id', 'findings.threat', 'findings.cvss_base', ...Object.values(SORT_COLUMNS)] as const;

/**
 * One page in `sort` order; ties are broken by id in the same direction, so pages never overlap.
 * `threat` orders by rank, then by CVSS score (unscored last), then by id: a High finding
 * without a score comes before a Low one with a score, and within a rank the worst score first.
 * With `fewMatches` (a search with at most SORT_AMONG_MATCHES matches) the matches are gathered
 * first, by the search's own indexes, and sorted; otherwise the page walks the sort's index.
 */
export function listVulnerabilities(
  db: Db,
  userId: number,
  filters: ResolvedFilters,
  order: { sort: SortKey; direction: Direction },
  page: { limit: number; offset: number; fewMatches?: boolean },
): Promise<VulnerabilityRow[]> {
  const { sort, direction } = order;
  const ordered = <Q extends SelectQueryBuilder<Database, 'findings', object>>(query: Q): Q => {
    let q: SelectQueryBuilder<Database, 'findings', object> = query;
    // Unscored findings go last whichever way scores are sorted.
    const byScore = <T extends SelectQueryBuilder<Database, 'findings', object>>(inner: T) =>
      inner.orderBy('findings.cvss_base', (ob) => (direction === 'asc' ? ob.asc() : ob.desc()).nullsLast());
    if (sort === 'threat') q = byScore(q.orderBy(THREAT_RANK, direction));
    else if (sort === 'cvss_base') q = byScore(q);
    else q = q.orderBy(SORT_COLUMNS[sort], direction);
    return q.orderBy('findings.id', direction) as Q;
  };
  const candidates = page.fewMatches
    ? // A materialized CTE is computed on its own, so the planner cannot turn it into an index walk.
      // Named `findings`, its columns answer the same ORDER BY as the table's.
      (db
        .with((cte) => cte('findings').materialized(), (inner) => inner.selectFrom('findings').select(SORTABLE).where(matching(userId, filters)))
        .selectFrom('findings') as unknown as SelectQueryBuilder<Database, 'findings', object>)
    : db.selectFrom('findings').where(matching(userId, filters));
  const pageIds = ordered(candidates.select('findings.id')).limit(page.limit).offset(page.offset);
  return ordered(
    db
      .selectFrom('findings')
      .innerJoin('scans', 'scans.id', 'findings.scan_id')
      .selectAll('findings')
      .select(['scans.uuid as scan_uuid', 'scans.scan_name'])
      .where('findings.user_id', '=', userId)
      .where('findings.id', 'in', pageIds),
  ).execute();
}

/**
 * How many findings the same filters match. Without filters, or with only severity and status,
 * the account's kept counters answer (a sum of at most 15 rows); otherwise the rows are counted.
 */
export async function countVulnerabilities(db: Db, userId: number, filters: ResolvedFilters): Promise<number> {
  if (!filters.search && !filters.url && !filters.target && !filters.lifecycle && filters.targetId === undefined && !filters.minQod) {
    let counted = db.selectFrom('finding_counts').select(sql<string | null>`sum(n)`.as('total')).where('user_id', '=', userId);
    if (filters.severity) counted = counted.where('threat', '=', filters.severity);
    if (filters.status) counted = counted.where('status', '=', filters.status);
    const kept = await counted.executeTakeFirstOrThrow();
    return Number(kept.total ?? 0);
  }
  const row = await db
    .selectFrom('findings')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where(matching(userId, filters))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

export function findVulnerability(db: Db, userId: number, id: number): Promise<VulnerabilityRow | undefined> {
  return selectVulnerabilities(db, userId, { searchScanIds: [] }).where('findings.id', '=', id).executeTakeFirst();
}

/** Sets the triage status of the account's finding; false when it has no such finding. */
export async function updateVulnerabilityStatus(db: Db, userId: number, id: number, status: VulnerabilityStatus): Promise<boolean> {
  const result = await db
    .updateTable('findings')
    .set({ status, updated_at: sql`now()` })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Sets the triage status of those of `ids` the account owns, in one statement; another account's
 * ids match nothing. Returns how many rows changed (the caller bounds the list).
 */
export async function updateVulnerabilitiesStatus(db: Db, userId: number, ids: number[], status: VulnerabilityStatus): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable('findings')
    .set({ status, updated_at: sql`now()` })
    .where('id', 'in', ids)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Keyset paging for the export: up to `limit` findings with an id above `afterId`, by id. Each
 * page is its own short query, so an export of any size holds no cursor, connection or memory
 * beyond one page.
 */
export function vulnerabilitiesAfter(db: Db, userId: number, filters: ResolvedFilters, afterId: number, limit: number): Promise<VulnerabilityRow[]> {
  return selectVulnerabilities(db, userId, filters).where('findings.id', '>', afterId).orderBy('findings.id', 'asc').limit(limit).execute();
}
