/**
 * The local agent (issue 18, docs/AGENT.md): scan-scoped credentials, the chunks an agent's
 * attempt uploads before it completes, what a run held by an agent records of its holder, the
 * schedule of Unmanaged scans (`agent_frequency`), and runs ended as missed.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A downloaded agent's credential: only its SHA-256 is stored; a new download revokes the previous one.
  await sql`
    create table agent_credentials (
      id serial primary key,
      scan_id integer not null references scans (id) on delete cascade,
      token_hash text not null unique,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      revoked_at timestamptz,
      last_used_at timestamptz
    )`.execute(db);
  await sql`create index agent_credentials_scan on agent_credentials (scan_id)`.execute(db);
  // One live credential per scan, whatever two downloads at once do (they also lock the scan's row).
  await sql`create unique index agent_credentials_live on agent_credentials (scan_id) where revoked_at is null`.execute(db);

  // One numbered batch of an attempt's events, stored as sent until the attempt completes.
  await sql`
    create table agent_chunks (
      run_id integer not null references runs (id) on delete cascade,
      lease_hash text not null,
      seq integer not null,
      events jsonb not null,
      digest text not null,
      created_at timestamptz not null default now(),
      primary key (run_id, seq)
    )`.execute(db);

  // A run held by an agent: runs.lease_owner is 'agent:<lease hash>' while it holds it; the hash of
  // the attempt's lease stays after the end (a repeated complete answers the same), with the holder.
  await sql`alter table runs add column agent_lease_hash text`.execute(db);
  await sql`alter table runs add column agent_id text`.execute(db);
  await sql`alter table runs add column agent_hostname text`.execute(db);

  // The schedule of an Unmanaged scan's runs awaiting the agent; null: one run, at creation.
  await sql`alter table scans add column agent_frequency text
    check (agent_frequency in ('Daily', 'Weekly', 'Monthly', 'Quarterly', 'Yearly'))`.execute(db);

  // A scheduled run no agent took before the next one was due.
  await sql`alter table runs drop constraint runs_error_kind_check`.execute(db);
  await sql`alter table runs add constraint runs_error_kind_check
    check (error_kind in ('network-temporary', 'network-permanent', 'deadline', 'config', 'internal', 'missed'))`.execute(db);
}
