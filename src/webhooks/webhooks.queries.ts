/** SQL for webhooks, their outbox and their delivery records. */
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Db } from '../db/database.js';
import type { WebhookDeliveriesTable, WebhookOutboxTable, WebhooksTable } from '../db/schema.js';

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

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
 * Claims up to `limit` due messages for `leaseSeconds`, counting the attempt, at most one per
 * webhook at a time (a slow receiver holds only its own messages back), oldest first.
 */
export async function claimMessages(db: Db, limit: number, leaseSeconds: number): Promise<ClaimedMessage[]> {
  const result = await sql<ClaimedMessage>`
    with due as (
      select o.id from webhook_outbox o
      where o.status = 'pending' and o.next_attempt_at <= now() and (o.lease_expires_at is null or o.lease_expires_at < now())
        and not exists (select 1 from webhook_outbox busy where busy.webhook_id = o.webhook_id and busy.id <> o.id
                        and busy.status = 'pending' and busy.lease_expires_at > now())
      order by o.next_attempt_at, o.id
      for update skip locked
      limit ${limit})
    update webhook_outbox o set attempts = o.attempts + 1, lease_expires_at = now() + make_interval(secs => ${leaseSeconds})
    from due, webhooks w
    where o.id = due.id and w.id = o.webhook_id
    returning o.id, o.webhook_id, o.message_id, o.event, o.body, o.attempts, o.max_attempts, w.url, w.secret`.execute(db);
  return result.rows;
}

/** Records one attempt and moves its message on: delivered, retried at `retryAt`, or given up. */
export async function recordAttempt(
  db: Db,
  message: ClaimedMessage,
  attempt: Pick<WebhookDeliveriesTable, 'status' | 'response_code' | 'response_body' | 'duration_ms' | 'error'> & { retryAt: Date | null; disable: boolean },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_deliveries')
      .values({
        webhook_id: message.webhook_id,
        outbox_id: message.id,
        event: message.event,
        payload: message.body,
        status: attempt.status,
        attempt: message.attempts,
        max_attempts: message.max_attempts,
        next_retry_at: attempt.retryAt,
        response_code: attempt.response_code,
        response_body: attempt.response_body,
        duration_ms: attempt.duration_ms,
        error: attempt.error,
      })
      .execute();
    await trx
      .updateTable('webhook_outbox')
      .set({ status: attempt.status, lease_expires_at: null, ...(attempt.retryAt ? { next_attempt_at: attempt.retryAt } : {}) })
      .where('id', '=', message.id)
      .execute();
    await trx
      .updateTable('webhooks')
      .set({ last_delivery_at: sql`now()`, last_status: attempt.response_code, ...(attempt.disable ? { is_active: false } : {}) })
      .where('id', '=', message.webhook_id)
      .execute();
  });
}

/** The webhook's most recent attempts, newest first. */
export function recentDeliveries(db: Db, webhookId: number, limit: number): Promise<DeliveryRow[]> {
  return db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).orderBy('id', 'desc').limit(limit).execute();
}
