/**
 * One delivery record per event, its attempts inside it (issue 12). Until now each attempt was a
 * `webhook_deliveries` row with a status of its own: a retried event showed as several deliveries,
 * and the attempts it outlived stayed `pending` for ever. Now:
 * - `webhook_outbox` is the delivery: one row per event per webhook, its status the delivery's
 *   (pending until it succeeds or its attempts run out), as it already was for the queue.
 * - `webhook_attempts`: one row per attempt, written when the attempt is claimed (so one in flight
 *   shows) and completed with what came back.
 * - `webhooks.last_status` becomes text describing the latest attempt, e.g.
 *   `pending (attempt 2 of 6 failed: HTTP 500)`: a receiver that never answered left it null.
 *
 * Existing rows: each attempt moves under its outbox row, its own status and retry time dropped
 * (the outbox row holds the delivery's). An attempt claimed but never recorded (its worker stopped)
 * is given back, so the delivery is due again rather than counting an attempt it has no record
 * of. Each webhook's last_status is rewritten from its latest recorded attempt.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table webhook_attempts (
      outbox_id bigint not null references webhook_outbox (id) on delete cascade,
      attempt integer not null,
      started_at timestamptz not null default now(),
      finished_at timestamptz,
      response_code integer,
      response_body text,
      duration_ms integer,
      error text,
      primary key (outbox_id, attempt)
    )`.execute(db);
  // The old rows were written when the attempt ended: it started duration_ms before.
  await sql`
    insert into webhook_attempts (outbox_id, attempt, started_at, finished_at, response_code, response_body, duration_ms, error)
    select outbox_id, attempt, created_at - make_interval(secs => coalesce(duration_ms, 0) / 1000.0), created_at,
           response_code, response_body, duration_ms, error
    from webhook_deliveries
    order by id
    on conflict (outbox_id, attempt) do nothing`.execute(db);
  await sql`
    update webhook_outbox o set attempts = recorded.n, lease_expires_at = null
    from (select o2.id, coalesce(max(a.attempt), 0) as n
          from webhook_outbox o2 left join webhook_attempts a on a.outbox_id = o2.id
          where o2.status = 'pending' group by o2.id) recorded
    where o.id = recorded.id and o.attempts > recorded.n`.execute(db);
  // The listing of a webhook's deliveries, and the claim's "is this webhook busy" test.
  await sql`create index webhook_outbox_webhook_idx on webhook_outbox (webhook_id, id desc)`.execute(db);

  // The same words as describeLastStatus (src/webhooks/delivery-record.ts) wrote at the time.
  await sql`alter table webhooks alter column last_status type text using null`.execute(db);
  await sql`
    update webhooks w set last_status = latest.text
    from (select distinct on (d.webhook_id) d.webhook_id,
                 d.status || ' (attempt ' || d.attempt || ' of ' || d.max_attempts
                 || case when d.status = 'succeeded' then ': ' else ' failed: ' end
                 || coalesce('HTTP ' || d.response_code, left(d.error, 200), 'no answer') || ')' as text
          from webhook_deliveries d
          order by d.webhook_id, d.id desc) latest
    where w.id = latest.webhook_id`.execute(db);
  await sql`drop table webhook_deliveries`.execute(db);
}
