/**
 * The one definition of a finding as engines, importers and the agent produce it: its fields, the
 * enums they take, and the threat mapping from a CVSS score or a tool's own severity label.
 * Everything else (the store's rows, the API resource, CSV, reports, MCP, webhooks) derives from
 * here. Engines import it through `engines/engine.ts`.
 *
 * Glossary: the *location* of a finding is where the weakness is: host and address, port and
 * protocol, and for web findings the URL, HTTP method and parameter. The location is part of the
 * finding's identity: the same weakness at two locations is two findings.
 */

export const THREATS = ['Critical', 'High', 'Medium', 'Low', 'Informational'] as const;
export type Threat = (typeof THREATS)[number];

export const STATUSES = ['Unresolved', 'Accepted', 'False Positive'] as const;
export type FindingStatus = (typeof STATUSES)[number];

export const LIFECYCLES = ['new', 'still_open', 'fixed', 'regressed'] as const;
export type FindingLifecycle = (typeof LIFECYCLES)[number];

export const PROTOCOLS = ['tcp', 'udp'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/**
 * Quality of detection (QoD): how sure the scanner is that a finding is true, 0 to 100, on the
 * scale OpenVAS uses, so that imported OpenVAS results and our own compare. Three levels name what
 * Rampart's engine can know; importers keep a tool's own figure (or map its confidence word).
 */
export const QOD = {
  /** A test proved it: the service answered the weakness itself (a login without a password, a suite it accepted). */
  confirmed: 95,
  /** Inferred from the product's upstream version (a banner without a distribution's package revision). */
  version: 80,
  /** Inferred from a version that a distribution patches in place: the fix may have been backported. */
  packaged: 30,
} as const;

/** Reports and lists hide findings below this QoD unless asked otherwise (OpenVAS's default, 70). */
export const DEFAULT_MIN_QOD = 70;

/** A finding in the fields of the Vulnerability resource (DESIGN.md "Vulnerability"). */
export interface Finding {
  /** The name as the target was given (hostname or IP). */
  hostname: string;
  /** The address that was probed. */
  hostIp: string;
  port: number | null;
  protocol: Protocol | null;
  service: string | null;
  /** Web findings: the URL the weakness was proven at (without fragment). Null for network findings. */
  url?: string | null;
  /** Web findings: the HTTP method of the proving request (upper case). */
  method?: string | null;
  /** Web findings: the input (query, form, header or cookie name) the weakness is in. */
  parameter?: string | null;
  /** The check that found it: our check id, an NVT OID, a template id, a ZAP plugin id. */
  ruleId: string;
  name: string;
  description: string;
  solution: string;
  threat: Threat;
  cvssBase: number | null;
  cvssVector: string | null;
  cve: string[];
  cwe: string | null;
  evidence: string;
  references: string[];
  /** Quality of detection, 0-100 (`QOD`); absent means a test proved it (`QOD.confirmed`). */
  qod?: number;
  /** In the CISA KEV catalog (CVE findings). */
  kev?: boolean;
  /** FIRST EPSS score, 0-1 (CVE findings). */
  epss?: number | null;
}

/** Threat from a CVSS base score (DESIGN.md: 9.0 / 7.0 / 4.0 / 0.1). */
export function threatFromCvss(score: number | null): Threat {
  if (score === null || !Number.isFinite(score) || score < 0.1) return 'Informational';
  if (score >= 9) return 'Critical';
  if (score >= 7) return 'High';
  if (score >= 4) return 'Medium';
  return 'Low';
}

const SEVERITY_LABELS: Record<string, Threat> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  moderate: 'Medium',
  low: 'Low',
  info: 'Informational',
  informational: 'Informational',
  information: 'Informational',
  log: 'Informational',
  none: 'Informational',
  unknown: 'Informational',
};

/**
 * Threat from a tool's own severity word (nuclei `info`..`critical`, ZAP `Informational`..`High`,
 * OpenVAS `Log`..`Critical`), case-insensitive; undefined for a word no tool uses, so the caller
 * can fall back to a score or keep the word in evidence.
 */
export function threatFromSeverity(label: string | null | undefined): Threat | undefined {
  if (!label) return undefined;
  return SEVERITY_LABELS[label.trim().toLowerCase()];
}
