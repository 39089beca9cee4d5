/**
 * Password reset by a mailed link. Asking for one answers the same whether or not the address is
 * registered; the link is checked without being spent when its form is shown, and spent only by a
 * valid new password. Using it also sets a first password for accounts that had none (made by the
 * CLI without one, or by agent registration), ends every session of the account, voids its other
 * mailed links (reset, verification, address change) and lifts its sign-in lock. The link proved the
 * address: an account that had not verified it is claimed (claimUnverifiedAccount: whoever signed up
 * with the address first loses their keys, links and webhooks).
 */
import { AppError, validationError } from '../shared/errors.js';
import type { Db } from '../db/database.js';
import type { EmailToken, User } from '../db/schema.js';
import type { Mailer } from '../mail/mailer.js';
import { claimUnverifiedAccount, findUserByEmail, findUserById, setPassword, type AccountClaimCleanup } from './users.service.js';
import { checkEmailToken, issueEmailToken, spendEmailToken, voidAccountLinks } from './email-tokens.service.js';
import { endUserSessions, type SessionPolicy, type StartedSession } from './sessions.service.js';
import { newPasswordErrors } from './password-policy.js';
import { rotateSession, type BrowserClient } from './sign-in.service.js';
import { clearAccountThrottle } from './sign-in-throttle.service.js';
import { mailLinkAllowed, mailLinkUrl } from './mail-links.js';
import { passwordResetMail } from './account-mails.js';

/**
 * Mails a reset link to an enabled account of this address, within the per-account limit (once a
 * minute, five times an hour); does nothing otherwise, and the page answers the same.
 */
export async function requestPasswordReset(db: Db, mailer: Mailer, rawEmail: string, options: { baseUrl: string; now?: Date }): Promise<void> {
  const email = rawEmail.trim();
  if (email === '') throw validationError({ email: ['The email field is required.'] });
  const now = options.now ?? new Date();
  const user = email.length <= 255 ? await findUserByEmail(db, email) : undefined;
  if (!user || user.disabled_at) return;
  if (!(await mailLinkAllowed(db, user.id, 'reset-password', now))) return;
  const token = await issueEmailToken(db, user.id, 'reset-password', user.email, now);
  await mailer.send(passwordResetMail(user.email, mailLinkUrl(options.baseUrl, '/reset-password', token), options.baseUrl));
}

function linkError(message: string): AppError {
  return new AppError('validation_failed', message, { errors: { token: [message] } });
}

/** The account a usable reset link is for: 422 on `token` when the link cannot be used (saying why), 403 when the account is disabled. */
async function accountOfLink(db: Db, link: EmailToken): Promise<User> {
  const user = await findUserById(db, link.user_id);
  if (!user || user.email.toLowerCase() !== link.email.toLowerCase()) throw linkError('This link was sent to an address the account no longer uses. Ask for a new one.');
  if (user.disabled_at) throw new AppError('forbidden', 'This account is disabled; ask an administrator.');
  return user;
}

/** Checks that a reset link can still be used, without spending it (the form is shown for it). */
export async function checkResetLink(db: Db, token: string): Promise<{ email: string }> {
  const user = await accountOfLink(db, await checkEmailToken(db, token, 'reset-password'));
  return { email: user.email };
}

/** The reset form's fields. */
export interface ResetPasswordInput {
  token: string;
  password: string;
  password_confirmation: string;
}

/**
 * Sets the new password of a reset link and signs this browser in. 422 on `token` when the link
 * cannot be used, on `password` / `password_confirmation` when the new password is refused (the
 * link is then not spent).
 */
export async function resetPassword(db: Db, input: ResetPasswordInput, options: { policy: SessionPolicy; client: BrowserClient; cleanup: AccountClaimCleanup }): Promise<{ user: User; session: StartedSession }> {
  const user = await accountOfLink(db, await checkEmailToken(db, input.token, 'reset-password'));
  const errors = newPasswordErrors(input.password, input.password_confirmation, user.email);
  if (Object.keys(errors).length > 0) throw validationError(errors);

  await db.transaction().execute(async (trx) => {
    // Spent again here, in one statement: of two forms posted at once, one wins.
    await spendEmailToken(trx, input.token, 'reset-password');
    if (!user.email_verified_at) await claimUnverifiedAccount(trx, user.id, options.cleanup);
    await setPassword(trx, user, input.password);
    await voidAccountLinks(trx, user.id);
    await endUserSessions(trx, user.id);
  });
  await clearAccountThrottle(db, user.email);
  return { user, session: await rotateSession(db, user, options.policy, options.client) };
}
