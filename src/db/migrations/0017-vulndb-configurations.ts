/**
 * NVD configurations kept whole (issue 14): each CVE's `configurations` (AND/OR nodes, `negate`,
 * and the `vulnerable: false` "running on/with" criteria), so a lookup evaluates the tree instead
 * of letting any one vulnerable criterion decide. Rows synced before stay null and are evaluated
 * as before (one vulnerable criterion suffices) until the next full sync refreshes them.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table vulndb_cves add column configurations jsonb`.execute(db);
}
