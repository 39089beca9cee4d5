/**
 * The canonical run record every report format renders from (issue 6). One loader
 * (`reports.service.ts`) builds it from the store; the renderers (`render-*.ts`) only read it and
 * never touch SQL, so the five formats always agree.
 *
 * Findings are not an array: a run may have tens of thousands, so the record hands out async
 * iterables that read them a page at a time, in report order (threat, then CVSS, then id). A
 * renderer may iterate each of them more than once; every call starts a fresh read.
 *
 * Glossary:
 * - present finding: one the run saw (lifecycle new, still_open or regressed).
 * - fixed finding: one the previous successful run of the scan saw and this run did not.
 */

import type { Lifecycle, RunTrigger, ThreatLevel } from '../db/schema.js';
import { THREATS } from '../findings/findings.schema.js';

import type { ReportFormat } from '../shared/report-formats.js';

export { REPORT_FORMATS, type ReportFormat } from '../shared/report-formats.js';

/** Findings of one run by threat level (CVSS bands: 9.0 / 7.0 / 4.0 / 0.1 / 0), keyed as events count them. */
export interface ThreatCounts {
  critical: number;
  high: number;
  medium: number;
  low: number;
  informational: number;
}

/**
 * Where a run's report downloads with a bearer token, in `format`
 * (`GET /api/scans/{format}/{uuid}?run_index=N`); MCP clients hold one. Email and webhooks, read
 * where no bearer can be sent, carry signed links (report-links.ts).
 */
export function reportUrl(baseUrl: string, scanUuid: string, runIndex: number, format: ReportFormat): string {
  return `${baseUrl.replace(/\/+$/, '')}/api/scans/${format}/${encodeURIComponent(scanUuid)}?run_index=${runIndex}`;
}

/**
 * The engine that ran, as one line (`zap 2.17.0 via daemon`), or null when none was recorded: every
 * report prints the whole line, so a fallback or an unexpected tool version is never silent.
 */
export function engineLine(run: { engine: string | null; engineVersion: string | null; engineDetail: string | null }): string | null {
  if (!run.engine) return null;
  return [run.engine, run.engineVersion, run.engineDetail].filter((part) => part).join(' ');
}

export type Threat = ThreatLevel;

/** The sentence every format prints about the findings a report hid for their quality of detection. */
export function qualityLine(quality: { minQod: number; hidden: number }): string {
  if (quality.minQod <= 0) return 'All findings are shown, whatever their quality of detection (QoD).';
  const hidden = quality.hidden === 1 ? '1 finding' : `${quality.hidden} findings`;
  return `Findings with a quality of detection (QoD) below ${quality.minQod} are hidden: ${hidden} of this run. Ask with min_qod=0 to see them.`;
}
/** Most severe first: the order of every per-threat list in a report. */
export const THREAT_ORDER: readonly Threat[] = THREATS;

export type { Lifecycle };

/**
 * A finding as reports render it: the fields FINDING_FIELDS gives a `key`, by that key
 * (`reports.service.ts` builds it from them; test/finding-fields.test.ts checks they agree).
 */
export interface ReportFinding {
  id: number;
  name: string;
  threat: Threat;
  cvssBase: number | null;
  cvssVector: string | null;
  cve: string[];
  cwe: string | null;
  hostname: string;
  hostIp: string;
  port: number | null;
  protocol: string | null;
  service: string | null;
  /** Web findings: the URL, HTTP method and vulnerable input (null for network findings). */
  url: string | null;
  method: string | null;
  parameter: string | null;
  /** The engine that reported it last. */
  engine: string;
  /** Engines that reported it, in the order they first did. */
  engines: string[];
  ruleId: string;
  description: string;
  solution: string;
  /** The evidence as one text (each engine's under its name when several reported it). */
  evidence: string;
  references: string[];
  /** Triage status: Unresolved, Accepted or False Positive. */
  status: 'Unresolved' | 'Accepted' | 'False Positive';
  /** The finding's label in this run. */
  lifecycle: Lifecycle;
  kev: boolean;
  epss: number | null;
  /** Quality of detection, 0-100 (src/shared/finding.ts `QOD`). */
  qod: number;
  firstSeenAt: Date;
  lastSeenAt: Date;
}

/**
 * A web finding's location in one line, `POST https://h/login (parameter user)`, as the html,
 * txt and pdf reports show it; null for a network finding (host and port say it all).
 */
export function webLocation(f: Pick<ReportFinding, 'url' | 'method' | 'parameter'>): string | null {
  if (!f.url && !f.method && !f.parameter) return null;
  const request = [f.method, f.url].filter(Boolean).join(' ');
  if (!f.parameter) return request;
  return request ? `${request} (parameter ${f.parameter})` : `parameter ${f.parameter}`;
}

/** One open port or service the run saw on a host, for the hosts-and-services table. */
export interface ReportService {
  hostname: string;
  hostIp: string;
  port: number | null;
  protocol: string | null;
  service: string | null;
  /** Present findings on this host and port, and the worst threat among them. */
  findings: number;
  worstThreat: Threat | null;
}

/** A statement of the attack narrative, with the ids of the findings it rests on. */
export interface NarrativeClaim {
  text: string;
  /** Ids of present findings of this run; never empty. */
  findingIds: number[];
}

export interface Narrative {
  /** Which produced it: the configured LLM (with its model name) or the built-in deterministic writer. */
  producedBy: 'llm' | 'deterministic';
  model: string | null;
  /** When the LLM was configured but its answer was refused or failed, why (the deterministic one was used). */
  fallbackReason: string | null;
  /** One or two sentences for the executive summary. */
  summary: NarrativeClaim[];
  /** Exposed services an attacker reaches first. */
  entryPoints: NarrativeClaim[];
  /** Plausible chains: exposed service -> known weakness -> impact. */
  chains: NarrativeClaim[];
  /** Fixes in order of effect (the first removes the most risk). */
  fixes: NarrativeClaim[];
}

export interface ReportRecord {
  /** When the report was rendered. */
  generatedAt: Date;
  /** The public base URL of the service, for links. */
  baseUrl: string;
  scan: {
    uuid: string;
    name: string;
    type: string;
    /** The targets as given, normalised. */
    targets: string[];
    frequency: string;
    timeZone: string;
  };
  run: {
    index: number;
    trigger: RunTrigger;
    status: 'current' | 'completed';
    outcome: 'succeeded' | 'failed' | 'cancelled' | null;
    error: string | null;
    /** What the run could not check and why. */
    notes: string[];
    queuedAt: Date;
    startedAt: Date | null;
    completedAt: Date | null;
    engine: string | null;
    engineVersion: string | null;
    /** What the engine said of the run beyond name and version (`via daemon`, a template set). */
    engineDetail: string | null;
    hostsUp: number;
    hostsDown: number;
  };
  /** When the vulnerability database (NVD) was last synced; null when it never was. */
  vulnDbSyncedAt: Date | null;
  /**
   * The quality threshold the report applied: findings with a lower quality of detection are left
   * out of every count and list, and `hidden` says how many present findings that was. Every
   * format states both, so a reader knows to ask for them (`min_qod=0`).
   */
  quality: { minQod: number; hidden: number };
  /** Present findings by threat (those shown). */
  counts: Record<Threat, number>;
  /** Present findings in all. */
  total: number;
  /** This run's findings by lifecycle label (fixed ones are not present). */
  lifecycle: Record<Lifecycle, number>;
  /** Hosts and their services, by host then port. Bounded by the open ports of the run. */
  services: ReportService[];
  /** Present findings, most severe first (threat, CVSS desc, id). */
  findings(): AsyncIterable<ReportFinding>;
  /** Findings fixed since the previous run, most severe first. */
  fixed(): AsyncIterable<ReportFinding>;
  /** The attack narrative, when the scan asked for one and the account's plan allows it. */
  narrative: Narrative | null;
}
