/**
 * Reports and their mail:
 * - `runs.vulndb_synced_at` records how fresh the vulnerability database was when the run used it.
 * - `runs.narrative` keeps a run's attack narrative once written, so an LLM is asked once per run
 *   and every format of the report tells the same story.
 * - `mail_outbox` is the durable queue of report emails: one row per completed or failed run, sent
 *   by the workers with retries (`attempts`, `next_attempt_at`, the last `error` on the row).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table runs add column narrative jsonb, add column vulndb_synced_at timestamptz`.execute(db);
  await sql`
    create table mail_outbox (
      id bigint generated always as identity primary key,
      run_id bigint not null references runs (id) on delete cascade,
      recipient text not null,
      status text not null default 'pending' check (status in ('pending', 'sent', 'failed')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null default now(),
      lease_expires_at timestamptz,
      error text,
      message_id text,
      created_at timestamptz not null default now(),
      sent_at timestamptz,
      unique (run_id)
    )`.execute(db);
  await sql`create index mail_outbox_due_idx on mail_outbox (next_attempt_at) where status = 'pending'`.execute(db);
}
