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

export type ReportFormat = 'pdf' | 'csv' | 'html' | 'txt' | 'xml';
export const REPORT_FORMATS: readonly ReportFormat[] = ['pdf', 'csv', 'html', 'txt', 'xml'];

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

/** The formats a run's report can be downloaded in: every one once the run has completed. */
export function availableFormats(run: { status: 'current' | 'completed' }): ReportFormat[] {
  return run.status === 'completed' ? [...REPORT_FORMATS] : [];
}

export type Threat = ThreatLevel;
/** Most severe first: the order of every per-threat list in a report. */
export const THREAT_ORDER: readonly Threat[] = THREATS;

export type { Lifecycle };

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
  firstSeenAt: Date;
  lastSeenAt: Date;
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
    hostsUp: number;
    hostsDown: number;
  };
  /** When the vulnerability database (NVD) was last synced; null when it never was. */
  vulnDbSyncedAt: Date | null;
  /** Present findings by threat. */
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
