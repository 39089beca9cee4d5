/**
 * The finding fields a nuclei template's `info` gives, shared by the nuclei JSONL importer and the
 * built-in nuclei engine, so a template reports the same name, threat, CVE, CWE and CVSS whether
 * nuclei ran it and its output was uploaded or Rampart ran it.
 */
import type { Finding } from '../engine.js';
import { threatFromCvss, threatFromSeverity } from '../engine.js';
import { cweOf, joinParagraphs, otherFields } from './importer.js';

/** `info` of a template or of a result line, as plain values. */
export interface NucleiInfo {
  templateId: string;
  name: string;
  severity: string;
  description: string;
  remediation: string;
  references: string[];
  cveIds: string[];
  cweIds: string[];
  cvssScore: number | null;
  cvssMetrics: string;
}

/** The finding fields of a template's `info`, and what of it fits no field (for the evidence). */
export function findingFieldsOfNucleiInfo(info: NucleiInfo): {
  fields: Pick<Finding, 'name' | 'description' | 'solution' | 'threat' | 'cvssBase' | 'cvssVector' | 'cve' | 'cwe' | 'references'>;
  other: [string, string][];
} {
  const cwes = info.cweIds.map((c) => cweOf(c)).filter((c): c is string => c !== null);
  const badCwes = info.cweIds.filter((c) => cweOf(c) === null);
  const other: [string, string][] = [];
  if (cwes.length > 1) other.push(['cwe-ids', cwes.join(' ')]);
  if (badCwes.length > 0) other.push(['cwe-id (not a CWE)', badCwes.join(' ')]);
  return {
    fields: {
      name: info.name || info.templateId,
      description: info.description,
      solution: info.remediation,
      // An unknown severity word falls back to the score, and without one to Informational.
      threat: threatFromSeverity(info.severity) ?? threatFromCvss(info.cvssScore),
      cvssBase: info.cvssScore,
      cvssVector: info.cvssMetrics || null,
      cve: info.cveIds.map((c) => c.trim().toUpperCase()).filter(Boolean),
      cwe: cwes[0] ?? null,
      references: info.references,
    },
    other,
  };
}

/** The most of a request or response dump a finding's evidence keeps, in characters. */
export const NUCLEI_DUMP_MAX_CHARS = 4000;

/** The evidence of one nuclei result: where and by what it matched, what it extracted, the exchange. */
export function nucleiEvidence(result: {
  matchedAt: string;
  matcher?: string;
  extracted: string[];
  curl?: string;
  request?: string;
  response?: string;
  other?: Iterable<[string, string]>;
}): string {
  return joinParagraphs(
    `Matched at ${result.matchedAt}${result.matcher ? ` by matcher ${result.matcher}` : ''}.`,
    result.extracted.length > 0 && `Extracted: ${result.extracted.join(', ')}`,
    result.curl !== undefined && `curl: ${result.curl}`,
    result.request !== undefined && `Request:\n${result.request.slice(0, NUCLEI_DUMP_MAX_CHARS)}`,
    result.response !== undefined && `Response:\n${result.response.slice(0, NUCLEI_DUMP_MAX_CHARS)}`,
    result.other && otherFields(result.other),
  );
}
