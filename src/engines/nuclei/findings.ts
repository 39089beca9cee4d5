/**
 * The finding of one template match (execute/contract.ts TemplateMatch): the template's `info`
 * mapped as the nuclei importer maps it (importers/nuclei-info.ts), at the service it matched.
 *
 * - Rule id `nuclei:<template-id>`, with `:<matcher-name>` (or `:<extractor-name>`) when the match
 *   names one, as nuclei's own output and the importer do: one template's named matchers (a
 *   technology detector's `nginx`, `php`) are distinct findings, not one overwritten by the next.
 * - QoD: a match proves what the service answered (`QOD.confirmed`), except a template whose
 *   matchers decide by comparing a version (`compare_versions`): that is the inference from a
 *   version that Rampart's own CVE matching reports at `QOD.version`.
 */
import { QOD, type Finding } from '../engine.js';
import { findingFieldsOfNucleiInfo, nucleiEvidence } from '../importers/nuclei-info.js';
import type { ServiceTarget, TemplateMatch } from './execute/contract.js';
import type { Template } from './templates/template.types.js';

/** The prefix of every rule id this engine reports. */
export const NUCLEI_RULE_PREFIX = 'nuclei:';

const versionOnly = new WeakMap<Template, boolean>();

/** Whether the template's verdict rests on comparing versions (a `compare_versions` DSL matcher). */
export function decidesByVersion(t: Template): boolean {
  let known = versionOnly.get(t);
  if (known === undefined) {
    known = [...t.http, ...t.tcp, ...t.ssl, ...t.dns].some((block) => block.matchers.some((m) => m.dsl.some((d) => /\bcompare_?versions\s*\(/i.test(d))));
    versionOnly.set(t, known);
  }
  return known;
}

/** The service's name as findings give it (`http`, `https`, or the protocol of the template). */
function serviceName(match: TemplateMatch, service: ServiceTarget): string {
  if (service.scheme) return service.scheme;
  if (match.protocol === 'ssl') return 'tls';
  return match.protocol === 'dns' ? 'dns' : service.tls ? 'tls' : 'tcp';
}

/** The finding of one match of `template` on `service`. */
export function findingOfMatch(template: Template, service: ServiceTarget, match: TemplateMatch): Finding {
  const { info } = template;
  const { fields, other } = findingFieldsOfNucleiInfo({
    templateId: template.id,
    name: info.name,
    severity: info.severity,
    description: info.description ?? '',
    remediation: info.remediation ?? '',
    references: info.reference,
    cveIds: info.classification.cveId,
    cweIds: info.classification.cweId,
    cvssScore: info.classification.cvssScore ?? null,
    cvssMetrics: info.classification.cvssMetrics ?? '',
  });
  const label = match.matcherName ?? match.extractorName;
  const payload = Object.entries(match.payload ?? {}).map(([k, v]): [string, string] => [`payload.${k}`, v]);
  return {
    hostname: service.host,
    hostIp: service.address,
    port: service.port,
    protocol: 'tcp',
    service: serviceName(match, service),
    url: match.protocol === 'http' ? match.matchedAt : null,
    method: match.protocol === 'http' ? (match.method ?? 'GET') : null,
    parameter: null,
    ruleId: `${NUCLEI_RULE_PREFIX}${template.id}${label ? `:${label}` : ''}`,
    ...fields,
    qod: decidesByVersion(template) ? QOD.version : QOD.confirmed,
    evidence: nucleiEvidence({
      matchedAt: match.matchedAt,
      ...(match.matcherName ? { matcher: match.matcherName } : {}),
      extracted: match.extracted,
      ...(match.request !== undefined ? { request: match.request } : {}),
      ...(match.response !== undefined ? { response: match.response } : {}),
      other: [['template', template.path], ['severity', info.severity], ...other, ...payload],
    }),
  };
}
