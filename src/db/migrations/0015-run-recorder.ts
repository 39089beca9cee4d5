/**
 * The run recorder (issue 13):
 * - Runs recorded from uploaded results (POST /api/scans/{uuid}/results, `rampart import`) have
 *   the trigger 'import'.
 * - The counters of findings per account, threat and status (`finding_counts`, migration 0007)
 *   follow an update of findings without joining its old and new rows. PL/pgSQL plans that join
 *   once, when the transition tables of the session's first update are tiny (an upsert that
 *   updated nothing), and reuses the plan: a nested loop over both tables, quadratic in the rows
 *   one statement updates. Labelling a run of 8,000 findings (one update of 8,000 rows) took 150 s.
 *   Now each key's net change is the count of its new rows minus the count of its old ones, from
 *   two grouped scans, linear whatever the plan; keys whose count did not change are not touched.
 * - A finding stored for the first time is labelled 'new' at once (what judging its run would
 *   label it), so that judging rewrites only the rows whose label changes: every rewrite of a
 *   finding row updates each of its indexes.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table runs drop constraint runs_trigger_check`.execute(db);
  await sql`alter table runs add constraint runs_trigger_check check (trigger in ('create', 'schedule', 'rerun', 'import'))`.execute(db);
  await sql`alter table findings alter column lifecycle set default 'new'`.execute(db);
  // One statement visiting keys in primary-key order, so concurrent updates cannot deadlock on
  // the counters. Every key it decrements has a row already: the findings it counts exist.
  await sql`
    create or replace function finding_counts_change() returns trigger language plpgsql as $$
    begin
      insert into finding_counts (user_id, threat, status, n)
      select user_id, threat, status, sum(n)::bigint from (
        select user_id, threat, status, count(*) as n from added group by 1, 2, 3
        union all
        select user_id, threat, status, -count(*) from removed group by 1, 2, 3) changes
      group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
      on conflict (user_id, threat, status) do update set n = finding_counts.n + excluded.n;
      return null;
    end $$`.execute(db);
}
