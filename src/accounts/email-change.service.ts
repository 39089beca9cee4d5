/**
 * Changing an account's email address from settings. The signed-in person proves the current
 * password; a one-time link goes to the NEW address and a notice to the old one; the address
 * changes only when the link is followed (so nobody can move an account to an address they do not
 * read, and the owner of the old address hears of it). The new address is verified by that click.
 */
import { AppError, notFound, validationError } from '../shared/errors.js';
import { isEmail } from '../shared/validation.js';
import type { Db } from '../db/database.js';
import type { User } from '../db/schema.js';
import type { Mailer } from '../mail/mailer.js';
import { checkEmailToken, countEmailTokensSince, EMAIL_TOKEN_TTL_MINUTES, issueEmailToken, spendEmailToken, voidEmailTokens } from './email-tokens.service.js';
import { checkCurrentPassword } from './users.service.js';
import * as users from './users.queries.js';

/** Confirmation links one account may have mailed per hour (each goes to an address the person typed). */
export const EMAIL_CHANGES_PER_HOUR = 5;

export interface EmailChangeInput {
  email: string;
  current_password?: string | undefined;
}

/**
 * Mails the confirmation link (`<baseUrl>/settings/email/confirm?token=...`) to the new address
 * and a notice to the current one. 422 on `email` (invalid, unchanged or taken) or on
 * `current_password`; 429 past EMAIL_CHANGES_PER_HOUR. Returns the address the link went to.
 */
export async function requestEmailChange(db: Db, mailer: Mailer, baseUrl: string, userId: number, input: EmailChangeInput, now = new Date()): Promise<string> {
  const user = await users.findUserById(db, userId);
  if (!user) throw notFound('User');
  const email = input.email.trim();
  if (!isEmail(email) || email.length > 255) throw validationError({ email: ['The email field must be a valid email address.'] });
  if (email.toLowerCase() === user.email.toLowerCase()) throw validationError({ email: ['This is already the address of your account.'] });
  await checkCurrentPassword(db, user, input.current_password, now);
  const holder = await users.findUserByEmail(db, email);
  if (holder) throw validationError({ email: ['The email has already been taken.'] });
  const recent = await countEmailTokensSince(db, userId, 'change-email', new Date(now.getTime() - 3_600_000));
  if (recent.count >= EMAIL_CHANGES_PER_HOUR) {
    throw new AppError('rate_limited', `Too many address changes were asked for this hour; try again later.`, { context: { reason: 'email changes per hour' } });
  }

  const token = await issueEmailToken(db, userId, 'change-email', email, now);
  const hours = Math.round(EMAIL_TOKEN_TTL_MINUTES['change-email'] / 60);
  await mailer.send({
    to: email,
    subject: 'Confirm your new Rampart email address',
    text: [
      `The Rampart account ${user.email} asked to use this address from now on.`,
      '',
      'Follow this link to confirm it:',
      `${baseUrl}/settings/email/confirm?token=${token}`,
      '',
      `The link works once and expires in ${hours} hours. If you did not ask for this, ignore this message: nothing changes without the link.`,
    ].join('\n'),
  });
  await mailer.send({
    to: user.email,
    subject: 'Your Rampart email address is being changed',
    text: [
      `Someone signed in to your Rampart account (${baseUrl}) asked to change its email address to ${email}.`,
      'A confirmation link was sent there; the address changes only when it is followed.',
      '',
      'If this was not you, sign in and change your password now: that ends every other session.',
    ].join('\n'),
  });
  return email;
}

/**
 * Follows a confirmation link: the account moves to the address the link was sent to, verified.
 * 422 on `token` (unknown, used or expired link) or on `email` when another account took the
 * address meanwhile; 403 when the account is disabled (its links are voided when it is disabled;
 * this also refuses one that slipped past). The account's other pending address changes are voided.
 */
export async function confirmEmailChange(db: Db, token: string): Promise<User> {
  const pending = await checkEmailToken(db, token, 'change-email');
  const owner = await users.findUserById(db, pending.user_id);
  if (!owner) throw notFound('User');
  if (owner.disabled_at) throw new AppError('forbidden', 'This account is disabled, so its address cannot change; ask an administrator.');
  const spent = await spendEmailToken(db, token, 'change-email');
  // No transaction: a unique violation would abort it (Postgres), and the check after it must run.
  const updated = await users.updateUserEmail(db, spent.user_id, spent.email);
  if (!updated) {
    if (!(await users.findUserById(db, spent.user_id))) throw notFound('User');
    throw validationError({ email: [`The address ${spent.email} now belongs to another account, so it cannot be yours. Ask for a change to another address.`] });
  }
  await voidEmailTokens(db, spent.user_id, 'change-email');
  return updated;
}
