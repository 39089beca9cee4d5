/**
 * SQL for webhooks and their deliveries: a delivery is a `webhook_outbox` row (one event to one
 * webhook, and its place in the queue), its attempts `webhook_attempts` rows.
 */
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { Db } from '../db/database.js';
import type { WebhookAttemptsTable, WebhookOutboxTable, WebhooksTable } from '../db/schema.js';

export type WebhookRow = Selectable<WebhooksTable>;

export function listWebhooks(db: Db, userId: number): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

export async function countWebhooks(db: Db, userId: number): Promise<number> {
  const row = await db.selectFrom('webhooks').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Any account's webhook: the service tells "not yours" (403) from "no such webhook" (404). */
export function findWebhook(db: Db, id: number): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

export function insertWebhook(db: Db, row: Insertable<WebhooksTable>): Promise<WebhookRow> {
  return db.insertInto('webhooks').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateWebhook(db: Db, id: number, changes: Updateable<WebhooksTable>): Promise<WebhookRow> {
  return db.updateTable('webhooks').set({ ...changes, updated_at: sql`now()` }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteWebhook(db: Db, id: number): Promise<void> {
  await db.deleteFrom('webhooks').where('id', '=', id).execute();
}

/** Turns off every webhook of an account; returns how many were on. */
export async function deactivateUserWebhooks(db: Db, userId: number): Promise<number> {
  const rows = await db.updateTable('webhooks').set({ is_active: false, updated_at: sql`now()` }).where('user_id', '=', userId).where('is_active', '=', true).returning('id').execute();
  return rows.length;
}

/** The owner's active webhooks subscribed to the event. */
export function subscribedWebhooks(db: Db, userId: number, event: string): Promise<WebhookRow[]> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('user_id', '=', userId)
    .where('is_active', '=', true)
    .where(sql<boolean>`${event} = any(events)`)
    .execute();
}

export async function enqueueMessages(db: Db, rows: Insertable<WebhookOutboxTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('webhook_outbox').values(rows).execute();
}

export interface ClaimedMessage {
  id: number;
  webhook_id: number;
  message_id: string;
  event: WebhookOutboxTable['event'];
  body: string;
  attempts: number;
  max_attempts: number;
  url: string;
  secret: string;
}

/**
 * Claims up to `limit` due messages for `leaseSeconds`, counting the attempt and writing its row
 * (so an attempt in flight shows), at most one per webhook at a time (a slow receiver holds only
 * its own messages back), oldest first; a switched-off webhook's events wait until it is switched
 * back on. One statement: the claim and the attempt rows commit together.
 */
export async function claimMessages(db: Db, limit: number, leaseSeconds: number): Promise<ClaimedMessage[]> {
  const result = await sql<ClaimedMessage>`
    with due as (
      select o.id from webhook_outbox o
      where o.status = 'pending' and o.next_attempt_at <= now() and (o.lease_expires_at is null or o.lease_expires_at < now())
        -- The busy webhooks as one hashed set. Probed per candidate through webhook_outbox_webhook_idx
        -- (PGlite's plan once that index existed) the claim took 530 ms instead of 47 with 2,000 due.
        and o.webhook_id not in (select busy.webhook_id from webhook_outbox busy where busy.status = 'pending' and busy.lease_expires_at > now())
        -- A switched-off webhook's messages wait (a ping was asked for explicitly and goes out).
        and (o.event = 'ping' or exists (select 1 from webhooks active where active.id = o.webhook_id and active.is_active))
      order by o.next_attempt_at, o.id
      for update skip locked
      limit ${limit}),
    claimed as (
      update webhook_outbox o set attempts = o.attempts + 1, lease_expires_at = now() + make_interval(secs => ${leaseSeconds})
      from due, webhooks w
      where o.id = due.id and w.id = o.webhook_id
      returning o.id, o.webhook_id, o.message_id, o.event, o.body, o.attempts, o.max_attempts, w.url, w.secret),
    started as (
      insert into webhook_attempts (outbox_id, attempt) select id, attempts from claimed)
    select * from claimed`.execute(db);
  return result.rows;
}

/** What one attempt produced and what it leaves the delivery and its webhook in. */
export type AttemptOutcome = Pick<WebhookAttemptsTable, 'response_code' | 'response_body' | 'duration_ms' | 'error'> & {
  status: 'pending' | 'succeeded' | 'failed';
  retryAt: Date | null;
  /** The webhook's new last_status. */
  lastStatus: string;
  /** Switch the webhook off (the receiver answered 410 Gone). */
  disable: boolean;
};

/**
 * Records one attempt's result and moves its message on: delivered, retried at `retryAt`, or given
 * up; the webhook's last_status follows. A worker whose lease ran out and whose message was claimed
 * again still records its attempt, but leaves the message and the webhook to the newer attempt.
 * Returns false in that case. One statement, so atomic without a transaction's round trips.
 */
export async function recordAttempt(db: Db, message: ClaimedMessage, outcome: AttemptOutcome): Promise<boolean> {
  const result = await sql<{ id: number }>`
    with attempt as (
      update webhook_attempts
      set finished_at = now(), response_code = ${outcome.response_code}, response_body = ${outcome.response_body},
          duration_ms = ${outcome.duration_ms}, error = ${outcome.error}
      where outbox_id = ${message.id} and attempt = ${message.attempts}),
    delivery as (
      update webhook_outbox
      set status = ${outcome.status}, lease_expires_at = null, next_attempt_at = coalesce(${outcome.retryAt}::timestamptz, next_attempt_at)
      where id = ${message.id} and attempts = ${message.attempts}
      returning webhook_id)
    update webhooks w
    set last_delivery_at = now(), last_status = ${outcome.lastStatus}, is_active = w.is_active and not ${outcome.disable}
    from delivery
    where w.id = delivery.webhook_id
    returning w.id`.execute(db);
  return result.rows.length > 0;
}

/**
 * The webhook's most recent deliveries, newest first, each with its attempts (oldest first), read
 * in one statement so a delivery and its attempts are seen at the same moment. `in_flight`: an
 * attempt holds a live lease. Timestamps inside `attempts` come back as JSON text.
 */
export function recentDeliveries(db: Db, webhookId: number, limit: number) {
  return db
    .selectFrom('webhook_outbox as o')
    .select(['o.id', 'o.webhook_id', 'o.event', 'o.body', 'o.status', 'o.attempts as attempt', 'o.max_attempts', 'o.next_attempt_at', 'o.created_at'])
    .select(sql<boolean>`coalesce(o.status = 'pending' and o.lease_expires_at > now(), false)`.as('in_flight'))
    .select((eb) =>
      jsonArrayFrom(
        eb
          .selectFrom('webhook_attempts as a')
          .select(['a.attempt', 'a.started_at', 'a.finished_at', 'a.response_code', 'a.response_body', 'a.duration_ms', 'a.error'])
          .whereRef('a.outbox_id', '=', 'o.id')
          .orderBy('a.attempt'),
      ).as('attempts'),
    )
    .where('o.webhook_id', '=', webhookId)
    .orderBy('o.id', 'desc')
    .limit(limit)
    .execute();
}

/** A delivery as `recentDeliveries` reads it. */
export type DeliveryRow = Awaited<ReturnType<typeof recentDeliveries>>[number];
