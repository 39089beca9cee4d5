/**
 * What the dashboard shows of an account's findings: the Unresolved ones by threat (the same
 * counters as `GET /api/vulnerabilities?status=Unresolved&severity=...` counts), the newest, and
 * those whose CVEs CISA lists as known exploited.
 */
import type { Db } from '../db/database.js';
import type { ThreatLevel } from '../db/schema.js';
import { knownExploitedCves } from '../vulndb/vulndb.service.js';
import * as queries from './findings-overview.queries.js';

export type { FindingSummaryRow } from './findings-overview.queries.js';

/** Threat levels, most severe first. */
export const THREAT_LEVELS: readonly ThreatLevel[] = ['Critical', 'High', 'Medium', 'Low', 'Informational'];

/** The account's Unresolved findings by threat, every level present (0 when none). */
export async function unresolvedByThreat(db: Db, userId: number): Promise<Record<ThreatLevel, number>> {
  const counts = Object.fromEntries(THREAT_LEVELS.map((threat) => [threat, 0])) as Record<ThreatLevel, number>;
  for (const row of await queries.unresolvedCountsByThreat(db, userId)) counts[row.threat] = Number(row.n);
  return counts;
}

/** The account's `limit` newest Unresolved findings, newest first. */
export function newestUnresolvedFindings(db: Db, userId: number, limit: number): Promise<queries.FindingSummaryRow[]> {
  return queries.newestUnresolved(db, userId, limit);
}

/** KEV-listed findings, or why there are none to compare with. */
export type KnownExploitedFindings =
  | { catalog: 'absent' }
  | { catalog: 'loaded'; findings: queries.FindingSummaryRow[]; more: boolean };

/**
 * The account's newest Unresolved findings with a CVE in the CISA KEV catalog as it is now (a
 * finding stored before its CVE joined the catalog counts too), at most `limit`; `more` when
 * there are others. `absent` when the catalog was never loaded.
 */
export async function knownExploitedFindings(db: Db, userId: number, limit: number): Promise<KnownExploitedFindings> {
  const cves = await knownExploitedCves(db);
  if (!cves) return { catalog: 'absent' };
  const rows = await queries.newestUnresolvedWithCves(db, userId, cves, limit + 1);
  return { catalog: 'loaded', findings: rows.slice(0, limit), more: rows.length > limit };
}
