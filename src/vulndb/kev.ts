/**
 * Parsing the CISA Known Exploited Vulnerabilities catalog (`known_exploited_vulnerabilities.json`,
 * schema in cisagov/kev-data). The catalog is always published whole, so a sync replaces it.
 */

/** One catalog entry. */
export interface KevEntry {
  cve: string;
  vendorProject: string | null;
  product: string | null;
  vulnerabilityName: string | null;
  /** `YYYY-MM-DD`. */
  dateAdded: string | null;
  dueDate: string | null;
  /** `Known` or `Unknown`, as CISA writes it. */
  knownRansomwareCampaignUse: string | null;
}

export interface KevCatalog {
  catalogVersion: string | null;
  dateReleased: string | null;
  entries: KevEntry[];
}

const CVE_ID = /^CVE-\d{4}-\d{4,}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function str(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function day(value: unknown): string | null {
  const s = str(value);
  return s && DAY.test(s) ? s : null;
}

/** Parses the catalog; entries without a well-formed CVE id are skipped, duplicates kept once. */
export function parseKev(body: unknown): KevCatalog {
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { vulnerabilities?: unknown }).vulnerabilities)) {
    throw new Error('not a CISA KEV catalog (no vulnerabilities array)');
  }
  const catalog = body as { catalogVersion?: unknown; dateReleased?: unknown; vulnerabilities: unknown[] };
  const byCve = new Map<string, KevEntry>();
  for (const item of catalog.vulnerabilities) {
    if (typeof item !== 'object' || item === null) continue;
    const v = item as Record<string, unknown>;
    const cve = str(v.cveID)?.trim().toUpperCase();
    if (!cve || !CVE_ID.test(cve) || byCve.has(cve)) continue;
    byCve.set(cve, {
      cve,
      vendorProject: str(v.vendorProject),
      product: str(v.product),
      vulnerabilityName: str(v.vulnerabilityName),
      dateAdded: day(v.dateAdded),
      dueDate: day(v.dueDate),
      knownRansomwareCampaignUse: str(v.knownRansomwareCampaignUse),
    });
  }
  return { catalogVersion: str(catalog.catalogVersion), dateReleased: str(catalog.dateReleased), entries: [...byCve.values()] };
}
