/**
 * What a squatter may leave in an unverified account (with RAMPART_REQUIRE_EMAIL_VERIFICATION off
 * they can use it): a session, an API key, a webhook and a pending address change; and the check
 * that a claim by the address's owner (OIDC, password reset, agent registration) removed them all.
 */
import assert from 'node:assert/strict';
import type { Db } from '../../src/db/database.js';
import type { User } from '../../src/db/schema.js';
import { createApiKey } from '../../src/accounts/api-keys.service.js';
import { issueEmailToken } from '../../src/accounts/email-tokens.service.js';
import { resumeSession, startSession } from '../../src/accounts/sessions.service.js';

const POLICY = { idleMinutes: 60, maxHours: 2 };

/** What the squatter left: the session's token and the key's prefix. */
export interface Leftovers {
  sessionToken: string;
  keyPrefix: string;
}

/** Gives an (unverified) account a session, an API key, an active webhook and a pending address change. */
export async function leaveSquattersThings(db: Db, user: User): Promise<Leftovers> {
  const session = await startSession(db, user, POLICY, {});
  const key = await createApiKey(db, user.id, 'squatter');
  await db
    .insertInto('webhooks')
    .values({ user_id: user.id, url: 'https://squatter.example/hook', events: ['run.completed'], description: null, secret: 'whsec_c3F1YXR0ZXI=', service: 'generic', last_delivery_at: null, last_status: null })
    .execute();
  await issueEmailToken(db, user.id, 'change-email', 'squatter@elsewhere.example');
  return { sessionToken: session.token, keyPrefix: key.record.prefix };
}

/** Asserts the claim removed what the squatter left (the password is the caller's to check). */
export async function assertSquatterGone(db: Db, userId: number, left: Leftovers): Promise<void> {
  assert.equal(await resumeSession(db, left.sessionToken, POLICY), undefined, "the squatter's session ended");
  const keys = await db.selectFrom('api_keys').select('prefix').where('user_id', '=', userId).execute();
  assert.ok(!keys.some((k) => k.prefix === left.keyPrefix), "the squatter's API key is deleted");
  const hooks = await db.selectFrom('webhooks').select('is_active').where('user_id', '=', userId).execute();
  assert.equal(hooks.length, 1, 'the webhook is kept (its owner can see it)...');
  assert.equal(hooks[0]!.is_active, false, '...but turned off');
  const pending = await db.selectFrom('email_tokens').select('used_at').where('user_id', '=', userId).where('purpose', '=', 'change-email').execute();
  assert.ok(pending.length > 0 && pending.every((p) => p.used_at !== null), 'the pending address change is voided');
  const row = await db.selectFrom('users').select('email_verified_at').where('id', '=', userId).executeTakeFirstOrThrow();
  assert.ok(row.email_verified_at, 'the address is verified');
}
