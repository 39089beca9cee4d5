/**
 * The finding fields a nuclei template's `info` gives, shared by the nuclei JSONL importer and the
 * built-in nuclei engine, so a template reports the same name, threat, CVE, CWE and CVSS whether
 * nuclei ran it and its output was uploaded or Rampart ran it.
 */
import { parse } from 'yaml';
import type { Finding } from '../engine.js';
import { QOD, threatFromCvss, threatFromSeverity } from '../engine.js';
import { cweOf, joinParagraphs, otherFields } from './importer.js';

/**
 * The rule id of a nuclei result, the same whichever ran the template (the built-in engine, the
 * nuclei binary, an uploaded file): `<template-id>`, with `:<matcher-name>`, or `:<extractor-name>`
 * when no matcher named the result, as nuclei writes one result per named matcher, else one per
 * named extractor. Unprefixed, as the importer always keyed them: stored fingerprints keep matching.
 */
export function nucleiRuleId(templateId: string, label: string | undefined): string {
  return label ? `${templateId}:${label}` : templateId;
}

const COMPARES_VERSIONS = /\bcompare_?versions\s*\(/i;

/**
 * The QoD of a nuclei result, one rule for every way a template ran: a match proves what the
 * service answered (`QOD.confirmed`), except when a matcher decides by comparing a version (a
 * `compare_versions` DSL matcher): that is the inference from a version Rampart's own CVE matching
 * reports at `QOD.version`. `matcherDsl` is every DSL expression of the template's matchers.
 */
export function nucleiQod(matcherDsl: Iterable<string>): number {
  for (const d of matcherDsl) if (COMPARES_VERSIONS.test(d)) return QOD.version;
  return QOD.confirmed;
}

const PROTOCOL_KEYS = ['http', 'requests', 'tcp', 'network', 'ssl', 'dns'];

/**
 * The DSL expressions of the matchers of a template's YAML source (a result's `template-encoded`,
 * base64): empty when there is none or it does not parse, so such a result counts as proved.
 */
export function matcherDslOfEncodedTemplate(encoded: string): string[] {
  if (!encoded) return [];
  let doc: unknown;
  try {
    doc = parse(Buffer.from(encoded, 'base64').toString('utf8'), { maxAliasCount: 100 });
  } catch {
    return [];
  }
  if (!doc || typeof doc !== 'object') return [];
  const out: string[] = [];
  for (const key of PROTOCOL_KEYS) {
    const blocks = (doc as Record<string, unknown>)[key];
    if (!Array.isArray(blocks)) continue;
    for (const block of blocks) {
      const matchers = block && typeof block === 'object' ? (block as Record<string, unknown>).matchers : undefined;
      if (!Array.isArray(matchers)) continue;
      for (const m of matchers) {
        const dsl = m && typeof m === 'object' ? (m as Record<string, unknown>).dsl : undefined;
        if (Array.isArray(dsl)) out.push(...dsl.filter((d): d is string => typeof d === 'string'));
      }
    }
  }
  return out;
}

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
