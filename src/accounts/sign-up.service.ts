/**
 * Sign-up with email and password, and the verification of the address by a mailed link.
 *
 * A taken email is never revealed: the page answers as for a new address ("check your mail"), the
 * password is hashed either way (so timing tells nothing), and the existing account's owner gets
 * a note with a reset link instead (within the reset links' per-account limit). Resending a
 * verification link answers the same whether or not the address is registered or unverified, and
 * sends nothing past the per-account limit.
 */
import { AppError, validationError, type FieldErrors } from '../shared/errors.js';
import type { Db } from '../db/database.js';
import type { EmailToken, User } from '../db/schema.js';
import type { Mailer } from '../mail/mailer.js';
import { createUser, findUserByEmail, findUserById, markEmailVerified, newUserProblems } from './users.service.js';
import { checkEmailToken, issueEmailToken, spendEmailToken, voidEmailTokens } from './email-tokens.service.js';
import type { SessionPolicy, StartedSession } from './sessions.service.js';
import { rotateSession, type BrowserClient } from './sign-in.service.js';
import { mailLinkAllowed, mailLinkUrl } from './mail-links.js';
import { confirmationErrors } from './password-policy.js';
import { signUpAttemptMail, verificationMail } from './account-mails.js';

/** The sign-up form's fields (Laravel's names: errors come back under the same keys). */
export interface SignUpInput {
  email: string;
  password: string;
  password_confirmation: string;
  name?: string | undefined;
}

/** The deployment's rules and the browser of one sign-up. */
export interface SignUpOptions {
  baseUrl: string;
  /** RAMPART_REQUIRE_EMAIL_VERIFICATION: mail a link; otherwise the new account is signed in at once. */
  requireVerification: boolean;
  policy: SessionPolicy;
  client: BrowserClient;
  now?: Date;
}

/** A new account signed in at once (no verification required), or "check your mail" (every other case). */
export type SignUpOutcome = { kind: 'signed-in'; user: User; session: StartedSession } | { kind: 'check-mail'; email: string };


/** Creates an account from the sign-up form (422 on each bad field), and mails what it needs. */
export async function signUp(db: Db, mailer: Mailer, input: SignUpInput, options: SignUpOptions): Promise<SignUpOutcome> {
  const email = input.email.trim();
  const account = { email, password: input.password, name: input.name?.trim() || undefined };
  const errors = { ...newUserProblems(account), ...confirmationErrors(input.password, input.password_confirmation) };
  if (Object.keys(errors).length > 0) throw validationError(errors);

  const now = options.now ?? new Date();
  const user = await createUser(db, account).catch((error: unknown) => {
    if (error instanceof AppError && error.errors?.email) return undefined; // taken (all else was checked)
    throw error;
  });
  if (!user) {
    await noteSignUpAttempt(db, mailer, email, options.baseUrl, now);
    return { kind: 'check-mail', email };
  }
  if (!options.requireVerification) return { kind: 'signed-in', user, session: await rotateSession(db, user, options.policy, options.client) };
  await sendVerificationLink(db, mailer, user, options.baseUrl, now);
  return { kind: 'check-mail', email };
}

/**
 * Mails the owner of a taken address that someone tried to sign up with it, with a reset link.
 * Each note carries a reset link, and so is counted as one: within the reset links' per-account
 * limit (mailLinkAllowed: one a minute, five an hour, shared with "Forgot your password?") a note is
 * sent, past it nothing is (a flood of sign-ups must not flood the owner's inbox). An unverified
 * account's outstanding verification links are voided: its owner is pointed to the reset link,
 * which claims the account, rather than to a verification that would keep the password whoever
 * signed up first chose.
 */
async function noteSignUpAttempt(db: Db, mailer: Mailer, email: string, baseUrl: string, now: Date): Promise<void> {
  const existing = await findUserByEmail(db, email);
  if (!existing || existing.disabled_at) return;
  if (!existing.email_verified_at) await voidEmailTokens(db, existing.id, 'verify-email');
  if (!(await mailLinkAllowed(db, existing.id, 'reset-password', now))) return;
  const resetLink = mailLinkUrl(baseUrl, '/reset-password', await issueEmailToken(db, existing.id, 'reset-password', existing.email, now));
  await mailer.send(signUpAttemptMail(existing.email, baseUrl, resetLink));
}

async function sendVerificationLink(db: Db, mailer: Mailer, user: User, baseUrl: string, now: Date): Promise<void> {
  const token = await issueEmailToken(db, user.id, 'verify-email', user.email, now);
  await mailer.send(verificationMail(user.email, mailLinkUrl(baseUrl, '/verify-email', token), baseUrl));
}

/**
 * Sends a new verification link to an unverified, enabled account of this address, at most once a
 * minute and five times an hour; does nothing otherwise (the page answers the same).
 */
export async function resendVerification(db: Db, mailer: Mailer, rawEmail: string, options: { baseUrl: string; now?: Date }): Promise<void> {
  const email = rawEmail.trim();
  if (email === '') throw validationError({ email: ['The email field is required.'] });
  const now = options.now ?? new Date();
  const user = email.length <= 255 ? await findUserByEmail(db, email) : undefined;
  if (!user || user.email_verified_at || user.disabled_at) return;
  if (!(await mailLinkAllowed(db, user.id, 'verify-email', now))) return;
  await sendVerificationLink(db, mailer, user, options.baseUrl, now);
}

/** The account of a verification link: 422 on `token` when it was sent to an address the account no longer has, 403 when disabled. */
function ownerOfLink(owner: User | undefined, link: EmailToken): User {
  if (!owner || owner.email.toLowerCase() !== link.email.toLowerCase()) {
    const message = 'This link was sent to an address the account no longer uses. Ask for a new one.';
    throw new AppError('validation_failed', message, { errors: { token: [message] } });
  }
  if (owner.disabled_at) throw new AppError('forbidden', 'This account is disabled; ask an administrator.');
  return owner;
}

/**
 * Checks a verification link without spending it (GET /verify-email shows a button; only its POST
 * spends the link, so neither a mail scanner's fetch nor a link an attacker sends signs anyone
 * in). The same refusals as verifyEmail; returns the address to confirm.
 */
export async function checkVerificationLink(db: Db, token: string): Promise<{ email: string }> {
  const link = await checkEmailToken(db, token, 'verify-email');
  return { email: ownerOfLink(await findUserById(db, link.user_id), link).email };
}

/**
 * Spends a verification link: the address is verified and the browser signed in with a new session.
 * 422 on `token` for an unknown, used or expired link (saying which), or one sent to an address
 * the account no longer has; 403 for a disabled account.
 */
export async function verifyEmail(db: Db, token: string, options: { policy: SessionPolicy; client: BrowserClient }): Promise<{ user: User; session: StartedSession }> {
  const user = await db.transaction().execute(async (trx) => {
    const spent = await spendEmailToken(trx, token, 'verify-email');
    const owner = ownerOfLink(await findUserById(trx, spent.user_id), spent);
    await markEmailVerified(trx, owner.id);
    return owner;
  });
  return { user, session: await rotateSession(db, user, options.policy, options.client) };
}
