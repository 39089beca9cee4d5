/**
 * Browser sessions of the web application. A session is a random 256-bit token in an HttpOnly
 * cookie; the store keeps only its SHA-256, the account, and two expiries: an idle one that slides
 * forward with use and an absolute one that never moves. Signing in always makes a new session
 * (rotation), so a token planted before sign-in is worth nothing after it.
 */
import { randomToken, sha256Hex } from '../shared/crypto.js';
import type { Db } from '../db/database.js';
import type { User, WebSession } from '../db/schema.js';
import * as sessions from './sessions.queries.js';

export interface SessionPolicy {
  /** A session unused this long ends. */
  idleMinutes: number;
  /** Every session ends this long after sign-in. */
  maxHours: number;
}

export interface StartedSession {
  /** The cookie value: shown to the browser once, never stored. */
  token: string;
  idHash: string;
  expiresAt: Date;
}

/** Starts a session for an account that just proved who it is. */
export async function startSession(
  db: Db,
  user: Pick<User, 'id'>,
  policy: SessionPolicy,
  client: { userAgent?: string | undefined; address?: string | undefined },
  now = new Date(),
): Promise<StartedSession> {
  const token = randomToken(32);
  const idHash = sha256Hex(token);
  const expiresAt = new Date(now.getTime() + policy.maxHours * 3_600_000);
  const idleExpiresAt = new Date(Math.min(expiresAt.getTime(), now.getTime() + policy.idleMinutes * 60_000));
  await sessions.insertSession(db, {
    id_hash: idHash,
    user_id: user.id,
    idle_expires_at: idleExpiresAt,
    expires_at: expiresAt,
    user_agent: client.userAgent?.slice(0, 300) ?? null,
    address: client.address ?? null,
  });
  return { token, idHash, expiresAt };
}

/** The session and account of a cookie token, or undefined when it ended, is unknown or its account is disabled. */
export async function resumeSession(db: Db, token: string, policy: SessionPolicy, now = new Date()): Promise<{ session: WebSession; user: User } | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  return sessions.touchSession(db, sha256Hex(token), new Date(now.getTime() + policy.idleMinutes * 60_000));
}

/** Sign out: the session ends now. */
export function endSession(db: Db, idHash: string): Promise<void> {
  return sessions.deleteSession(db, idHash);
}

/** Ends an account's sessions (password reset, disabled account), keeping one when given. */
export function endUserSessions(db: Db, userId: number, keepIdHash?: string): Promise<number> {
  return sessions.deleteUserSessions(db, userId, keepIdHash);
}
