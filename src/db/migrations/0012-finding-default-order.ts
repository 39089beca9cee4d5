/**
 * The findings lists' default order (issue 12): severity rank, then CVSS score (unscored last),
 * then id, all descending. An expression index on the rank lets a page of that order be an
 * index walk of the account's entries, as `findings_user_cvss_idx` (0005) is for `sort=cvss_base`:
 * without it every page sorts all the account's findings. `threat` is included because PostgreSQL
 * needs an expression's columns in the index, not only the indexed value, to answer from the index
 * alone: without it a deep page reads every row it skips from the table, so the planner sorted
 * instead (the last page of 100,000 findings of one account: 1.15 s; with it, 47 ms). The case
 * expression must stay the one the list query orders by (THREAT_RANK in
 * src/findings/vulnerabilities.queries.ts), or the planner cannot match them.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index findings_user_rank_idx on findings (
      user_id,
      (case threat when 'Critical' then 4 when 'High' then 3 when 'Medium' then 2 when 'Low' then 1 else 0 end) desc,
      cvss_base desc nulls last,
      id desc
    ) include (threat)`.execute(db);
}
