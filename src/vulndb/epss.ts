/**
 * Parsing the FIRST EPSS daily score file (`epss_scores-current.csv`). Its first line is a
 * comment carrying the model version and the score date
 * (`#model_version:v2026.06.15,score_date:2026-09-29T12:00:22Z`), the second the column header
 * (`cve,epss,percentile`), then one row per scored CVE.
 */

export interface EpssScore {
  cve: string;
  /** Probability of exploitation activity in the next 30 days, 0-1. */
  epss: number;
  /** Share of scored CVEs with the same or a lower score, 0-1 (null in files without it). */
  percentile: number | null;
}

export interface EpssFile {
  modelVersion: string | null;
  scoreDate: Date | null;
  scores: EpssScore[];
}

/** Parses the decompressed CSV text; malformed rows are skipped, a repeated CVE keeps its last row. */
export function parseEpss(csv: string): EpssFile {
  let modelVersion: string | null = null;
  let scoreDate: Date | null = null;
  let columns: string[] | null = null;
  const scores = new Map<string, EpssScore>();
  for (const raw of csv.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      for (const pair of line.slice(1).split(',')) {
        const at = pair.indexOf(':');
        const key = pair.slice(0, at).trim();
        const value = pair.slice(at + 1).trim();
        if (key === 'model_version') modelVersion = value;
        if (key === 'score_date') {
          const date = new Date(value);
          scoreDate = Number.isNaN(date.getTime()) ? null : date;
        }
      }
      continue;
    }
    const cells = line.split(',').map((c) => c.trim());
    if (!columns) {
      // The header names the columns; older files had only `cve,epss`.
      if (cells[0]?.toLowerCase() === 'cve') {
        columns = cells.map((c) => c.toLowerCase());
        continue;
      }
      columns = ['cve', 'epss', 'percentile'];
    }
    const cve = cells[columns.indexOf('cve')]?.toUpperCase();
    const epss = Number(cells[columns.indexOf('epss')]);
    const percentileAt = columns.indexOf('percentile');
    const percentile = percentileAt >= 0 ? Number(cells[percentileAt]) : Number.NaN;
    if (!cve || !/^CVE-\d{4}-\d{4,}$/.test(cve) || !Number.isFinite(epss)) continue;
    scores.set(cve, { cve, epss, percentile: Number.isFinite(percentile) ? percentile : null });
  }
  if (!columns) throw new Error('not an EPSS score file (no header)');
  return { modelVersion, scoreDate, scores: [...scores.values()] };
}
