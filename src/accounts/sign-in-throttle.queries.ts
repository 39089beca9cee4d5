/** SQL for sign-in lock-out and back-off (auth_throttles). */
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.js';

/** The numbers of one kind of key (account or client address). */
export interface ThrottleRule {
  /** Attempts a key may make before it is locked. */
  threshold: number;
  /** The first lock, in seconds; each later attempt doubles it... */
  baseLockSeconds: number;
  /** ...up to this. */
  maxLockSeconds: number;
  /** A key quiet this long after its last attempt (and after its lock ended) starts again from zero. */
  quietSeconds: number;
}

/**
 * Reserves one attempt for a key, in one statement (so parallel attempts cannot outrun the count):
 * adds one to its failures (from zero when the key has been quiet), and locks it when that reaches
 * the threshold, for baseLock * 2^(failures - threshold) seconds, at most maxLock. A key locked at
 * `now` is left as it is and nothing is returned: the attempt is refused.
 */
export async function reserveAttempt(db: Db, key: string, rule: ThrottleRule, now: Date): Promise<{ failures: number; locked_until: Date | null } | undefined> {
  const at = sql`${now.toISOString()}::timestamptz`;
  const quiet = sql`greatest(auth_throttles.updated_at, coalesce(auth_throttles.locked_until, auth_throttles.updated_at)) + ${rule.quietSeconds}::int * interval '1 second' <= ${at}`;
  const next = sql`(case when ${quiet} then 1 else auth_throttles.failures + 1 end)`;
  const lockFor = (failures: RawBuilder<unknown>) =>
    sql`case when ${failures} >= ${rule.threshold}::int
      then ${at} + least(${rule.maxLockSeconds}::float8, ${rule.baseLockSeconds}::float8 * power(2::float8, least(${failures} - ${rule.threshold}::int, 16))) * interval '1 second'
      else null end`;
  const result = await sql<{ failures: number; locked_until: Date | null }>`
    insert into auth_throttles (key, failures, window_started_at, locked_until, updated_at)
    values (${key}, 1, ${at}, ${lockFor(sql`1`)}, ${at})
    on conflict (key) do update set
      failures = ${next},
      window_started_at = case when ${quiet} then ${at} else auth_throttles.window_started_at end,
      locked_until = ${lockFor(next)},
      updated_at = ${at}
    where auth_throttles.locked_until is null or auth_throttles.locked_until <= ${at}
    returning failures, locked_until`.execute(db);
  const row = result.rows[0];
  return row ? { failures: Number(row.failures), locked_until: row.locked_until ? new Date(row.locked_until) : null } : undefined;
}

/** Until when a key is locked (null when it is not, or unknown). */
export async function lockedUntil(db: Db, key: string, now: Date): Promise<Date | null> {
  const row = await db.selectFrom('auth_throttles').select('locked_until').where('key', '=', key).where('locked_until', '>', now).executeTakeFirst();
  return row?.locked_until ? new Date(row.locked_until) : null;
}

/** Forgets a key (a successful sign-in clears its account's count). */
export async function deleteThrottle(db: Db, key: string): Promise<void> {
  await db.deleteFrom('auth_throttles').where('key', '=', key).execute();
}

/**
 * Gives back an attempt that turned out not to be a failure (a right password counted against its
 * client address), unlocking the key if that brings it back under the threshold.
 */
export async function releaseAttempt(db: Db, key: string, threshold: number): Promise<void> {
  await db
    .updateTable('auth_throttles')
    .set({
      failures: sql`greatest(failures - 1, 0)`,
      locked_until: sql`case when failures - 1 < ${threshold}::int then null else locked_until end`,
    })
    .where('key', '=', key)
    .execute();
}
