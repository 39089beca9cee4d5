/**
 * Scan reports: builds the canonical run record (`report.ts`) from the store and renders it in
 * the format asked for. Only completed runs have reports; findings are read a page at a time as
 * the renderer consumes them, so a report of any size holds one page in memory.
 */
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { mayHaveNarrative } from '../shared/roles.js';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Run, Scan, User } from '../db/schema.js';
import { combinedEvidence } from '../findings/vulnerabilities.service.js';
import { FIELD_ENTRIES, columnOf } from '../findings/finding-fields.js';
import { findRunOfScan, keepRunNarrative } from '../scans/runs.service.js';
import { findUserById } from '../accounts/users.service.js';
import { findScanByUuid, requireScan } from '../scans/scans.service.js';
import { AppError, notFound } from '../shared/errors.js';
import { writeNarrative } from './narrative-llm.js';
import { narrativeFindings } from './narrative.js';
import { engineLine, THREAT_ORDER, type Narrative, type ReportFinding, type ReportFormat, type ReportRecord, type Threat, type ThreatCounts } from './report.js';
import { verifyReportLink, type ReportLink } from './report-links.js';
import * as queries from './reports.queries.js';
import { renderCsv } from './render-csv.js';
import { renderHtml } from './render-html.js';
import { renderTxt } from './render-txt.js';
import { renderXml } from './render-xml.js';

export { REPORT_FORMATS, reportUrl, type ReportFormat, type ThreatCounts } from './report.js';
export { signedReportUrls } from './report-links.js';

/** The formats that show the attack narrative (CSV has one row per finding, and no place for it). */
const FORMATS_WITH_NARRATIVE = new Set<ReportFormat>(['pdf', 'html', 'txt', 'xml']);

/** Findings per read while rendering. */
const PAGE_SIZE = 2000;
/** The most severe findings an attack narrative is written from. */
const NARRATIVE_FINDINGS = 500;

export interface ReportDeps {
  db: Db;
  config: Config;
  clock: () => Date;
}

export const REPORT_MEDIA_TYPES: Record<ReportFormat, string> = {
  pdf: 'application/pdf',
  csv: 'text/csv; charset=utf-8',
  html: 'text/html; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
};

/**
 * pdfkit and its fonts add about 30 MB to a process: loaded with the first PDF, not by every
 * process that serves the API or works runs.
 */
function renderPdfWhenLoaded(record: ReportRecord): Readable {
  const out = new PassThrough();
  import('./render-pdf.js').then(
    ({ renderPdf }) => pipeline(renderPdf(record), out).catch((error: unknown) => out.destroy(error as Error)),
    (error: unknown) => out.destroy(error as Error),
  );
  return out;
}

const RENDERERS: Record<ReportFormat, (record: ReportRecord) => Readable> = {
  pdf: renderPdfWhenLoaded,
  csv: renderCsv,
  html: renderHtml,
  txt: renderTxt,
  xml: renderXml,
};

/** `rampart-<scan name as a slug>-run-<index>.<format>`, ASCII only, safe in a header. */
export function reportFilename(scanName: string, runIndex: number, format: ReportFormat): string {
  const slug = scanName
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase()
    .slice(0, 60);
  return `rampart-${slug || 'scan'}-run-${runIndex}.${format}`;
}

/** A report's finding from its row: each field FINDING_FIELDS gives a report `key`, from its column. */
function toReportFinding(row: queries.RunFindingRow): ReportFinding {
  const columns = row as unknown as Record<string, unknown>;
  const finding: Record<string, unknown> = {};
  for (const [name, field] of FIELD_ENTRIES) if (field.key) finding[field.key] = columns[columnOf(name)];
  return {
    ...(finding as unknown as ReportFinding),
    engines: row.engines.length > 0 ? row.engines : [row.engine],
    evidence: combinedEvidence(row),
  };
}

/** The run's present or fixed findings in report order, read a page at a time. */
async function* readFindings(db: Db, runId: number, which: 'present' | 'fixed', minQod: number, limit = Infinity): AsyncGenerator<ReportFinding> {
  let cursor: queries.RunFindingCursor | null = null;
  let yielded = 0;
  for (;;) {
    const page = await queries.runFindingsPage(db, runId, which, cursor, Math.min(PAGE_SIZE, limit - yielded), minQod);
    for (const row of page) yield toReportFinding(row);
    yielded += page.length;
    if (page.length < PAGE_SIZE || yielded >= limit) return;
    const last = page[page.length - 1]!;
    cursor = { rank: Number(last.rank), score: Number(last.score), id: last.id };
  }
}

function rankToThreat(rank: number): Threat | null {
  return rank >= 0 && rank <= 4 ? THREAT_ORDER[4 - rank]! : null;
}

/**
 * The run's attack narrative: the one stored on the run, or a new one (from the configured LLM,
 * else the built-in writer) written from its most severe findings and stored, so that every
 * format and every later download tell the same story.
 */
async function runNarrative(deps: ReportDeps, run: Run, services: ReportRecord['services']): Promise<Narrative> {
  if (run.narrative) return run.narrative as Narrative;
  const findings: ReportFinding[] = [];
  // Written once per run and kept: from the findings the deployment's reports show, so that
  // low-quality version matches do not make the story.
  for await (const f of readFindings(deps.db, run.id, 'present', deps.config.minQod, NARRATIVE_FINDINGS)) findings.push(f);
  const { llm } = deps.config;
  const narrative = await writeNarrative(
    { findings: narrativeFindings(findings), services },
    llm.url ? { url: llm.url, model: llm.model, timeoutMs: llm.timeoutMs, ...(llm.apiKey ? { apiKey: llm.apiKey } : {}) } : undefined,
  );
  return (await keepRunNarrative(deps.db, run.id, narrative)) as Narrative;
}

/**
 * The record of a completed run of the scan. `withNarrative` false leaves the attack narrative out
 * (null) for a format that does not show it (CSV), so its download never waits for one to be written.
 */
export async function loadRunReport(deps: ReportDeps, scan: Scan, run: Run, owner: Pick<User, 'role'>, withNarrative = true, minQod = deps.config.minQod): Promise<ReportRecord> {
  const { db } = deps;
  const [threatCounts, serviceRows, hidden, lifecycleCounts] = await Promise.all([
    queries.runThreatCounts(db, run.id, minQod),
    queries.runServices(db, run.id, minQod),
    queries.countRunFindingsBelow(db, run.id, minQod),
    // Counted with the same threshold as the findings listed, so that "New: N" matches the list.
    queries.runLifecycleCounts(db, run.id, minQod),
  ]);
  const counts = Object.fromEntries(THREAT_ORDER.map((t) => [t, threatCounts.get(t) ?? 0])) as Record<Threat, number>;
  const services = serviceRows.map((row) => ({
    hostname: row.hostname,
    hostIp: row.host_ip,
    port: row.port,
    protocol: row.protocol,
    service: row.service,
    findings: row.findings,
    worstThreat: rankToThreat(row.worst_rank),
  }));
  const narrative = withNarrative && scan.include_attack_narrative && mayHaveNarrative(owner.role) ? await runNarrative(deps, run, services) : null;
  return {
    generatedAt: deps.clock(),
    baseUrl: deps.config.baseUrl,
    scan: {
      uuid: scan.uuid,
      name: scan.scan_name,
      type: scan.scan_type,
      targets: scan.scan_target.split(', ').filter(Boolean),
      frequency: scan.scan_frequency,
      timeZone: scan.scan_time_zone,
    },
    run: {
      index: run.run_index,
      trigger: run.trigger,
      status: run.status,
      outcome: run.outcome,
      error: run.error,
      notes: run.notes,
      queuedAt: run.queued_at,
      startedAt: run.started_at,
      completedAt: run.completed_at,
      engine: run.engine,
      engineVersion: run.engine_version,
      engineDetail: run.engine_detail,
      hostsUp: run.hosts_up,
      hostsDown: run.hosts_down,
    },
    vulnDbSyncedAt: run.vulndb_synced_at,
    quality: { minQod, hidden },
    counts,
    total: THREAT_ORDER.reduce((sum, t) => sum + counts[t], 0),
    lifecycle: {
      new: lifecycleCounts.get('new') ?? 0,
      still_open: lifecycleCounts.get('still_open') ?? 0,
      fixed: lifecycleCounts.get('fixed') ?? 0,
      regressed: lifecycleCounts.get('regressed') ?? 0,
    },
    services,
    findings: () => readFindings(db, run.id, 'present', minQod),
    fixed: () => readFindings(db, run.id, 'fixed', minQod),
    narrative,
  };
}

/** Finds the run a report download asks for: `run_index`, or the latest completed run. */
export async function findReportRun(db: Db, scan: Scan, runIndex: number | undefined): Promise<Run> {
  const run = await findRunOfScan(db, scan.id, runIndex);
  if (!run) {
    throw new AppError(
      'not_found',
      runIndex === undefined ? 'This scan has no completed run yet, so there is no report.' : `This scan has no run ${runIndex}.`,
    );
  }
  if (run.status !== 'completed') throw new AppError('not_found', `Run ${run.run_index} has not finished yet; its report is available when it completes.`);
  return run;
}

export interface RenderedReport {
  stream: Readable;
  mediaType: string;
  filename: string;
  /** The quality threshold applied and the findings it hid (also in response headers: CSV has no place for a note). */
  quality: ReportRecord['quality'];
  /**
   * The engine line of the run (`rampart 1.0.0 instead of OpenVAS, ...`), also a response header:
   * the CSV has no place for it, and a fallback must be said in every report. Null when none ran.
   */
  engine: string | null;
}

async function renderRun(deps: ReportDeps, scan: Scan, owner: Pick<User, 'role'>, format: ReportFormat, runIndex: number | undefined, minQod: number | undefined): Promise<RenderedReport> {
  const run = await findReportRun(deps.db, scan, runIndex);
  const record = await loadRunReport(deps, scan, run, owner, FORMATS_WITH_NARRATIVE.has(format), minQod ?? deps.config.minQod);
  return { stream: RENDERERS[format](record), mediaType: REPORT_MEDIA_TYPES[format], filename: reportFilename(scan.scan_name, run.run_index, format), quality: record.quality, engine: engineLine(record.run) };
}

/** GET /api/scans/{format}/{uuid}: the account's scan, its run, rendered. */
export async function downloadReport(deps: ReportDeps, user: User, uuid: string, format: ReportFormat, runIndex: number | undefined, minQod?: number): Promise<RenderedReport> {
  const scan = await requireScan(deps.db, user.id, uuid);
  return renderRun(deps, scan, user, format, runIndex, minQod);
}

/**
 * GET /api/reports/{uuid}/{run_index}/{format}: a signed link's report, without a bearer token.
 * 403 for a bad or expired link; 404 when the scan was deleted (or the run is gone) since.
 */
export async function downloadLinkedReport(deps: ReportDeps, link: ReportLink, signature: string, minQod?: number): Promise<RenderedReport> {
  await verifyReportLink(deps, link, signature, deps.clock());
  const scan = await findScanByUuid(deps.db, link.uuid.toLowerCase());
  const owner = scan ? await findUserById(deps.db, scan.user_id) : undefined;
  if (!scan || !owner) throw notFound('Scan');
  return renderRun(deps, scan, owner, link.format, link.runIndex, minQod);
}

/**
 * The run's present findings by threat, keyed as webhook events count them: those the
 * deployment's reports show (quality of detection at least `minQod`), so an event and the report
 * it links to agree.
 */
export async function runCountsByThreat(db: Db, runId: number, minQod = 0): Promise<ThreatCounts> {
  const counts = await queries.runThreatCounts(db, runId, minQod);
  const of = (t: Threat) => counts.get(t) ?? 0;
  return { critical: of('Critical'), high: of('High'), medium: of('Medium'), low: of('Low'), informational: of('Informational') };
}

/** Renders a record in a format (for the report email). */
export function renderReport(record: ReportRecord, format: ReportFormat): Readable {
  return RENDERERS[format](record);
}
