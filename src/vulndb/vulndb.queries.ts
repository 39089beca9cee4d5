/** SQL for the vulnerability database: NVD CVEs and CPE criteria, KEV, EPSS and sync records. */
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type {
  VulnDbCpeMatchesTable,
  VulnDbCvesTable,
  VulnDbEpssTable,
  VulnDbKevTable,
  VulnDbSource,
} from '../db/schema.js';

/** Inserts or refreshes CVE rows. */
export async function upsertCves(db: Db, rows: Insertable<VulnDbCvesTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('vulndb_cves')
    .values(rows)
    .onConflict((oc) =>
      oc.column('cve').doUpdateSet({
        description: sql`excluded.description`,
        cvss_base: sql`excluded.cvss_base`,
        cvss_vector: sql`excluded.cvss_vector`,
        cvss_version: sql`excluded.cvss_version`,
        cwe: sql`excluded.cwe`,
        references: sql`excluded."references"`,
        vuln_status: sql`excluded.vuln_status`,
        published: sql`excluded.published`,
        last_modified: sql`excluded.last_modified`,
        configurations: sql`excluded.configurations`,
        updated_at: sql`now()`,
      }),
    )
    .execute();
}

/** Removes the CPE criteria of these CVEs (before their new set is inserted). */
export async function deleteCpeMatchesOf(db: Db, cves: string[]): Promise<void> {
  if (cves.length === 0) return;
  await db.deleteFrom('vulndb_cpe_matches').where('cve', 'in', cves).execute();
}

export async function insertCpeMatches(db: Db, rows: Insertable<VulnDbCpeMatchesTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('vulndb_cpe_matches').values(rows).execute();
}

/** The vulnerable criteria naming this vendor and product. */
export async function findVulnerableCpeMatches(db: Db, vendor: string, product: string): Promise<Selectable<VulnDbCpeMatchesTable>[]> {
  return db
    .selectFrom('vulndb_cpe_matches')
    .selectAll()
    .where('vendor', '=', vendor)
    .where('product', '=', product)
    .where('vulnerable', '=', true)
    .execute();
}

export async function deleteAllKev(db: Db): Promise<void> {
  await db.deleteFrom('vulndb_kev').execute();
}

export async function insertKev(db: Db, rows: Insertable<VulnDbKevTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('vulndb_kev').values(rows).execute();
}

export async function deleteAllEpss(db: Db): Promise<void> {
  await db.deleteFrom('vulndb_epss').execute();
}

export async function insertEpss(db: Db, rows: Insertable<VulnDbEpssTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('vulndb_epss').values(rows).execute();
}

/** The CVEs with their KEV flag and EPSS score. */
export async function findCvesWithIntel(db: Db, cves: string[]) {
  if (cves.length === 0) return [];
  return db
    .selectFrom('vulndb_cves as c')
    .leftJoin('vulndb_kev as k', 'k.cve', 'c.cve')
    .leftJoin('vulndb_epss as e', 'e.cve', 'c.cve')
    .select([
      'c.cve',
      'c.description',
      'c.cvss_base',
      'c.cvss_vector',
      'c.cwe',
      'c.references',
      'c.configurations',
      sql<boolean>`k.cve is not null`.as('kev'),
      'e.epss',
    ])
    .where('c.cve', 'in', cves)
    .execute();
}

/** Records a source's sync. */
export async function recordSync(db: Db, source: VulnDbSource, syncedAt: Date, detail: Record<string, unknown>): Promise<void> {
  await db
    .insertInto('vulndb_sync')
    .values({ source, synced_at: syncedAt, detail: JSON.stringify(detail) })
    .onConflict((oc) => oc.column('source').doUpdateSet({ synced_at: syncedAt, detail: JSON.stringify(detail) }))
    .execute();
}

export async function findSync(db: Db, source: VulnDbSource): Promise<{ synced_at: Date; detail: unknown } | undefined> {
  return db.selectFrom('vulndb_sync').select(['synced_at', 'detail']).where('source', '=', source).executeTakeFirst();
}

/** Row counts of the three sources (for progress and tests). */
export async function countVulnDbRows(db: Db): Promise<{ cves: number; cpeMatches: number; kev: number; epss: number }> {
  const row = await sql<{ cves: number; cpe_matches: number; kev: number; epss: number }>`
    select (select count(*) from vulndb_cves)::int as cves,
           (select count(*) from vulndb_cpe_matches)::int as cpe_matches,
           (select count(*) from vulndb_kev)::int as kev,
           (select count(*) from vulndb_epss)::int as epss`.execute(db);
  const r = row.rows[0]!;
  return { cves: r.cves, cpeMatches: r.cpe_matches, kev: r.kev, epss: r.epss };
}

/** Every CVE id in the KEV catalog (about 1,500 rows: the whole catalog, read by its primary key). */
export async function listKevCves(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('vulndb_kev').select('cve').execute();
  return rows.map((row) => row.cve);
}
