/**
 * Parsing NVD CVE API 2.0 records (`vulnerabilities[].cve`) into what the store keeps: the
 * English description, one CVSS score (v3.1, else v3.0, else v2; NVD's own "Primary" metric
 * first), the CWE ids, the reference URLs and every CPE match criterion of the configurations.
 *
 * Configurations: each `cpeMatch` of each node becomes one criterion, with its version bounds and
 * its `vulnerable` flag (nodes marked `negate` are skipped): the index a lookup finds candidate
 * CVEs by. The configurations are also kept whole (AND/OR, negate, the `vulnerable: false`
 * "running on/with" parts), and a lookup evaluates them (configurations.ts).
 */
import { parseCpe } from './cpe.js';
import { parseConfigurationList, type Configuration } from './configurations.js';

/** One CPE match criterion of a CVE's configurations. */
export interface NvdCpeMatch {
  criteria: string;
  matchCriteriaId: string | null;
  part: string;
  vendor: string;
  product: string;
  versionStartIncluding: string | null;
  versionStartExcluding: string | null;
  versionEndIncluding: string | null;
  versionEndExcluding: string | null;
  vulnerable: boolean;
}

/** A CVE as the store keeps it. */
export interface NvdCve {
  cve: string;
  description: string;
  cvssBase: number | null;
  cvssVector: string | null;
  cvssVersion: string | null;
  /** CWE ids, NVD's primary ones first; `NVD-CWE-Other`/`NVD-CWE-noinfo` are left out. */
  cwe: string[];
  references: string[];
  vulnStatus: string | null;
  published: Date | null;
  lastModified: Date | null;
  matches: NvdCpeMatch[];
  /** The configurations as NVD states them, kept to what evaluation needs. */
  configurations: Configuration[];
}

/** A page of the NVD CVE API 2.0. */
export interface NvdPage {
  resultsPerPage: number;
  startIndex: number;
  totalResults: number;
  /** Entries in the page's `vulnerabilities`, parsed or not: where the next page starts. */
  received: number;
  records: NvdCve[];
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function arrayOf(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** NVD timestamps carry no zone (`2024-07-09T06:15:03.513`); they are UTC. */
function nvdDate(value: unknown): Date | null {
  const s = text(value);
  if (!s) return null;
  const date = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s}Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** Parses one API response page; throws when the body is not an NVD CVE API 2.0 page. */
export function parseNvdPage(body: unknown): NvdPage {
  if (!isObject(body) || !Array.isArray(body.vulnerabilities) || typeof body.totalResults !== 'number') {
    throw new Error('not an NVD CVE API 2.0 response (no vulnerabilities/totalResults)');
  }
  const records = arrayOf(body.vulnerabilities)
    .map((v) => (isObject(v.cve) ? parseNvdCve(v.cve) : null))
    .filter((r): r is NvdCve => r !== null);
  return {
    resultsPerPage: typeof body.resultsPerPage === 'number' ? body.resultsPerPage : records.length,
    startIndex: typeof body.startIndex === 'number' ? body.startIndex : 0,
    totalResults: body.totalResults,
    received: body.vulnerabilities.length,
    records,
  };
}

/** Parses one `cve` object; null when it has no CVE id. */
export function parseNvdCve(cve: Json): NvdCve | null {
  const id = text(cve.id);
  if (!id) return null;
  const english = arrayOf(cve.descriptions).find((d) => d.lang === 'en');
  const cvss = pickCvss(isObject(cve.metrics) ? cve.metrics : {});
  return {
    cve: id,
    description: text(english?.value) ?? '',
    cvssBase: cvss?.score ?? null,
    cvssVector: cvss?.vector ?? null,
    cvssVersion: cvss?.version ?? null,
    cwe: parseCwes(cve.weaknesses),
    references: [...new Set(arrayOf(cve.references).map((r) => text(r.url)).filter((u): u is string => u !== null))],
    vulnStatus: text(cve.vulnStatus),
    published: nvdDate(cve.published),
    lastModified: nvdDate(cve.lastModified),
    matches: parseConfigurations(cve.configurations),
    configurations: parseConfigurationList(cve.configurations),
  };
}

function pickCvss(metrics: Json): { score: number; vector: string | null; version: string } | null {
  for (const [key, version] of [['cvssMetricV31', '3.1'], ['cvssMetricV30', '3.0'], ['cvssMetricV2', '2.0']] as const) {
    const list = arrayOf(metrics[key]);
    const chosen = list.find((m) => m.type === 'Primary') ?? list[0];
    const data = chosen && isObject(chosen.cvssData) ? chosen.cvssData : null;
    if (data && typeof data.baseScore === 'number') {
      return { score: data.baseScore, vector: text(data.vectorString), version };
    }
  }
  return null;
}

function parseCwes(weaknesses: unknown): string[] {
  const list = arrayOf(weaknesses);
  const ordered = [...list.filter((w) => w.type === 'Primary'), ...list.filter((w) => w.type !== 'Primary')];
  const ids = ordered.flatMap((w) => arrayOf(w.description).map((d) => text(d.value)));
  return [...new Set(ids.filter((id): id is string => id !== null && /^CWE-\d+$/.test(id)))];
}

function parseConfigurations(configurations: unknown): NvdCpeMatch[] {
  const out: NvdCpeMatch[] = [];
  for (const config of arrayOf(configurations)) {
    for (const node of arrayOf(config.nodes)) {
      if (node.negate === true) continue;
      for (const match of arrayOf(node.cpeMatch)) {
        const criteria = text(match.criteria);
        const cpe = criteria ? parseCpe(criteria) : null;
        if (!criteria || !cpe) continue;
        out.push({
          criteria,
          matchCriteriaId: text(match.matchCriteriaId),
          part: cpe.part,
          vendor: cpe.vendor,
          product: cpe.product,
          versionStartIncluding: text(match.versionStartIncluding),
          versionStartExcluding: text(match.versionStartExcluding),
          versionEndIncluding: text(match.versionEndIncluding),
          versionEndExcluding: text(match.versionEndExcluding),
          vulnerable: match.vulnerable === true,
        });
      }
    }
  }
  return out;
}
