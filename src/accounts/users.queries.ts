/** SQL for the users table. Email lookups are case-insensitive (unique index on lower(email)). */
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { NewUser, User } from '../db/schema.js';
import type { Role } from '../shared/roles.js';
import { containsPattern } from '../db/like-pattern.js';

export function findUserById(db: Db, id: number): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where(sql`lower(email)`, '=', email.toLowerCase()).executeTakeFirst();
}

/** Inserts a user; returns undefined when the email is already taken. */
export function insertUser(db: Db, user: NewUser): Promise<User | undefined> {
  return db
    .insertInto('users')
    .values(user)
    .onConflict((oc) => oc.expression(sql`lower(email)`).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function markEmailVerified(db: Db, id: number): Promise<void> {
  await db
    .updateTable('users')
    .set({ email_verified_at: sql`coalesce(email_verified_at, now())`, updated_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

/** Removes an account's password (it signs in another way until it sets one by reset). */
export async function clearPasswordHash(db: Db, id: number): Promise<void> {
  await db.updateTable('users').set({ password_hash: null, updated_at: sql`now()` }).where('id', '=', id).execute();
}

/** Replaces an account's password hash. */
export async function updatePasswordHash(db: Db, id: number, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash, updated_at: sql`now()` }).where('id', '=', id).execute();
}

export async function countUsers(db: Db): Promise<number> {
  const row = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Sets the user's role; undefined when there is no such user. */
export function updateUserRole(db: Db, id: number, role: Role): Promise<User | undefined> {
  return db.updateTable('users').set({ role, updated_at: sql`now()` }).where('id', '=', id).returningAll().executeTakeFirst();
}

/**
 * Locks the admins' rows and returns their ids: taken by a role change in its transaction, so two
 * admins demoting each other at once cannot both succeed and leave no admin.
 */
export async function lockAdmins(db: Db): Promise<number[]> {
  const rows = await db.selectFrom('users').select('id').where('role', '=', 'admin').orderBy('id').forUpdate().execute();
  return rows.map((row) => row.id);
}

/** One page of every account, oldest first (ids never change, so pages are stable). */
export function listUsers(db: Db, limit: number, offset: number): Promise<User[]> {
  return db.selectFrom('users').selectAll().orderBy('id').limit(limit).offset(offset).execute();
}

/* Settings and the admins' users page (web application). */

/** Renames the account; undefined when there is no such user. */
export function updateUserName(db: Db, id: number, name: string): Promise<User | undefined> {
  return db.updateTable('users').set({ name, updated_at: sql`now()` }).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Postgres' unique_violation: another row took the value between our check and the write. */
function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/**
 * Moves the account to a confirmed address, verified now. Undefined when the user is gone or
 * another account holds the address (in any case), checked in the statement and by the unique index.
 */
export async function updateUserEmail(db: Db, id: number, email: string): Promise<User | undefined> {
  try {
    return await db
      .updateTable('users')
      .set({ email, email_verified_at: sql`now()`, updated_at: sql`now()` })
      .where('id', '=', id)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('users as other').select('other.id').where(sql`lower(other.email)`, '=', email.toLowerCase()).where('other.id', '!=', id))),
      )
      .returningAll()
      .executeTakeFirst();
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
}

/** Disables (a date) or enables (null) an account; undefined when there is no such user. */
export function updateUserDisabledAt(db: Db, id: number, disabledAt: Date | null): Promise<User | undefined> {
  return db.updateTable('users').set({ disabled_at: disabledAt, updated_at: sql`now()` }).where('id', '=', id).returningAll().executeTakeFirst();
}

/** One page of the accounts whose email contains `search` (every account without it), oldest first, and their number. */
export async function listUsersMatching(db: Db, page: { limit: number; offset: number; search?: string | undefined }): Promise<{ rows: User[]; total: number }> {
  let query = db.selectFrom('users');
  if (page.search) query = query.where('email', 'ilike', containsPattern(page.search));
  const [rows, count] = await Promise.all([
    query.selectAll().orderBy('id').limit(page.limit).offset(page.offset).execute(),
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
