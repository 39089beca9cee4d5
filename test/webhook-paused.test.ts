/**
 * A switched-off webhook's undelivered events wait: the delivery worker's claim skips them (a
 * ping, asked for explicitly, still goes out) until the webhook is switched back on.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { buildTestApp, signUp } from './helpers/app.js';
import { claimMessages } from '../src/webhooks/webhooks.queries.js';

test('a switched-off webhook keeps its queued events until it is switched back on; pings still go', async (t) => {
  const ctx = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8' } });
  const user = await signUp(ctx);
  const call = (method: 'POST' | 'PUT', url: string, payload: object) =>
    ctx.app.inject({ method, url, payload, headers: { ...user.auth, 'content-type': 'application/json' } });
  const created = await call('POST', '/api/webhooks', { url: 'https://127.0.0.1:9/hook', events: ['scan.completed'] });
  assert.equal(created.statusCode, 201, created.body);
  const hook = created.json().data as { id: number };
  // An event queued while the webhook was on (as a finished run queues it).
  await ctx.store.db.insertInto('webhook_outbox').values({ webhook_id: hook.id, message_id: `msg_${randomUUID()}`, event: 'scan.completed', body: '{}', max_attempts: 3 }).execute();

  assert.equal((await call('PUT', `/api/webhooks/${hook.id}`, { is_active: false })).statusCode, 200);
  assert.equal((await call('POST', `/api/webhooks/${hook.id}/test`, {})).statusCode, 200);
  const whileOff = await claimMessages(ctx.store.db, 10, 60);
  assert.deepEqual(whileOff.map((m) => m.event), ['ping'], 'only the ping is claimed while the webhook is off');

  assert.equal((await call('PUT', `/api/webhooks/${hook.id}`, { is_active: true })).statusCode, 200);
  // The ping's lease holds the webhook for 60 s: end it as a worker would once it answered.
  await ctx.store.db.updateTable('webhook_outbox').set({ status: 'succeeded', lease_expires_at: null }).where('event', '=', 'ping').execute();
  const whenOn = await claimMessages(ctx.store.db, 10, 60);
  assert.deepEqual(whenOn.map((m) => m.event), ['scan.completed'], 'the waiting event goes out once the webhook is on again');
});
