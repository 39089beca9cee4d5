/**
 * Counting search matches fast (issue 5's benchmark: `search=redis` matches 12.5% of an account).
 * - `search_text` is bounded: the first 400 characters of the name, the host name (at most 255,
 *   as DNS allows) and the address. A name longer than that is still shown whole; a search only
 *   looks at its beginning. The bound keeps every entry of the index below within PostgreSQL's
 *   limit for a btree row (about 2.7 kB), whatever an engine reports.
 * - `(user_id, search_text) include (scan_id, threat, status)` lets a search, alone or with the
 *   severity and status filters, be counted by an index-only scan of the account's entries (about
 *   10 ms per 100,000 findings), where the trigram index must re-read every candidate row from the
 *   table (25 to 70 ms for a common term). The trigram index stays: it is the faster path for a
 *   rare term in a very large account, and the planner picks between them.
 */
import { sql, type Kysely } from 'kysely';
import { createTrigramIndexes } from './trigram.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists findings_search_trgm_idx`.execute(db);
  await sql`alter table findings drop column search_text`.execute(db);
  await sql`
    alter table findings add column search_text text
      generated always as (lower(left(name, 400) || E'\n' || left(hostname, 255) || E'\n' || left(host_ip, 64))) stored`.execute(db);
  await sql`create index findings_user_search_idx on findings (user_id, search_text) include (scan_id, threat, status)`.execute(db);
  await createTrigramIndexes(db, [['findings_search_trgm_idx', 'findings', 'search_text']]);
}
