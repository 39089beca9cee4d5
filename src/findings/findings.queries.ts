/** SQL for findings. A finding seen again updates its row and keeps its triage status. */
import { sql, type Insertable } from 'kysely';
import type { Db } from '../db/database.js';
import type { FindingsTable } from '../db/schema.js';

/** Inserts or refreshes findings in one statement; returns how many rows it touched. */
export async function upsertFindings(db: Db, rows: Insertable<FindingsTable>[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await db
    .insertInto('findings')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['user_id', 'fingerprint']).doUpdateSet({
        scan_id: sql`excluded.scan_id`,
        target_id: sql`excluded.target_id`,
        run_id: sql`excluded.run_id`,
        run_index: sql`excluded.run_index`,
        name: sql`excluded.name`,
        description: sql`excluded.description`,
        solution: sql`excluded.solution`,
        threat: sql`excluded.threat`,
        cvss_base: sql`excluded.cvss_base`,
        cvss_vector: sql`excluded.cvss_vector`,
        cve: sql`excluded.cve`,
        cwe: sql`excluded.cwe`,
        service: sql`excluded.service`,
        engine: sql`excluded.engine`,
        evidence: sql`excluded.evidence`,
        references: sql`excluded."references"`,
        kev: sql`excluded.kev`,
        epss: sql`excluded.epss`,
        last_seen_at: sql`now()`,
        updated_at: sql`now()`,
      }),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}
