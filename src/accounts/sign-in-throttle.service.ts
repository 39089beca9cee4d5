/**
 * Lock-out and back-off of password sign-in, per account email and per client address, whether
 * the email is registered or not (so the answers never tell which).
 *
 * Every attempt is reserved before its password is checked, in one transaction for both keys: a
 * key that has reached its threshold is locked, and a locked key refuses the attempt (even with the
 * right password) without counting it. So parallel guesses cannot exceed the threshold, and
 * waiting out a lock earns one more attempt at a time, each doubling the next lock.
 *
 * - account `account:<lower email>`: 5 attempts, then locked 1 min, 2, 4, ... up to 1 h;
 * - address `address:<client address>`: 30 attempts (an office behind one address), the same back-off;
 * - a key quiet for 15 minutes after its last attempt and its lock starts again from zero;
 * - a right password clears its account's key and gives its address back the attempt.
 */
import { AppError } from '../shared/errors.js';
import type { Db } from '../db/database.js';
import * as throttles from './sign-in-throttle.queries.js';
import type { ThrottleRule } from './sign-in-throttle.queries.js';

/** The numbers of the account and address keys (docs: "Sign-in lock-out"). */
export const THROTTLE_RULES: { account: ThrottleRule; address: ThrottleRule } = {
  account: { threshold: 5, baseLockSeconds: 60, maxLockSeconds: 3600, quietSeconds: 900 },
  address: { threshold: 30, baseLockSeconds: 60, maxLockSeconds: 3600, quietSeconds: 900 },
};

/** The keys one sign-in attempt counts against. */
export interface ThrottleKeys {
  account: string;
  address: string;
}

/** The keys of an attempt (an over-long email is cut: it is no one's, and the key stays small). */
export function throttleKeys(email: string, clientAddress: string): ThrottleKeys {
  return { account: `account:${email.trim().toLowerCase().slice(0, 320)}`, address: `address:${clientAddress}` };
}

/** A refused attempt: a key is locked for `retryAfterSeconds` more. */
export class SignInLockedError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
    super('rate_limited', `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, { context: { retryAfterSeconds } });
  }
}

/** Reserves an attempt on both keys, or throws SignInLockedError (counting nothing) when either is locked. */
export async function reserveSignInAttempt(db: Db, keys: ThrottleKeys, now = new Date()): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const account = await throttles.reserveAttempt(trx, keys.account, THROTTLE_RULES.account, now);
    const address = account ? await throttles.reserveAttempt(trx, keys.address, THROTTLE_RULES.address, now) : undefined;
    if (account && address) return;
    // Thrown inside the transaction: the other key's reservation, if made, is rolled back too.
    const until = (await throttles.lockedUntil(trx, account ? keys.address : keys.account, now)) ?? now;
    throw new SignInLockedError(Math.ceil((until.getTime() - now.getTime()) / 1000));
  });
}

/** A right password: its account starts again from zero and its address gets the attempt back. */
export async function clearSignInAttempt(db: Db, keys: ThrottleKeys): Promise<void> {
  await throttles.deleteThrottle(db, keys.account);
  await throttles.releaseAttempt(db, keys.address, THROTTLE_RULES.address.threshold);
}

/** A password changed through a mailed link: the account's lock ends (its owner proved the mailbox). */
export function clearAccountThrottle(db: Db, email: string): Promise<void> {
  return throttles.deleteThrottle(db, throttleKeys(email, '').account);
}

/**
 * Reserves an attempt on an account's key alone, or throws SignInLockedError (counting nothing)
 * when it is locked: a password proven by a signed-in session (settings) counts against the same
 * lock as the sign-in form, so a stolen session cannot guess the password any faster.
 */
export async function reserveAccountAttempt(db: Db, email: string, now = new Date()): Promise<void> {
  const key = throttleKeys(email, '').account;
  if (await throttles.reserveAttempt(db, key, THROTTLE_RULES.account, now)) return;
  const until = (await throttles.lockedUntil(db, key, now)) ?? now;
  throw new SignInLockedError(Math.ceil((until.getTime() - now.getTime()) / 1000));
}
