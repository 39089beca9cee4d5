/**
 * Migration 0010 on a store holding 0009's delivery rows (one per attempt): each event becomes one
 * delivery with its attempts inside, as the API shows them, and last_status is rewritten in words.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Migrator, sql } from 'kysely';
import { createApiKey } from '../src/accounts/api-keys.service.js';
import { migrateToLatest } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { buildTestApp, openTestStore } from './helpers/app.js';

test('migration 0010 folds the attempt rows of each event into one delivery and rewrites last_status', async (t) => {
  const { store } = await openTestStore(t, { migrate: false });
  const migrator = new Migrator({ db: store.db, migrationTableSchema: store.schema, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateTo('0009-webhooks');
  assert.equal(error, undefined);

  // As 0009 left them: a ping that succeeded on its third attempt, then an event whose first
  // attempt failed and whose second was claimed but never recorded (its worker stopped).
  const seeded = await sql<{ user_id: number; webhook_id: number; done: number; open: number }>`
    with u as (insert into users (name, email) values ('Old', 'old@example.com') returning id),
    w as (insert into webhooks (user_id, url, events, secret, service, last_delivery_at, last_status)
          select id, 'https://hooks.example.com/x', '{scan.completed}', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'generic', now(), null from u
          returning id, user_id),
    done as (insert into webhook_outbox (webhook_id, message_id, event, body, status, attempts, max_attempts)
             select id, 'msg_done', 'ping', '{"type":"ping","n":1}', 'succeeded', 3, 6 from w returning id),
    open as (insert into webhook_outbox (webhook_id, message_id, event, body, status, attempts, max_attempts, next_attempt_at, lease_expires_at)
             select id, 'msg_open', 'scan.completed', '{"type":"scan.completed","n":2}', 'pending', 2, 6, '2030-01-01T00:00:00Z', now() + interval '1 minute' from w
             returning id)
    select w.user_id, w.id as webhook_id, done.id as done, open.id as open from w, done, open`.execute(store.db);
  const ids = seeded.rows[0]!;
  await sql`
    insert into webhook_deliveries (webhook_id, outbox_id, event, payload, status, attempt, max_attempts, next_retry_at, response_code, response_body, duration_ms, error, created_at)
    values (${ids.webhook_id}, ${ids.done}, 'ping', '{"type":"ping","n":1}', 'pending', 1, 6, now(), 500, 'answer 500', 40, null, '2025-01-01T10:00:00Z'),
           (${ids.webhook_id}, ${ids.done}, 'ping', '{"type":"ping","n":1}', 'pending', 2, 6, now(), 503, 'answer 503', 30, null, '2025-01-01T10:00:10Z'),
           (${ids.webhook_id}, ${ids.done}, 'ping', '{"type":"ping","n":1}', 'succeeded', 3, 6, null, 200, 'answer 200', 20, null, '2025-01-01T10:01:10Z'),
           (${ids.webhook_id}, ${ids.open}, 'scan.completed', '{"type":"scan.completed","n":2}', 'pending', 1, 6, '2030-01-01T00:00:00Z', null, null, 5000,
            'could not connect: connect ECONNREFUSED 192.0.2.1:443', '2025-01-02T10:00:00Z')`.execute(store.db);

  assert.deepEqual(await migrateToLatest(store), Object.keys(migrations).filter((name) => name > '0009-webhooks'));

  const ctx = await buildTestApp(t, { store });
  const key = await createApiKey(store.db, ids.user_id, 'test');
  const token = (await ctx.app.inject({ method: 'POST', url: `/api/token?key=${encodeURIComponent(key.key)}` })).json().token;
  const auth = { authorization: `Bearer ${token}` };
  const deliveries = (await ctx.app.inject({ method: 'GET', url: `/api/webhooks/${ids.webhook_id}/deliveries`, headers: auth })).json().data;

  assert.deepEqual(deliveries.map((d: { id: number }) => d.id), [ids.open, ids.done], 'one record per event, newest first');
  const [open, done] = deliveries;
  assert.deepEqual(
    [done.event, done.status, done.attempt, done.max_attempts, done.next_retry_at, done.response_code, done.response_body, done.duration_ms, done.payload],
    ['ping', 'succeeded', 3, 6, null, 200, 'answer 200', 20, { type: 'ping', n: 1 }],
  );
  assert.deepEqual(done.attempts, [
    { attempt: 1, status: 'failed', started_at: '2025-01-01T09:59:59.960Z', duration_ms: 40, response_code: 500, response_body: 'answer 500', error: null },
    { attempt: 2, status: 'failed', started_at: '2025-01-01T10:00:09.970Z', duration_ms: 30, response_code: 503, response_body: 'answer 503', error: null },
    { attempt: 3, status: 'succeeded', started_at: '2025-01-01T10:01:09.980Z', duration_ms: 20, response_code: 200, response_body: 'answer 200', error: null },
  ]);
  // The unrecorded second attempt is given back: the delivery is due again, one attempt made.
  assert.deepEqual(
    [open.event, open.status, open.attempt, open.next_retry_at, open.response_code, open.error],
    ['scan.completed', 'pending', 1, '2030-01-01T00:00:00.000Z', null, 'could not connect: connect ECONNREFUSED 192.0.2.1:443'],
  );
  assert.deepEqual(open.attempts.map((a: { attempt: number; status: string }) => [a.attempt, a.status]), [[1, 'failed']]);

  const webhook = (await ctx.app.inject({ method: 'GET', url: '/api/webhooks', headers: auth })).json().data[0];
  assert.equal(webhook.last_status, 'pending (attempt 1 of 6 failed: could not connect: connect ECONNREFUSED 192.0.2.1:443)');
});
