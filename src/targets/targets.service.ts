/**
 * Targets: created and updated by runs (ensureTargets, recordHostStates), and browsed, shown and
 * deleted by their owner. Another account's target is not found, never forbidden.
 */
import { parsePathId } from '../shared/validation.js';
import { DEFAULT_ORDER, listVulnerabilities } from '../findings/vulnerabilities.service.js';
import { isIP } from 'node:net';
import type { Db } from '../db/database.js';
import type { TargetResource, VulnerabilityResource } from '../findings/findings.schema.js';
import type { PageRequest } from '../http/pagination.js';
import { notFound } from '../shared/errors.js';
import * as targets from './targets.queries.js';
import type { Direction, TargetListQuery, TargetSort, TargetVulnerabilitySort } from './targets.schema.js';

export type { TargetKey } from './targets.queries.js';

export function targetKey(name: string): targets.TargetKey {
  return { target: name, type: isIP(name) ? 'Ip' : 'Domain' };
}

/** Makes sure the named hosts exist as targets (Unknown until scanned); returns name -> id. */
export function ensureTargets(db: Db, userId: number, names: string[]): Promise<Map<string, number>> {
  return targets.ensureTargets(db, userId, [...new Set(names)].map(targetKey));
}

/** Records a run's view of its hosts: `up` names become Active, the rest Inactive. */
export function recordHostStates(db: Db, userId: number, states: Map<string, boolean>, scannedAt: Date): Promise<void> {
  return targets.recordHostStates(
    db,
    userId,
    [...states].map(([name, up]) => ({ ...targetKey(name), status: up ? 'Active' : 'Inactive' })),
    scannedAt,
  );
}

// ---- Browsing ----

/** A page of items and the total across all pages. */
export interface Page<T> {
  items: T[];
  total: number;
}

function windowOf(page: PageRequest): targets.Window {
  return { limit: page.perPage, offset: (page.page - 1) * page.perPage };
}

/** A page past any possible row: answered without asking the store (which caps offsets at bigint). */
function beyondAnyRow(window: targets.Window): boolean {
  return !Number.isSafeInteger(window.offset);
}

export function toTargetResource(row: targets.TargetWithCounts): TargetResource {
  return {
    id: row.id,
    target: row.target,
    type: row.type,
    description: row.description,
    status: row.status,
    last_scan: row.last_scan?.toISOString() ?? null,
    vulnerabilities_count: row.vulnerabilities_count,
    critical: row.critical,
    high: row.high,
    medium: row.medium,
    low: row.low,
    informational: row.informational,
    created_at: row.created_at.toISOString(),
  };
}

/** One page of the account's targets, filtered and sorted (default: last scanned first). */
export async function listTargets(db: Db, userId: number, query: TargetListQuery, page: PageRequest): Promise<Page<TargetResource>> {
  const filters = { search: query.search?.trim() || undefined, type: query.type, status: query.status };
  const sort: TargetSort = query.sort ?? 'last_scan';
  const direction: Direction = query.direction ?? 'desc';
  const window = windowOf(page);
  const [rows, total] = await Promise.all([
    beyondAnyRow(window) ? [] : targets.listTargets(db, userId, filters, sort, direction, window),
    targets.countTargets(db, userId, filters),
  ]);
  return { items: rows.map(toTargetResource), total };
}

/** The account's target with its counts by threat; 404 for an unknown or another account's id. */
export async function showTarget(db: Db, userId: number, rawId: string): Promise<TargetResource> {
  const id = parsePathId(rawId);
  const row = id === undefined ? undefined : await targets.findTarget(db, userId, id);
  if (!row) throw notFound('Target');
  return toTargetResource(row);
}

/**
 * Deletes the target and its findings in one transaction; returns the target's name and how many
 * findings went. The findings are deleted explicitly (not left to the cascade) to count them.
 */
export async function deleteTarget(db: Db, userId: number, rawId: string): Promise<{ target: string; deletedFindings: number }> {
  const id = parsePathId(rawId);
  if (id === undefined) throw notFound('Target');
  return db.transaction().execute(async (trx) => {
    const target = await targets.lockTarget(trx, userId, id);
    if (!target) throw notFound('Target');
    const deletedFindings = await targets.deleteTargetFindings(trx, userId, id);
    await targets.deleteTarget(trx, userId, id);
    return { target: target.target, deletedFindings };
  });
}

/** What a deletion says (the API's reply and the web application's flash): the target and how many findings went with it. */
export function describeTargetDeletion(deleted: { target: string; deletedFindings: number }): string {
  const n = deleted.deletedFindings;
  return `Target ${deleted.target} deleted along with ${n} associated ${n === 1 ? 'vulnerability' : 'vulnerabilities'}.`;
}

/** One page of the findings of the account's target (default: most severe first), and the target. */
export async function listTargetVulnerabilities(
  db: Db,
  userId: number,
  rawId: string,
  query: { url?: string | undefined; min_qod?: number | undefined; sort?: TargetVulnerabilitySort | undefined; direction?: Direction | undefined },
  page: PageRequest,
): Promise<Page<VulnerabilityResource> & { target: TargetResource }> {
  const target = await showTarget(db, userId, rawId);
  // The findings module owns findings queries: the target's list is its list, filtered by target.
  const { items, total } = await listVulnerabilities(db, userId, {
    filters: { targetId: target.id, url: query.url, minQod: query.min_qod },
    sort: query.sort ?? DEFAULT_ORDER.sort,
    direction: query.direction ?? DEFAULT_ORDER.direction,
    page: page.page,
    perPage: page.perPage,
  });
  return { items, total, target };
}
