/**
 * Webhooks and their durable outbox.
 * - `webhooks`: an account's HTTPS callbacks (at most 10, enforced by the service), with the
 *   Standard Webhooks secret, the chat service detected from the URL, and the last outcome.
 * - `webhook_outbox`: one message per event per webhook, worked by the run workers' processes
 *   (leased, so a dead worker gives it back), retried after growing delays. `message_id` is the
 *   `webhook-id` header: the same on every retry, so receivers can deduplicate.
 * - `webhook_deliveries`: one row per attempt, what was sent and what came back.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table webhooks (
      id bigint generated always as identity primary key,
      user_id bigint not null references users (id) on delete cascade,
      url text not null,
      events text[] not null,
      description text,
      is_active boolean not null default true,
      secret text not null,
      service text not null check (service in ('generic', 'slack', 'discord', 'teams')),
      last_delivery_at timestamptz,
      last_status integer,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index webhooks_user_idx on webhooks (user_id, id)`.execute(db);
  await sql`
    create table webhook_outbox (
      id bigint generated always as identity primary key,
      webhook_id bigint not null references webhooks (id) on delete cascade,
      message_id text not null unique,
      event text not null,
      body text not null,
      status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
      attempts integer not null default 0,
      max_attempts integer not null,
      next_attempt_at timestamptz not null default now(),
      lease_expires_at timestamptz,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index webhook_outbox_due_idx on webhook_outbox (next_attempt_at) where status = 'pending'`.execute(db);
  await sql`
    create table webhook_deliveries (
      id bigint generated always as identity primary key,
      webhook_id bigint not null references webhooks (id) on delete cascade,
      outbox_id bigint not null references webhook_outbox (id) on delete cascade,
      event text not null,
      payload jsonb not null,
      status text not null check (status in ('pending', 'succeeded', 'failed')),
      attempt integer not null,
      max_attempts integer not null,
      next_retry_at timestamptz,
      response_code integer,
      response_body text,
      duration_ms integer,
      error text,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index webhook_deliveries_webhook_idx on webhook_deliveries (webhook_id, id desc)`.execute(db);
}
