/**
 * Accounts: creation (CLI, agent registration, sign-up), lookup, passwords, and the public shape of a user.
 * Passwords are hashed with scrypt; emails are unique regardless of case.
 */
import { AppError, notFound, validationError, type FieldErrors } from '../shared/errors.js';
import { hashPassword, verifyPassword } from '../shared/crypto.js';
import { isEmail } from '../shared/validation.js';
import type { Db } from '../db/database.js';
import type { User } from '../db/schema.js';
import { isRole, ROLES, type Role } from '../shared/roles.js';
import * as users from './users.queries.js';
import { newPasswordErrors, passwordProblems } from './password-policy.js';
import { endUserSessions, startSession, type SessionPolicy, type StartedSession } from './sessions.service.js';
import { voidAccountLinks } from './email-tokens.service.js';
import { deleteUserApiKeys } from './api-keys.service.js';
import { clearAccountThrottle, reserveAccountAttempt } from './sign-in-throttle.service.js';


export interface CreateUserInput {
  email: string;
  /** Absent for accounts created by agent registration: they sign in with API keys only. */
  password?: string | undefined;
  name?: string | undefined;
  role?: string | undefined;
  emailVerified?: boolean;
}

/** The User resource of the spec (GET /api/user). */
export interface PublicUser {
  id: number;
  name: string;
  email: string;
  role: { name: Role };
}

export function toPublicUser(user: User): PublicUser {
  return { id: user.id, name: user.name, email: user.email, role: { name: user.role } };
}

/** What is wrong with a new account's fields, by field (empty when nothing is). */
export function newUserProblems(input: CreateUserInput): FieldErrors {
  const errors: FieldErrors = {};
  const email = input.email.trim();
  if (!isEmail(email) || email.length > 255) errors.email = ['The email field must be a valid email address.'];
  // Every new password meets the policy, whichever door it comes through (sign-up, CLI, reset).
  if (input.password !== undefined) {
    const problems = passwordProblems(input.password, email);
    if (problems.length > 0) errors.password = problems;
  }
  if (!isRole(input.role ?? 'trial')) errors.role = [`The selected role is invalid (one of ${ROLES.join(', ')}).`];
  const name = (input.name ?? email.split('@')[0] ?? email).trim();
  if (name.length === 0 || name.length > 255) errors.name = ['The name field must be 1 to 255 characters.'];
  return errors;
}

/** Creates an account; 422-style errors name each bad field, including a taken email. */
export async function createUser(db: Db, input: CreateUserInput): Promise<User> {
  const errors = newUserProblems(input);
  if (Object.keys(errors).length > 0) throw validationError(errors);
  const email = input.email.trim();
  const role = input.role ?? 'trial';
  const name = (input.name ?? email.split('@')[0] ?? email).trim();

  const user = await users.insertUser(db, {
    name,
    email,
    role: role as Role,
    password_hash: input.password === undefined ? null : await hashPassword(input.password),
    email_verified_at: input.emailVerified ? new Date() : null,
  });
  if (!user) throw validationError({ email: ['The email has already been taken.'] });
  return user;
}

export const findUserById = users.findUserById;
export const findUserByEmail = users.findUserByEmail;
export const markEmailVerified = users.markEmailVerified;
export const countUsers = users.countUsers;

/** The 422 of a role that is not a plan, naming the plans. */
function checkRole(role: string): Role {
  if (!isRole(role)) throw validationError({ role: [`The selected role is invalid (one of ${ROLES.join(', ')}).`] });
  return role;
}

/** Only admins manage accounts; anyone else gets a 403 that says so. */
export function requireAdmin(user: User): void {
  if (user.role !== 'admin') throw new AppError('forbidden', `Managing accounts requires the admin role; this account's role is ${user.role}.`);
}

/**
 * Changes an account's plan (role). The last admin cannot be demoted, so the accounts API always
 * has someone to answer to (the CLI can promote anyone again in any case). Returns the user.
 */
export async function changeUserRole(db: Db, userId: number, rawRole: string): Promise<User> {
  const role = checkRole(rawRole);
  return db.transaction().execute(async (trx) => {
    const admins = await users.lockAdmins(trx);
    if (role !== 'admin' && admins.length === 1 && admins[0] === userId) {
      throw validationError({ role: ['This is the only admin account; make another account admin first.'] });
    }
    const updated = await users.updateUserRole(trx, userId, role);
    if (!updated) throw notFound('User');
    return updated;
  });
}

/** One page of every account, and how many there are. */
export async function listUsers(db: Db, page: { limit: number; offset: number }): Promise<{ items: PublicUser[]; total: number }> {
  const [rows, total] = await Promise.all([users.listUsers(db, page.limit, page.offset), users.countUsers(db)]);
  return { items: rows.map(toPublicUser), total };
}

/* Settings and the admins' users page (web application). */

/** Renames the account (1 to 255 characters, trimmed); 422 on `name`. */
export async function changeUserName(db: Db, userId: number, rawName: string): Promise<User> {
  const name = rawName.trim();
  if (name.length === 0 || name.length > 255) throw validationError({ name: ['The name field must be 1 to 255 characters.'] });
  const updated = await users.updateUserName(db, userId, name);
  if (!updated) throw notFound('User');
  return updated;
}

/**
 * Checks that `password` is the account's current password; 422 on `current_password` when it is
 * missing or wrong, or when the account has none (agent, CLI or OIDC accounts set one by reset).
 * Each check counts against the account's sign-in lock-out (`account:<email>`), as the sign-in form
 * does: a locked account is refused with SignInLockedError (429) whatever the password, a wrong one
 * counts, a right one clears the count. So a stolen session cannot guess the password faster than
 * the sign-in form could.
 */
export async function checkCurrentPassword(db: Db, user: User, password: string | undefined, now = new Date()): Promise<void> {
  if (user.password_hash === null) {
    throw validationError({ current_password: ['This account has no password yet. Sign out and use "Forgot your password?" to set one.'] });
  }
  if (!password) throw validationError({ current_password: ['Enter your current password.'] });
  await reserveAccountAttempt(db, user.email, now);
  if (!(await verifyPassword(password.slice(0, 1024), user.password_hash)) || password.length > 1024) {
    throw validationError({ current_password: ['The current password is not correct.'] });
  }
  await clearAccountThrottle(db, user.email);
}

export interface PasswordChangeInput {
  current_password?: string | undefined;
  password: string;
  password_confirmation?: string | undefined;
}

/**
 * Changes the password of a signed-in account that proves the current one. Every session of the
 * account ends (a thief's included) and a new one starts for the browser that made the change (its
 * cookie must be replaced: the old session is gone); every unused link (reset, verification, address
 * change) is voided, so an address change asked for by a thief's session cannot complete.
 * Returns the new session. 422 on `current_password`, `password` or `password_confirmation`.
 */
export async function changePassword(
  db: Db,
  userId: number,
  input: PasswordChangeInput,
  session: { policy: SessionPolicy; client: { userAgent?: string | undefined; address?: string | undefined } },
): Promise<StartedSession> {
  const user = await users.findUserById(db, userId);
  if (!user) throw notFound('User');
  const errors: FieldErrors = {};
  await checkCurrentPassword(db, user, input.current_password).catch((error: unknown) => {
    if (!(error instanceof AppError) || !error.errors) throw error;
    Object.assign(errors, error.errors);
  });
  Object.assign(errors, newPasswordErrors(input.password, input.password_confirmation, user.email));
  if (Object.keys(errors).length > 0) throw validationError(errors);

  const hash = await hashPassword(input.password);
  return db.transaction().execute(async (trx) => {
    await users.updatePasswordHash(trx, userId, hash);
    await voidAccountLinks(trx, userId);
    await endUserSessions(trx, userId);
    return startSession(trx, user, session.policy, session.client);
  });
}

/**
 * Disables or enables an account (admins only). A disabled account cannot sign in, its sessions
 * end now, its unused mailed links are voided, and its keys and tokens are refused (auth.service.ts).
 * An admin cannot disable their own account, so there is always an admin left to enable the others.
 */
export async function setUserDisabled(db: Db, actingAdmin: User, userId: number, disabled: boolean): Promise<User> {
  requireAdmin(actingAdmin);
  if (disabled && actingAdmin.id === userId) throw validationError({ disabled: ['You cannot disable your own account.'] });
  return db.transaction().execute(async (trx) => {
    const updated = await users.updateUserDisabledAt(trx, userId, disabled ? new Date() : null);
    if (!updated) throw notFound('User');
    if (disabled) {
      await endUserSessions(trx, userId);
      await voidAccountLinks(trx, userId);
    }
    return updated;
  });
}

/** One page of the accounts (whole rows: verified, disabled, created), optionally those whose email contains `search`. */
export async function listAccounts(db: Db, page: { limit: number; offset: number; search?: string | undefined }): Promise<{ items: User[]; total: number }> {
  const { rows, total } = await users.listUsersMatching(db, { ...page, search: page.search?.trim() || undefined });
  return { items: rows, total };
}

/**
 * Sets an account's password (password reset, or a first password for an account made by the CLI
 * without one or by agent registration). The policy applies; 422 on `password` otherwise.
 */
export async function setPassword(db: Db, user: Pick<User, 'id' | 'email'>, password: string): Promise<void> {
  const problems = passwordProblems(password, user.email);
  if (problems.length > 0) throw validationError({ password: problems });
  await users.updatePasswordHash(db, user.id, await hashPassword(password));
}

/**
 * What modules above accounts undo when an unverified account is claimed: the webhooks module
 * sits above accounts, so its part is passed in (webhooks.service `deactivateUserWebhooks`).
 */
export interface AccountClaimCleanup {
  deactivateWebhooks(db: Db, userId: number): Promise<unknown>;
}

/**
 * The owner of an address proved it (an identity provider, a password reset link, an agent
 * registration code) for an account that had never verified it: the account is now theirs. Whoever
 * signed up with the address first may not be its owner, and with RAMPART_REQUIRE_EMAIL_VERIFICATION
 * off they could use the account meanwhile, so what they may have left is undone, in one
 * transaction (the caller's, when given one): the password is removed (the owner sets one by reset),
 * the address is marked verified, every session ends, every API key is deleted, every pending link
 * is voided (an address change would otherwise move the account to their mailbox), and every
 * webhook is turned off. Scans and their results stay (they reveal nothing of the owner).
 */
export async function claimUnverifiedAccount(db: Db, userId: number, cleanup: AccountClaimCleanup): Promise<void> {
  const work = async (trx: Db) => {
    await users.clearPasswordHash(trx, userId);
    await users.markEmailVerified(trx, userId);
    await endUserSessions(trx, userId);
    await deleteUserApiKeys(trx, userId);
    await voidAccountLinks(trx, userId);
    await cleanup.deactivateWebhooks(trx, userId);
  };
  await (db.isTransaction ? work(db) : db.transaction().execute(work));
}
