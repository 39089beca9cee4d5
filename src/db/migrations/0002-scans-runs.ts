/**
 * Scans, their runs (which double as the work queue), the targets they touch and the findings
 * they produce. The findings columns are the Vulnerability resource of DESIGN.md.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table scans (
      id bigint generated always as identity primary key,
      uuid uuid not null unique,
      user_id bigint not null references users (id) on delete cascade,
      scan_name text not null,
      scan_type text not null check (scan_type in ('Rampart', 'OpenVas', 'ZAP', 'Nuclei')),
      scan_target text not null,
      targets jsonb not null,
      zap_authenticated boolean not null default false,
      zap_login_script text,
      include_attack_narrative boolean not null default false,
      scan_frequency text not null
        check (scan_frequency in ('One-time', 'Daily', 'Weekly', 'Monthly', 'Quarterly', 'Yearly', 'Unmanaged')),
      scan_start_date text,
      scan_start_time text,
      scan_time_zone text not null,
      scan_email text not null,
      schedule_anchor text,
      next_run_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index scans_user_id_idx on scans (user_id, id)`.execute(db);
  await sql`create index scans_due_idx on scans (next_run_at) where next_run_at is not null`.execute(db);

  await sql`
    create table runs (
      id bigint generated always as identity primary key,
      scan_id bigint not null references scans (id) on delete cascade,
      run_index integer not null,
      status text not null default 'current' check (status in ('current', 'completed')),
      outcome text check (outcome in ('succeeded', 'failed', 'cancelled')),
      progress text not null default 'Queued',
      progress_percent integer not null default 0,
      trigger text not null check (trigger in ('create', 'schedule', 'rerun')),
      scheduled_for timestamptz,
      engine text,
      engine_version text,
      attempts integer not null default 0,
      lease_owner text,
      lease_expires_at timestamptz,
      error text,
      hosts_up integer not null default 0,
      hosts_down integer not null default 0,
      findings_count integer not null default 0,
      queued_at timestamptz not null default now(),
      started_at timestamptz,
      completed_at timestamptz,
      unique (scan_id, run_index)
    )`.execute(db);
  // At most one current run per scan; each scheduled period fires at most once.
  await sql`create unique index runs_one_current_idx on runs (scan_id) where status = 'current'`.execute(db);
  await sql`create unique index runs_period_idx on runs (scan_id, scheduled_for) where scheduled_for is not null`.execute(db);
  await sql`create index runs_queue_idx on runs (queued_at) where status = 'current'`.execute(db);

  await sql`
    create table targets (
      id bigint generated always as identity primary key,
      user_id bigint not null references users (id) on delete cascade,
      target text not null,
      type text not null check (type in ('Domain', 'Ip')),
      description text,
      status text not null default 'Unknown' check (status in ('Active', 'Inactive', 'Unknown')),
      last_scan timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (user_id, target)
    )`.execute(db);

  await sql`
    create table findings (
      id bigint generated always as identity primary key,
      user_id bigint not null references users (id) on delete cascade,
      scan_id bigint not null references scans (id) on delete cascade,
      target_id bigint references targets (id) on delete cascade,
      run_id bigint references runs (id) on delete set null,
      run_index integer not null,
      fingerprint text not null,
      name text not null,
      description text not null default '',
      solution text not null default '',
      threat text not null check (threat in ('Critical', 'High', 'Medium', 'Low', 'Informational')),
      cvss_base double precision,
      cvss_vector text,
      cve text[] not null default '{}',
      cwe text,
      hostname text not null,
      host_ip text not null,
      port integer,
      protocol text,
      service text,
      scan_type text not null,
      engine text not null,
      rule_id text not null,
      evidence text not null default '',
      "references" text[] not null default '{}',
      status text not null default 'Unresolved' check (status in ('Unresolved', 'Accepted', 'False Positive')),
      first_seen_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now(),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (user_id, fingerprint)
    )`.execute(db);
  await sql`create index findings_scan_id_idx on findings (scan_id)`.execute(db);
  await sql`create index findings_target_id_idx on findings (target_id)`.execute(db);
}
