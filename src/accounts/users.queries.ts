/** SQL for the users table. Email lookups are case-insensitive (unique index on lower(email)). */
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { NewUser, User } from '../db/schema.js';
import type { Role } from '../shared/roles.js';

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
