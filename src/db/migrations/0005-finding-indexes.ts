/**
 * Indexes for browsing findings and targets at scale: every list is filtered by account first,
 * then sorted (cvss_base, created_at, last_scan) with id as the tie-breaker, and searched by
 * substring (pg_trgm GIN indexes, when the server lets us create the extension; without it,
 * search still works, by scanning the account's rows).
 */
import { sql, type Kysely } from 'kysely';
import { createTrigramIndexes } from './trigram.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index findings_user_cvss_idx on findings (user_id, cvss_base desc nulls last, id desc)`.execute(db);
  await sql`create index findings_user_created_idx on findings (user_id, created_at, id)`.execute(db);
  await sql`create index findings_user_threat_idx on findings (user_id, threat)`.execute(db);
  await sql`create index findings_user_status_idx on findings (user_id, status)`.execute(db);
  await sql`create index findings_user_host_idx on findings (user_id, hostname)`.execute(db);
  await sql`create index findings_user_ip_idx on findings (user_id, host_ip)`.execute(db);
  await sql`create index targets_user_last_scan_idx on targets (user_id, last_scan desc nulls last, id desc)`.execute(db);
  // The extension lives in a schema of its own (or wherever an administrator installed it), so
  // that deployments in separate schemas of one database share it; indexes name its operator
  // class by that schema.
  await sql`
    do $$
    begin
      create schema if not exists extensions;
      create extension if not exists pg_trgm schema extensions;
    exception when others then
      raise notice 'pg_trgm is not available: substring search will scan rows instead of using an index';
    end $$`.execute(db);
  await createTrigramIndexes(db, [
    ['findings_name_trgm_idx', 'findings', 'name'],
    ['findings_hostname_trgm_idx', 'findings', 'hostname'],
    ['targets_target_trgm_idx', 'targets', 'target'],
  ]);
}
