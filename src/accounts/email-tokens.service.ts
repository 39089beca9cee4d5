/**
 * One-time links sent by email: email verification, password reset, and confirming a new address.
 * A link carries a random 256-bit token; the store keeps its SHA-256, the purpose, the address it
 * was sent to and an expiry. A token is spent by the first use, and a spent, expired or unknown
 * token is refused with a message saying which (so the person knows to ask for a new link).
 */
import { AppError } from '../shared/errors.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import type { Db } from '../db/database.js';
import type { EmailToken, EmailTokenPurpose } from '../db/schema.js';
import * as tokens from './email-tokens.queries.js';

/** How long each kind of link stays valid. */
export const EMAIL_TOKEN_TTL_MINUTES: Record<EmailTokenPurpose, number> = {
  'verify-email': 24 * 60,
  'reset-password': 60,
  'change-email': 24 * 60,
};

/** Makes a link's token for an account; returns the token to put in the link (never stored). */
export async function issueEmailToken(db: Db, userId: number, purpose: EmailTokenPurpose, email: string, now = new Date()): Promise<string> {
  const token = randomToken(32);
  await tokens.insertEmailToken(db, {
    token_hash: sha256Hex(token),
    user_id: userId,
    purpose,
    email,
    expires_at: new Date(now.getTime() + EMAIL_TOKEN_TTL_MINUTES[purpose] * 60_000),
  });
  return token;
}

/**
 * Spends a link's token. Refused (422 on `token`) when it is unknown, already used or expired,
 * with a message saying which.
 */
export async function spendEmailToken(db: Db, token: string, purpose: EmailTokenPurpose): Promise<EmailToken> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) throw invalidLink('This link is not valid. Check that you copied all of it, or ask for a new one.');
  const hash = sha256Hex(token);
  const spent = await tokens.useEmailToken(db, hash, purpose);
  if (spent) return spent;
  const found = await tokens.findEmailToken(db, hash);
  if (!found || found.purpose !== purpose) throw invalidLink('This link is not valid. Check that you copied all of it, or ask for a new one.');
  if (found.used_at) throw invalidLink('This link has already been used. Ask for a new one if you still need it.');
  throw invalidLink('This link has expired. Ask for a new one.');
}

/**
 * Checks a link's token without spending it (a page that shows a form before the link is used,
 * such as the password reset form): the same refusals as spendEmailToken.
 */
export async function checkEmailToken(db: Db, token: string, purpose: EmailTokenPurpose, now = new Date()): Promise<EmailToken> {
  const found = /^[A-Za-z0-9_-]{43}$/.test(token) ? await tokens.findEmailToken(db, sha256Hex(token)) : undefined;
  if (!found || found.purpose !== purpose) throw invalidLink('This link is not valid. Check that you copied all of it, or ask for a new one.');
  if (found.used_at) throw invalidLink('This link has already been used. Ask for a new one if you still need it.');
  if (new Date(found.expires_at) <= now) throw invalidLink('This link has expired. Ask for a new one.');
  return found;
}

function invalidLink(message: string): AppError {
  return new AppError('validation_failed', message, { errors: { token: [message] } });
}

export const countEmailTokensSince = tokens.countEmailTokensSince;
export const voidEmailTokens = tokens.voidEmailTokens;

/**
 * Voids every unused link of an account: reset, verification and address change. A new password,
 * a disabled account or a claimed one must not leave a link that still works (a pending address
 * change asked for by a session that has just been thrown out would otherwise still move the account).
 */
export function voidAccountLinks(db: Db, userId: number): Promise<void> {
  return tokens.voidEmailTokensOf(db, userId, ['reset-password', 'verify-email', 'change-email']);
}
