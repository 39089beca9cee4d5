/**
 * Vulnerabilities: the account's findings to browse (filter, sort, page), show, triage (accept,
 * mark false positive, reset) and export to CSV. Another account's finding is "not found", never
 * forbidden, so ids reveal nothing.
 */
import { parsePathId } from '../shared/validation.js';
import { Readable } from 'node:stream';
import type { Db } from '../db/database.js';
import { fieldError, notFound } from '../shared/errors.js';
import { csvRow, type CsvValue } from './csv.js';
import type { VulnerabilityResource } from './findings.schema.js';
import { CSV_FIELDS, FIELD_ENTRIES, columnOf, type FindingFieldName } from './finding-fields.js';
import * as queries from './vulnerabilities.queries.js';
import type { Direction, SortKey, VulnerabilityFilters, VulnerabilityRow, VulnerabilityStatus } from './vulnerabilities.queries.js';
import { findScanIdsByName } from '../scans/scans.service.js';

export type { Direction, SortKey, VulnerabilityFilters, VulnerabilityStatus } from './vulnerabilities.queries.js';
export { DEFAULT_ORDER } from './vulnerabilities.queries.js';

export const SORT_KEYS = ['name', 'threat', 'cvss_base', 'hostname', 'host_ip', 'scan_type', 'status', 'created_at'] as const satisfies readonly SortKey[];

/** Rows per export query: bounds the memory an export holds, whatever its size. */
export const EXPORT_PAGE_SIZE = 1000;

export interface ListRequest {
  filters: VulnerabilityFilters;
  sort: SortKey;
  direction: Direction;
  page: number;
  perPage: number;
}

/**
 * The evidence as one text: an engine's own when one engine reported the finding, otherwise each
 * engine's under its name, in the order the engines first reported it.
 */
export function combinedEvidence(row: Pick<VulnerabilityRow, 'evidence' | 'engines' | 'engine_evidence'>): string {
  const engines = row.engines.filter((engine) => row.engine_evidence[engine] !== undefined);
  if (engines.length <= 1) return row.evidence;
  return engines.map((engine) => `[${engine}]\n${row.engine_evidence[engine]}`).join('\n\n');
}

/** The resource of a finding's row, field by field as FINDING_FIELDS lists them. */
export function toVulnerabilityResource(row: VulnerabilityRow): VulnerabilityResource {
  const columns = row as unknown as Record<string, unknown>;
  const resource: Record<string, unknown> = {};
  for (const [name, field] of FIELD_ENTRIES) {
    // The one computed field: several engines' evidence reads as one text.
    const value = name === 'evidence' ? combinedEvidence(row) : columns[columnOf(name)];
    resource[name] = field.date ? (value as Date).toISOString() : value;
  }
  return resource as VulnerabilityResource;
}

/** Empty filter strings mean "no filter"; surrounding spaces are not part of a host or a search. */
function cleanFilters(filters: VulnerabilityFilters): VulnerabilityFilters {
  return {
    severity: filters.severity,
    status: filters.status,
    lifecycle: filters.lifecycle,
    target: filters.target?.trim() || undefined,
    search: filters.search?.trim() || undefined,
    url: filters.url?.trim() || undefined,
    targetId: filters.targetId,
    minQod: filters.minQod || undefined,
  };
}

/**
 * The filters with the scans whose name holds the search looked up (an account has few scans), so
 * that the findings conditions touch `findings` alone: without a matching scan name, a search is
 * one condition an index can answer by itself.
 */
export async function resolveFilters(db: Db, userId: number, filters: VulnerabilityFilters): Promise<queries.ResolvedFilters> {
  return { ...filters, searchScanIds: filters.search ? await findScanIdsByName(db, userId, filters.search) : [] };
}

/**
 * One page and the total the filters match; a page past the end is simply empty. Without a
 * search both queries go out together (on PostgreSQL on two connections at once). With one, the
 * count comes first: how many rows match decides how the page is best found.
 */
export async function listVulnerabilities(db: Db, userId: number, request: ListRequest): Promise<{ items: VulnerabilityResource[]; total: number }> {
  const filters = await resolveFilters(db, userId, cleanFilters(request.filters));
  const page = { limit: request.perPage, offset: (request.page - 1) * request.perPage };
  // A search or a URL filter may match few rows: count first, then choose how to find the page.
  if (filters.search || filters.url) {
    const total = await queries.countVulnerabilities(db, userId, filters);
    const rows = total > page.offset ? await queries.listVulnerabilities(db, userId, filters, request, { ...page, fewMatches: total <= queries.SORT_AMONG_MATCHES }) : [];
    return { items: rows.map(toVulnerabilityResource), total };
  }
  const [total, rows] = await Promise.all([queries.countVulnerabilities(db, userId, filters), queries.listVulnerabilities(db, userId, filters, request, page)]);
  return { items: rows.map(toVulnerabilityResource), total };
}

export async function showVulnerability(db: Db, userId: number, id: string): Promise<VulnerabilityResource> {
  const n = parsePathId(id);
  const row = n === undefined ? undefined : await queries.findVulnerability(db, userId, n);
  if (!row) throw notFound('Vulnerability');
  return toVulnerabilityResource(row);
}

/** Any status may move to any other (the spec restricts no transition). */
export async function setVulnerabilityStatus(db: Db, userId: number, id: string, status: VulnerabilityStatus): Promise<void> {
  const n = parsePathId(id);
  const updated = n === undefined ? false : await queries.updateVulnerabilityStatus(db, userId, n, status);
  if (!updated) throw notFound('Vulnerability');
}

/** The most findings one bulk triage may name (one UPDATE with an IN list of this size at most). */
export const MAX_BULK_IDS = 1000;

/**
 * Sets the status of several findings at once (the web application's bulk triage). Ids that are
 * not integers, unknown, or another account's are counted as not found and never touched; an id
 * named twice counts once. More than MAX_BULK_IDS is a 422 on `ids`.
 */
export async function setVulnerabilitiesStatus(db: Db, userId: number, ids: readonly string[], status: VulnerabilityStatus): Promise<{ updated: number; notFound: number }> {
  const distinct = [...new Set(ids)];
  if (distinct.length > MAX_BULK_IDS) throw fieldError('ids', `Select at most ${MAX_BULK_IDS.toLocaleString('en-US')} vulnerabilities at a time.`);
  const parsed = distinct.map(parsePathId).filter((n): n is number => n !== undefined);
  const updated = await queries.updateVulnerabilitiesStatus(db, userId, [...new Set(parsed)], status);
  return { updated, notFound: distinct.length - updated };
}

/**
 * The export's columns, in order (the fields FINDING_FIELDS marks `csv`). `cve`, `engines` and
 * `references` are joined by a space; booleans are `true`/`false`; dates are ISO 8601 UTC;
 * absent values are empty cells.
 */
export const EXPORT_COLUMNS: readonly FindingFieldName[] = CSV_FIELDS;

/** One export row (CSV, CRLF included) from each column's value; lists joined by a space. */
export function exportRow(valueOf: (column: FindingFieldName) => unknown): string {
  return csvRow(EXPORT_COLUMNS.map((column): CsvValue => {
    const value = valueOf(column);
    if (Array.isArray(value)) return value.join(' ');
    return value instanceof Date ? value.toISOString() : (value as CsvValue);
  }));
}

/**
 * The filtered findings as a CSV stream, by id. Rows are read a page at a time (keyset on id) as
 * the client consumes the stream, so memory stays flat; a client that goes away stops the reads.
 * The first page is read before returning, so a store failure at the start is an ordinary error
 * reply; a failure later can only cut the download short.
 */
export async function exportVulnerabilities(db: Db, userId: number, filters: VulnerabilityFilters, pageSize = EXPORT_PAGE_SIZE): Promise<Readable> {
  const clean = await resolveFilters(db, userId, cleanFilters(filters));
  return exportResolved(db, userId, clean, pageSize);
}

/** What an export hid: the quality threshold it applied and how many findings the other filters matched below it. */
export interface ExportQuality {
  minQod: number;
  hidden: number;
}

/**
 * The CSV export with a quality threshold (the request's `min_qod`, else the deployment's): the
 * stream, and how many findings it hid for being below the threshold (the route states both in
 * response headers, since CSV has no place for a note).
 */
export async function exportVulnerabilitiesAbove(db: Db, userId: number, filters: VulnerabilityFilters, minQod: number): Promise<{ stream: Readable; quality: ExportQuality }> {
  const clean = await resolveFilters(db, userId, cleanFilters({ ...filters, minQod: undefined }));
  const [all, shown] = minQod > 0 ? await Promise.all([queries.countVulnerabilities(db, userId, clean), queries.countVulnerabilities(db, userId, { ...clean, minQod })]) : [0, 0];
  const stream = await exportResolved(db, userId, { ...clean, minQod: minQod || undefined }, EXPORT_PAGE_SIZE);
  return { stream, quality: { minQod, hidden: all - shown } };
}

async function exportResolved(db: Db, userId: number, clean: queries.ResolvedFilters, pageSize: number): Promise<Readable> {
  // Only a page's CSV text waits for the client, not its rows, and the row array the query gave
  // is emptied once turned into text. Something (not identified: neither this code nor the pg
  // pool's objects hold it) keeps that array reachable past the page; its rows then pile up as
  // old-generation garbage. Measured on a 100,000-row export: peak RSS 219 MB without the
  // emptying, 150 MB with it.
  const readPage = async (afterId: number): Promise<{ text: string; next: number | undefined }> => {
    const rows = await queries.vulnerabilitiesAfter(db, userId, clean, afterId, pageSize);
    const page = { text: rows
        .map((row) => {
          const resource = toVulnerabilityResource(row);
          return exportRow((column) => resource[column]);
        }).join(''), next: rows.length === pageSize ? rows[rows.length - 1]!.id : undefined };
    rows.length = 0;
    return page;
  };
  let page: { text: string; next: number | undefined } | undefined = await readPage(0);
  async function* lines(): AsyncGenerator<string> {
    yield csvRow(EXPORT_COLUMNS);
    while (page) {
      const { text, next } = page;
      page = undefined;
      if (text) yield text;
      if (next !== undefined) page = await readPage(next);
    }
  }
  return Readable.from(lines(), { objectMode: false });
}
