/**
 * Browsing findings fast at a million rows (issue 5's benchmark):
 * - `search_text` holds the searched fields (name, host name, address) lower-cased in one column,
 *   so a search is one LIKE per row instead of three ILIKEs. Newlines separate the fields, so a
 *   search term (a single line) cannot match across two of them. It is bounded (the first 400
 *   characters of the name, 255 of the host name as DNS allows, 64 of the address): a longer name
 *   is still shown whole, a search only looks at its beginning, and every entry of the btree
 *   below stays within PostgreSQL's limit for an index row (about 2.7 kB).
 * - Two indexes serve a search, and the planner picks: `(user_id, search_text) include (scan_id,
 *   threat, status)` counts one (alone or with the severity and status filters) by an index-only
 *   scan of the account's entries, about 10 ms per 100,000 findings whatever the term; a trigram
 *   GIN index (replacing the separate name and host name ones) is faster for a rare term in a
 *   very large account, but must re-read every candidate row (25 to 70 ms for a common term).
 * - (user_id, threat, status) answers the severity and status filters; (user_id, name, id)
 *   serves the sort by name.
 * - `finding_counts` keeps how many findings each account has per threat and status, maintained
 *   by statement-level triggers (one grouped update per statement, not one per row), so the total
 *   of an unfiltered or severity/status-filtered list is a sum of at most 15 rows instead of a
 *   count over every finding of the account. Decrements only update (never insert), so deleting
 *   an account, which cascades to both tables, cannot resurrect its counters.
 */
import { sql, type Kysely } from 'kysely';
import { createTrigramIndexes } from './trigram.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table findings add column search_text text
      generated always as (lower(left(name, 400) || E'\n' || left(hostname, 255) || E'\n' || left(host_ip, 64))) stored`.execute(db);
  await sql`create index findings_user_search_idx on findings (user_id, search_text) include (scan_id, threat, status)`.execute(db);
  await sql`drop index if exists findings_user_threat_idx`.execute(db);
  await sql`create index findings_user_threat_status_idx on findings (user_id, threat, status)`.execute(db);
  await sql`create index findings_user_name_idx on findings (user_id, name, id)`.execute(db);
  await sql`
    create table finding_counts (
      user_id bigint not null references users (id) on delete cascade,
      threat text not null,
      status text not null,
      n bigint not null,
      primary key (user_id, threat, status)
    )`.execute(db);
  await sql`
    insert into finding_counts (user_id, threat, status, n)
    select user_id, threat, status, count(*) from findings group by user_id, threat, status`.execute(db);
  // Keys are always visited in primary-key order, so concurrent statements cannot deadlock.
  await sql`
    create function finding_counts_add() returns trigger language plpgsql as $$
    begin
      insert into finding_counts (user_id, threat, status, n)
      select user_id, threat, status, count(*) from added group by user_id, threat, status order by 1, 2, 3
      on conflict (user_id, threat, status) do update set n = finding_counts.n + excluded.n;
      return null;
    end $$`.execute(db);
  await sql`
    create function finding_counts_remove() returns trigger language plpgsql as $$
    begin
      update finding_counts c set n = c.n - r.n
      from (select user_id, threat, status, count(*) as n from removed group by user_id, threat, status order by 1, 2, 3) r
      where c.user_id = r.user_id and c.threat = r.threat and c.status = r.status;
      return null;
    end $$`.execute(db);
  await sql`
    create function finding_counts_change() returns trigger language plpgsql as $$
    begin
      update finding_counts c set n = c.n - r.n
      from (select o.user_id, o.threat, o.status, count(*) as n from removed o join added a on a.id = o.id
            where (o.user_id, o.threat, o.status) is distinct from (a.user_id, a.threat, a.status)
            group by 1, 2, 3 order by 1, 2, 3) r
      where c.user_id = r.user_id and c.threat = r.threat and c.status = r.status;
      insert into finding_counts (user_id, threat, status, n)
      select a.user_id, a.threat, a.status, count(*) from removed o join added a on a.id = o.id
      where (o.user_id, o.threat, o.status) is distinct from (a.user_id, a.threat, a.status)
      group by 1, 2, 3 order by 1, 2, 3
      on conflict (user_id, threat, status) do update set n = finding_counts.n + excluded.n;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger findings_counted_insert after insert on findings
    referencing new table as added for each statement execute function finding_counts_add()`.execute(db);
  await sql`
    create trigger findings_counted_delete after delete on findings
    referencing old table as removed for each statement execute function finding_counts_remove()`.execute(db);
  await sql`
    create trigger findings_counted_update after update on findings
    referencing old table as removed new table as added for each statement execute function finding_counts_change()`.execute(db);
  await sql`drop index if exists findings_name_trgm_idx`.execute(db);
  await sql`drop index if exists findings_hostname_trgm_idx`.execute(db);
  await createTrigramIndexes(db, [['findings_search_trgm_idx', 'findings', 'search_text']]);
}
