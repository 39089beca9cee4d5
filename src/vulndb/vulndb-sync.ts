/**
 * Syncing the vulnerability database: NVD CVE records (with their CPE configurations, paged and
 * incremental after the first sync), the CISA KEV catalog and FIRST EPSS scores, into the store in
 * batches, with progress lines a person can follow (records, pages, percent).
 *
 * Glossary: a *window* is one lastModified interval of an incremental NVD sync (the API allows at
 * most 120 days per request).
 */
import type { Insertable } from 'kysely';
import type { Db } from '../db/database.js';
import type { VulnDbCpeMatchesTable, VulnDbCvesTable } from '../db/schema.js';
import { AppError } from '../shared/errors.js';
import { bodyText, download, DownloadError, type DownloadOptions } from './download.js';
import { parseEpss } from './epss.js';
import { parseKev } from './kev.js';
import { parseNvdPage, type NvdCve } from './nvd.js';
import type { VulnDbSources } from './sources.js';
import {
  deleteAllEpss,
  deleteAllKev,
  deleteCpeMatchesOf,
  findSync,
  insertCpeMatches,
  insertEpss,
  insertKev,
  recordSync,
  upsertCves,
} from './vulndb.queries.js';

export { DEFAULT_SOURCES, type VulnDbSources } from './sources.js';

export interface SyncVulnDbOptions {
  sources: VulnDbSources;
  /** Pause between NVD requests; default 6 s without an API key, 0.6 s with one (NVD's limits). */
  pageDelayMs?: number;
  /**
   * The longest wait for a response, then for each next chunk of its body; default 120 s. Not a
   * limit on a whole download, so a large file on a slow link completes.
   */
  timeoutMs?: number;
  /** Retries of a request after a 5xx, 429, network error or timeout; default 3. */
  retries?: number;
  /** Delay before retry n is n times this; default 5 s. */
  retryDelayMs?: number;
  /** NVD resultsPerPage; default and maximum 2,000. */
  pageSize?: number;
  onProgress?: (message: string) => void;
  /** Only NVD records modified since then. Default: since the last NVD sync, or everything on the first. */
  since?: Date;
  /** Download every NVD record even when an earlier sync makes an incremental one possible. */
  full?: boolean;
  /** Stops the sync between requests and during downloads (what is stored stays). */
  signal?: AbortSignal;
}

export interface SyncVulnDbResult {
  /** NVD records stored by this sync (all of them on a full sync, the changed ones otherwise). */
  cves: number;
  kev: number;
  epss: number;
}

const MAX_PAGE_SIZE = 2000;
const MAX_WINDOW_MS = 120 * 24 * 3600 * 1000;
const CVE_BATCH = 500;
const MATCH_BATCH = 1000;
const KEV_BATCH = 1000;
const EPSS_BATCH = 2000;

/**
 * Downloads NVD (paged, incremental after the first sync), KEV and EPSS into the store, in
 * batches, reporting progress through `onProgress`. Each NVD page is stored in its own
 * transaction; the NVD sync time only advances once every page is in, so a failed sync is
 * resumed from the same point. KEV and EPSS are replaced whole, each in one transaction.
 * Throws an `AppError` (service_unavailable) naming the source and URL when a download fails.
 */
export async function syncVulnDb(db: Db, options: SyncVulnDbOptions): Promise<SyncVulnDbResult> {
  const progress = options.onProgress ?? (() => undefined);
  const request = (label: string): DownloadOptions => ({
    label,
    timeoutMs: options.timeoutMs ?? 120_000,
    retries: options.retries ?? 3,
    retryDelayMs: options.retryDelayMs ?? 5_000,
    onRetry: progress,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  try {
    const cves = await syncNvd(db, options, request('NVD'), progress);
    const kev = await syncKev(db, options.sources.kevUrl, request('KEV'), progress);
    const epss = await syncEpss(db, options.sources.epssUrl, request('EPSS'), progress);
    return { cves, kev, epss };
  } catch (error) {
    if (error instanceof DownloadError) throw new AppError('service_unavailable', error.message, { cause: error });
    throw error;
  }
}

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

const MB = 1024 * 1024;

/**
 * Reports a file download's bytes: at each tenth of its announced length, or each 5 MB when the
 * server announces none. Only large files say anything; small ones finish first.
 */
function byteProgress(label: string, progress: (m: string) => void): DownloadOptions['onBytes'] {
  let next = 0;
  return (received, total) => {
    const step = total ? total / 10 : 5 * MB;
    if (received < next || received < 5 * MB) return;
    next = received + step;
    const of = total ? ` of ${(total / MB).toFixed(1)} MB (${Math.floor((received / total) * 100)}%)` : '';
    progress(`${label}: ${(received / MB).toFixed(1)} MB received${of}`);
  };
}

/** `3/46 records (6%)`: how far a count has come. */
function percent(done: number, total: number): string {
  return `${done}/${total} records (${total > 0 ? Math.floor((done / total) * 100) : 100}%)`;
}

/** NVD wants an explicit offset (`2024-07-01T00:00:00.000+00:00`). */
function nvdTimestamp(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}

async function syncNvd(db: Db, options: SyncVulnDbOptions, request: DownloadOptions, progress: (m: string) => void): Promise<number> {
  const { sources } = options;
  const windowEnd = new Date();
  const since = options.full ? undefined : (options.since ?? (await findSync(db, 'nvd'))?.synced_at);
  const windows: Array<[Date, Date] | null> = [];
  if (since) {
    for (let start = since.getTime(); ; start += MAX_WINDOW_MS) {
      const end = Math.min(start + MAX_WINDOW_MS, windowEnd.getTime());
      windows.push([new Date(start), new Date(end)]);
      if (end >= windowEnd.getTime()) break;
    }
  } else {
    windows.push(null);
  }
  const delay = options.pageDelayMs ?? (sources.nvdApiKey ? 600 : 6_000);
  const pageSize = Math.min(Math.max(options.pageSize ?? MAX_PAGE_SIZE, 1), MAX_PAGE_SIZE);
  const headers = sources.nvdApiKey ? { apiKey: sources.nvdApiKey } : undefined;
  progress(since ? `NVD: records modified since ${since.toISOString()} (${windows.length} window${windows.length === 1 ? '' : 's'} of at most 120 days)` : `NVD: full download from ${sources.nvdBaseUrl}`);
  let stored = 0;
  let requests = 0;
  for (const [w, window] of windows.entries()) {
    const label = windows.length > 1 && window ? `NVD window ${w + 1}/${windows.length} (${window[0].toISOString().slice(0, 10)} to ${window[1].toISOString().slice(0, 10)})` : 'NVD';
    let perPage = 0;
    for (let startIndex = 0, pageNo = 1; ; pageNo++) {
      const url = new URL(sources.nvdBaseUrl);
      url.searchParams.set('resultsPerPage', String(pageSize));
      url.searchParams.set('startIndex', String(startIndex));
      if (window) {
        url.searchParams.set('lastModStartDate', nvdTimestamp(window[0]));
        url.searchParams.set('lastModEndDate', nvdTimestamp(window[1]));
      }
      // NVD's rate limit is per rolling 30 s; a pause between requests keeps us under it.
      if (requests++ > 0) await sleep(delay);
      options.signal?.throwIfAborted();
      const body = await download(url.toString(), { ...request, ...(headers ? { headers } : {}) });
      const page = parseBody('NVD', url.toString(), () => parseNvdPage(JSON.parse(bodyText(body))));
      await storeNvdRecords(db, page.records);
      stored += page.records.length;
      startIndex = page.startIndex + page.received;
      // NVD may send fewer than resultsPerPage; the first page's size counts the pages.
      perPage ||= page.received;
      const pages = Math.max(1, Math.ceil(page.totalResults / Math.max(perPage, 1)));
      progress(`${label}: page ${pageNo} of ${Math.max(pages, pageNo)}, ${percent(Math.min(startIndex, page.totalResults), page.totalResults)}`);
      if (page.received === 0 || startIndex >= page.totalResults) break;
    }
  }
  await recordSync(db, 'nvd', windowEnd, { mode: since ? 'incremental' : 'full', since: since?.toISOString() ?? null, records: stored });
  return stored;
}

/** Runs a parser over a downloaded body; a failure names the source and URL. */
function parseBody<T>(label: string, url: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new DownloadError(`${label} download failed: unexpected response from ${url}: ${reason}`, false, { cause: error });
  }
}

function cveRow(record: NvdCve): Insertable<VulnDbCvesTable> {
  return {
    cve: record.cve,
    description: record.description,
    cvss_base: record.cvssBase,
    cvss_vector: record.cvssVector,
    cvss_version: record.cvssVersion,
    cwe: record.cwe,
    references: record.references,
    vuln_status: record.vulnStatus,
    published: record.published,
    last_modified: record.lastModified,
    configurations: record.configurations.length > 0 ? JSON.stringify(record.configurations) : null,
  };
}

/** Stores one page: the CVEs, and their criteria replaced whole. */
async function storeNvdRecords(db: Db, records: NvdCve[]): Promise<void> {
  // One row per CVE even if a page repeats one: ON CONFLICT cannot touch a row twice.
  const unique = [...new Map(records.map((r) => [r.cve, r])).values()];
  const matches: Insertable<VulnDbCpeMatchesTable>[] = unique.flatMap((r) =>
    r.matches.map((m) => ({
      cve: r.cve,
      match_criteria_id: m.matchCriteriaId,
      criteria: m.criteria,
      part: m.part,
      vendor: m.vendor,
      product: m.product,
      version_start_including: m.versionStartIncluding,
      version_start_excluding: m.versionStartExcluding,
      version_end_including: m.versionEndIncluding,
      version_end_excluding: m.versionEndExcluding,
      vulnerable: m.vulnerable,
    })),
  );
  await db.transaction().execute(async (trx) => {
    for (const batch of chunks(unique, CVE_BATCH)) {
      await upsertCves(trx, batch.map(cveRow));
      await deleteCpeMatchesOf(trx, batch.map((r) => r.cve));
    }
    for (const batch of chunks(matches, MATCH_BATCH)) await insertCpeMatches(trx, batch);
  });
}

async function syncKev(db: Db, url: string, request: DownloadOptions, progress: (m: string) => void): Promise<number> {
  progress(`KEV: downloading ${url}`);
  const body = await download(url, { ...request, onBytes: byteProgress('KEV', progress) });
  const catalog = parseBody('KEV', url, () => parseKev(JSON.parse(bodyText(body))));
  await db.transaction().execute(async (trx) => {
    await deleteAllKev(trx);
    for (const batch of chunks(catalog.entries, KEV_BATCH)) {
      await insertKev(
        trx,
        batch.map((e) => ({
          cve: e.cve,
          vendor_project: e.vendorProject,
          product: e.product,
          vulnerability_name: e.vulnerabilityName,
          date_added: e.dateAdded,
          due_date: e.dueDate,
          known_ransomware_campaign_use: e.knownRansomwareCampaignUse,
        })),
      );
    }
    await recordSync(trx, 'kev', new Date(), { catalogVersion: catalog.catalogVersion, entries: catalog.entries.length });
  });
  progress(`KEV: ${catalog.entries.length} entries (catalog ${catalog.catalogVersion ?? 'of unknown version'})`);
  return catalog.entries.length;
}

async function syncEpss(db: Db, url: string, request: DownloadOptions, progress: (m: string) => void): Promise<number> {
  progress(`EPSS: downloading ${url}`);
  const body = await download(url, { ...request, onBytes: byteProgress('EPSS', progress) });
  const { scores, scoreDate, modelVersion } = parseBody('EPSS', url, () => parseEpss(bodyText(body)));
  await db.transaction().execute(async (trx) => {
    await deleteAllEpss(trx);
    for (const batch of chunks(scores, EPSS_BATCH)) {
      await insertEpss(trx, batch.map((s) => ({ cve: s.cve, epss: s.epss, percentile: s.percentile, score_date: scoreDate })));
    }
    await recordSync(trx, 'epss', new Date(), { modelVersion, scoreDate: scoreDate?.toISOString() ?? null, scores: scores.length });
  });
  progress(`EPSS: ${scores.length} scores${scoreDate ? ` of ${scoreDate.toISOString().slice(0, 10)}` : ''}`);
  return scores.length;
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
