/**
 * Password sign-in of the web application. The answer never tells whether an email is registered:
 * an unknown email, a wrong password and an account without a password (made by agent
 * registration) fail alike, after the same scrypt work (a dummy hash for unknown emails), and
 * lock-out counts every email, registered or not (sign-in-throttle.service.ts). Only the right
 * password reveals that an account is unverified or disabled.
 */
import { AppError, validationError, type FieldErrors } from '../shared/errors.js';
import { hashPassword, randomToken, verifyPassword } from '../shared/crypto.js';
import type { Db } from '../db/database.js';
import type { User } from '../db/schema.js';
import { findUserByEmail } from './users.service.js';
import { endSession, startSession, type SessionPolicy, type StartedSession } from './sessions.service.js';
import { clearSignInAttempt, reserveSignInAttempt, throttleKeys } from './sign-in-throttle.service.js';

/** The one message of an unknown email, a wrong password and an account without a password. */
export const BAD_CREDENTIALS = 'These credentials do not match our records.';

/** Why a sign-in with well-formed input was refused (lock-out is SignInLockedError). */
export type SignInRefusal = 'credentials' | 'unverified' | 'disabled';

/** A refused sign-in: wrong credentials (422), or the right password of an unverified or disabled account (403). */
export class SignInRefusedError extends AppError {
  constructor(
    readonly reason: SignInRefusal,
    message: string,
  ) {
    super(reason === 'credentials' ? 'validation_failed' : 'forbidden', message, { context: { reason } });
  }
}

/** The sign-in form's fields. */
export interface SignInInput {
  email: string;
  password: string;
}

/** Who signs in from where, and what their browser held before. */
export interface BrowserClient {
  address: string;
  userAgent?: string | undefined;
  /** The session the browser had (it ends: sign-in always starts a new one). */
  previousSessionIdHash?: string | undefined;
}

/** The deployment's rules and the browser of one sign-in. */
export interface SignInOptions {
  policy: SessionPolicy;
  /** RAMPART_REQUIRE_EMAIL_VERIFICATION: an unverified account may not sign in. */
  requireVerification: boolean;
  client: BrowserClient;
  now?: Date;
}

let dummyHash: Promise<string> | undefined;
/** A hash of a random password, verified against when there is no real one, so timing tells nothing. */
function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomToken(16));
  return dummyHash;
}

/** Checks an email and password and starts a new session; throws a 422, 403 or 429 (SignInLockedError) otherwise. */
export async function signIn(db: Db, input: SignInInput, options: SignInOptions): Promise<{ user: User; session: StartedSession }> {
  const email = input.email.trim();
  const errors: FieldErrors = {};
  if (email === '') errors.email = ['The email field is required.'];
  if (input.password === '') errors.password = ['The password field is required.'];
  if (Object.keys(errors).length > 0) throw validationError(errors);

  const now = options.now ?? new Date();
  const keys = throttleKeys(email, options.client.address);
  await reserveSignInAttempt(db, keys, now);
  // An over-long email or password cannot be anyone's: it fails like any wrong one (after the work).
  const user = email.length <= 255 ? await findUserByEmail(db, email) : undefined;
  const password = input.password.slice(0, 1024);
  const right = await verifyPassword(password, user?.password_hash ?? (await dummyPasswordHash()));
  if (!user || !user.password_hash || !right || input.password.length > 1024) throw new SignInRefusedError('credentials', BAD_CREDENTIALS);

  await clearSignInAttempt(db, keys);
  if (user.disabled_at) throw new SignInRefusedError('disabled', 'This account is disabled; ask an administrator.');
  if (options.requireVerification && !user.email_verified_at) {
    throw new SignInRefusedError('unverified', 'Verify your email address before you sign in: open the link we mailed you, or ask for a new one below.');
  }
  return { user, session: await rotateSession(db, user, options.policy, options.client) };
}

/** Starts a new session for an account that proved who it is, ending the one the browser had. */
export async function rotateSession(db: Db, user: Pick<User, 'id'>, policy: SessionPolicy, client: BrowserClient): Promise<StartedSession> {
  if (client.previousSessionIdHash) await endSession(db, client.previousSessionIdHash);
  return startSession(db, user, policy, { userAgent: client.userAgent, address: client.address });
}
