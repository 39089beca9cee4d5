/**
 * SQL that removes account records nobody can use any more: ended browser sessions, mailed links
 * spent or expired a day ago, sign-in counters quiet for a day, and OIDC logins past their expiry.
 */
import { sql } from 'kysely';
import type { Db } from '../db/database.js';

export interface PrunedCounts {
  sessions: number;
  emailTokens: number;
  throttles: number;
  oidcLogins: number;
}

export async function pruneAccountRecords(db: Db): Promise<PrunedCounts> {
  const sessions = await db
    .deleteFrom('web_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', sql<Date>`now()`), eb('idle_expires_at', '<=', sql<Date>`now()`)]))
    .executeTakeFirst();
  // Kept a day after their end, so that "this link has expired" or "already used" can still be told.
  const emailTokens = await db
    .deleteFrom('email_tokens')
    .where((eb) => eb.or([eb('expires_at', '<=', sql<Date>`now() - interval '1 day'`), eb('used_at', '<=', sql<Date>`now() - interval '1 day'`)]))
    .executeTakeFirst();
  const throttles = await db
    .deleteFrom('auth_throttles')
    .where('updated_at', '<=', sql<Date>`now() - interval '1 day'`)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', sql<Date>`now()`)]))
    .executeTakeFirst();
  const oidcLogins = await db.deleteFrom('oidc_logins').where('expires_at', '<=', sql<Date>`now()`).executeTakeFirst();
  return {
    sessions: Number(sessions.numDeletedRows),
    emailTokens: Number(emailTokens.numDeletedRows),
    throttles: Number(throttles.numDeletedRows),
    oidcLogins: Number(oidcLogins.numDeletedRows),
  };
}
