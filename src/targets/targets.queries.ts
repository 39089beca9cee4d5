/** SQL for targets: one row per scanned host (name or address) per account. */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database, TargetsTable } from '../db/schema.js';
import { containsPattern } from '../db/like-pattern.js';

export interface TargetKey {
  target: string;
  type: 'Domain' | 'Ip';
}

/**
 * Creates the targets that do not exist yet (status Unknown); returns the ids of all of them, in
 * one statement: the rows it inserted plus the ones that were already there.
 */
export async function ensureTargets(db: Db, userId: number, targets: TargetKey[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  if (targets.length === 0) return ids;
  const input = sql.join(targets.map((t) => sql`(${t.target}::text, ${t.type}::text)`));
  const result = await sql<{ id: number; target: string }>`
    with input (target, type) as (values ${input}),
    inserted as (
      insert into targets (user_id, target, type)
      select ${userId}, target, type from input
      on conflict (user_id, target) do nothing
      returning id, target
    )
    select id, target from inserted
    union all
    select targets.id, targets.target from targets join input using (target) where targets.user_id = ${userId}`.execute(db);
  for (const row of result.rows) ids.set(row.target, Number(row.id));
  return ids;
}

/** Records what a run saw of each host: Active if it answered, Inactive if not. */
export async function recordHostStates(
  db: Db,
  userId: number,
  states: (TargetKey & { status: 'Active' | 'Inactive' })[],
  scannedAt: Date,
): Promise<void> {
  if (states.length === 0) return;
  await db
    .insertInto('targets')
    .values(states.map((s) => ({ user_id: userId, target: s.target, type: s.type, status: s.status, last_scan: scannedAt })))
    .onConflict((oc) =>
      oc.columns(['user_id', 'target']).doUpdateSet({
        status: sql`excluded.status`,
        last_scan: sql`excluded.last_scan`,
        updated_at: sql`now()`,
      }),
    )
    .execute();
}

// ---- Browsing (GET/DELETE /api/targets...) ----

export interface TargetFilters {
  search?: string | undefined;
  type?: 'Domain' | 'Ip' | undefined;
  status?: 'Active' | 'Inactive' | 'Unknown' | undefined;
}
export type SortDirection = 'asc' | 'desc';
export type TargetOrderKey = 'target' | 'type' | 'status' | 'last_scan' | 'created_at' | 'vulnerabilities';
export interface Window {
  limit: number;
  offset: number;
}


/**
 * The account's targets, each with its findings counted by threat. The counts come from a lateral
 * aggregate (one row per target, zeros included) so that a page costs one statement, and the
 * count can be a sort key.
 */
function targetsWithCounts(db: Db, userId: number) {
  return db
    .selectFrom('targets as t')
    .crossJoinLateral((eb) =>
      eb
        .selectFrom('findings as f')
        .select([
          sql<number>`count(*)::int`.as('vulnerabilities_count'),
          sql<number>`(count(*) filter (where f.threat = 'Critical'))::int`.as('critical'),
          sql<number>`(count(*) filter (where f.threat = 'High'))::int`.as('high'),
          sql<number>`(count(*) filter (where f.threat = 'Medium'))::int`.as('medium'),
          sql<number>`(count(*) filter (where f.threat = 'Low'))::int`.as('low'),
          sql<number>`(count(*) filter (where f.threat = 'Informational'))::int`.as('informational'),
        ])
        .whereRef('f.target_id', '=', 't.id')
        .whereRef('f.user_id', '=', 't.user_id')
        .as('c'),
    )
    .select(['t.id', 't.target', 't.type', 't.description', 't.status', 't.last_scan', 't.created_at'])
    .select(['c.vulnerabilities_count', 'c.critical', 'c.high', 'c.medium', 'c.low', 'c.informational'])
    .where('t.user_id', '=', userId);
}

export type TargetWithCounts = Awaited<ReturnType<ReturnType<typeof targetsWithCounts>['executeTakeFirstOrThrow']>>;

/** The list filters as one condition on `t` (the targets table). */
function matching(filters: TargetFilters) {
  return (eb: ExpressionBuilder<Database & { t: TargetsTable }, 't'>) => {
    const conditions: Expression<SqlBool>[] = [];
    if (filters.search) {
      const pattern = containsPattern(filters.search);
      conditions.push(eb.or([eb('t.target', 'ilike', pattern), eb('t.description', 'ilike', pattern), eb(sql<string>`t.type`, 'ilike', pattern)]));
    }
    if (filters.type) conditions.push(eb('t.type', '=', filters.type));
    if (filters.status) conditions.push(eb('t.status', '=', filters.status));
    return eb.and(conditions);
  };
}

const TARGET_ORDER = {
  target: sql`t.target`,
  type: sql`t.type`,
  status: sql`t.status`,
  last_scan: sql`t.last_scan`,
  created_at: sql`t.created_at`,
  vulnerabilities: sql`c.vulnerabilities_count`,
} as const;

/**
 * One page of the account's targets, in `sort` order then by id (a stable order for paging);
 * targets never scanned (no last_scan) come last whichever the direction.
 */
export function listTargets(db: Db, userId: number, filters: TargetFilters, sort: TargetOrderKey, direction: SortDirection, window: Window) {
  const dir = sql.raw(direction);
  const nulls = sort === 'last_scan' ? sql` nulls last` : sql``;
  return targetsWithCounts(db, userId)
    .where(matching(filters))
    .orderBy(sql`${TARGET_ORDER[sort]} ${dir}${nulls}`)
    .orderBy(sql`t.id ${dir}`)
    .limit(window.limit)
    .offset(window.offset)
    .execute();
}

/** How many of the account's targets match the filters. */
export async function countTargets(db: Db, userId: number, filters: TargetFilters): Promise<number> {
  const row = await db
    .selectFrom('targets as t')
    .select(sql<number>`count(*)::int`.as('total'))
    .where('t.user_id', '=', userId)
    .where(matching(filters))
    .executeTakeFirstOrThrow();
  return row.total;
}

/** The account's target with its counts, or undefined. */
export function findTarget(db: Db, userId: number, id: number): Promise<TargetWithCounts | undefined> {
  return targetsWithCounts(db, userId).where('t.id', '=', id).executeTakeFirst();
}

/**
 * Locks the account's target for deletion. The lock also makes a run that is storing findings for
 * this target wait (its foreign-key check needs the row), so no finding slips in uncounted.
 */
export function lockTarget(db: Db, userId: number, id: number): Promise<{ id: number; target: string } | undefined> {
  return db.selectFrom('targets').select(['id', 'target']).where('user_id', '=', userId).where('id', '=', id).forUpdate().executeTakeFirst();
}

/** Deletes the target's findings; returns how many. */
export async function deleteTargetFindings(db: Db, userId: number, targetId: number): Promise<number> {
  const result = await db.deleteFrom('findings').where('user_id', '=', userId).where('target_id', '=', targetId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteTarget(db: Db, userId: number, id: number): Promise<void> {
  await db.deleteFrom('targets').where('user_id', '=', userId).where('id', '=', id).execute();
}

