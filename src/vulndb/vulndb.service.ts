/**
 * The vulnerability database: looking up the CVEs of a product version in the synced NVD records,
 * with KEV and EPSS joined, and what the store holds. The sync itself is vulndb-sync.ts.
 *
 * Glossary: a *match criterion* is one `cpeMatch` entry of an NVD configuration (a CPE name with
 * optional version bounds).
 */
import type { Db } from '../db/database.js';
import type { KnownVulnerability, LookupContext, VulnerabilityLookup } from '../engines/engine.js';
import { AppError } from '../shared/errors.js';
import { evaluateConfigurations, isClientOnly, type Configuration } from './configurations.js';
import { criterionCovers, normaliseTarget, parseCpe, type Cpe } from './cpe.js';
import { countVulnDbRows, findCvesWithIntel, findSync, findVulnerableCpeMatches, listKevCves } from './vulndb.queries.js';

export { DEFAULT_SOURCES, syncVulnDb, type SyncVulnDbOptions, type SyncVulnDbResult, type VulnDbSources } from './vulndb-sync.js';

/**
 * A VulnerabilityLookup over the store, or null when NVD was never synced. `syncedAt` is the
 * time of the last NVD sync when the lookup was made; make a new lookup per run to see later syncs.
 */
export async function createVulnerabilityLookup(db: Db): Promise<VulnerabilityLookup | null> {
  const sync = await findSync(db, 'nvd');
  if (!sync) return null;
  return { syncedAt: sync.synced_at, forCpe: (cpe, context) => findVulnerabilitiesForCpe(db, cpe, context) };
}

/**
 * The CVEs whose NVD configurations apply to this CPE 2.3 name: candidates are those with a
 * vulnerable match criterion covering it (rules in `cpe.ts`), then each candidate's
 * configurations are evaluated (configurations.ts) with the platforms the context names; for a
 * server, CVEs of the product's client programs only are left out. KEV and EPSS joined, highest
 * CVSS first. Throws a bad_request AppError when it is not a CPE name.
 */
export async function findVulnerabilitiesForCpe(db: Db, cpe: string, context: LookupContext = {}): Promise<KnownVulnerability[]> {
  const parsed = parseCpe(cpe);
  if (!parsed) throw new AppError('bad_request', `Not a CPE 2.3 name: ${cpe}`);
  const target = normaliseTarget(parsed);
  const criteria = await findVulnerableCpeMatches(db, target.vendor, target.product);
  const cves = new Set<string>();
  for (const row of criteria) {
    if (cves.has(row.cve)) continue;
    const covers = criterionCovers(
      {
        criteria: row.criteria,
        versionStartIncluding: row.version_start_including,
        versionStartExcluding: row.version_start_excluding,
        versionEndIncluding: row.version_end_including,
        versionEndExcluding: row.version_end_excluding,
      },
      target,
    );
    if (covers) cves.add(row.cve);
  }
  const rows = await findCvesWithIntel(db, [...cves]);
  const platforms = (context.platforms ?? []).map(parseCpe).filter((p): p is Cpe => p !== null);
  return rows
    .flatMap((r) => {
      if (context.server && isClientOnly(target.vendor, target.product, r.description)) return [];
      const applicability = evaluateConfigurations(r.configurations as Configuration[] | null, { product: target, platforms });
      return applicability.applies ? [{ ...r, conditions: applicability.conditions }] : [];
    })
    .map((r) => ({
      cve: r.cve,
      description: r.description,
      cvssBase: r.cvss_base,
      cvssVector: r.cvss_vector,
      cwe: r.cwe[0] ?? null,
      references: r.references,
      kev: r.kev,
      epss: r.epss,
      conditions: r.conditions,
    }))
    .sort((a, b) => (b.cvssBase ?? -1) - (a.cvssBase ?? -1) || a.cve.localeCompare(b.cve));
}

/** What the store holds: rows per source and when each was last synced (null: never). */
export interface VulnDbStatus {
  cves: number;
  cpeMatches: number;
  kev: number;
  epss: number;
  syncedAt: { nvd: Date | null; kev: Date | null; epss: Date | null };
}

/** Rows per source and the time of each source's last sync. */
export async function vulnDbStatus(db: Db): Promise<VulnDbStatus> {
  const [counts, nvd, kev, epss] = await Promise.all([countVulnDbRows(db), findSync(db, 'nvd'), findSync(db, 'kev'), findSync(db, 'epss')]);
  return { ...counts, syncedAt: { nvd: nvd?.synced_at ?? null, kev: kev?.synced_at ?? null, epss: epss?.synced_at ?? null } };
}

/**
 * The CVE ids of the CISA KEV catalog, or null when it was never loaded (`rampart vulndb sync`):
 * callers tell "no known exploited finding" from "nothing to compare with".
 */
export async function knownExploitedCves(db: Db): Promise<string[] | null> {
  const cves = await listKevCves(db);
  return cves.length > 0 ? cves : null;
}
