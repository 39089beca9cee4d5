/**
 * Web locations on findings (issue 13): `url`, `method` and `parameter`, null for network
 * findings. They are part of a finding's identity (its fingerprint, computed in
 * src/findings/finding-identity.ts); existing rows are network findings and keep theirs.
 *
 * - `search_text` now also holds the first 160 characters of the URL, so a search finds a
 *   finding by a piece of its address. The bound keeps every entry of
 *   `findings_user_search_idx` within PostgreSQL's ~2.7 kB limit for an index row even in the
 *   worst case of four-byte characters: name 400 + host name 255 + address 64 + URL 160
 *   characters is at most 2,600 bytes with the included columns. A generated column cannot change
 *   its expression before PostgreSQL 17, so it is dropped (with its two indexes) and added again.
 * - `url_text`: the first 400 characters of the URL, lower-cased, for the `url` filter; its
 *   partial index `(user_id, url_text) include (scan_id, threat, status)` holds web findings
 *   only, so it costs network scans nothing, and counts a filtered list by an index-only scan
 *   of the account's web findings, as `findings_user_search_idx` does for a search.
 */
import { sql, type Kysely } from 'kysely';
import { createTrigramIndexes } from './trigram.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table findings add column url text, add column method text, add column parameter text`.execute(db);
  await sql`alter table findings drop column search_text`.execute(db);
  await sql`
    alter table findings add column search_text text
      generated always as (lower(left(name, 400) || E'\n' || left(hostname, 255) || E'\n' || left(host_ip, 64)
                                 || coalesce(E'\n' || left(url, 160), ''))) stored`.execute(db);
  await sql`create index findings_user_search_idx on findings (user_id, search_text) include (scan_id, threat, status)`.execute(db);
  await createTrigramIndexes(db, [['findings_search_trgm_idx', 'findings', 'search_text']]);
  await sql`alter table findings add column url_text text generated always as (lower(left(url, 400))) stored`.execute(db);
  await sql`create index findings_user_url_idx on findings (user_id, url_text) include (scan_id, threat, status) where url_text is not null`.execute(db);
}
