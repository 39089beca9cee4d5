/**
 * The finding of one template match (execute/contract.ts TemplateMatch): the template's `info`
 * mapped as the nuclei importer maps it (importers/nuclei-info.ts), at the service it matched.
 *
 * - Rule id and QoD as every nuclei result gets them (importers/nuclei-info.ts `nucleiRuleId`,
 *   `nucleiQod`), so a template run here, by the nuclei binary or uploaded is one finding: the
 *   template id, with `:<matcher-name>` (or `:<extractor-name>`) when the match names one (a
 *   technology detector's `nginx`, `php` are distinct findings); QoD 80 when a matcher compares
 *   versions, else 95. No `method` (nuclei's results have none), so the web location is the same.
 */
import type { Finding } from '../engine.js';
import { findingFieldsOfNucleiInfo, nucleiEvidence, nucleiQod, nucleiRuleId } from '../importers/nuclei-info.js';
import type { ServiceTarget, TemplateMatch } from './execute/contract.js';
import type { Template } from './templates/template.types.js';

const qods = new WeakMap<Template, number>();

/** The QoD of the template's matches (`nucleiQod` of its matchers' DSL), computed once per template. */
function qodOf(t: Template): number {
  let known = qods.get(t);
  if (known === undefined) {
    known = nucleiQod([...t.http, ...t.tcp, ...t.ssl, ...t.dns].flatMap((block) => block.matchers.flatMap((m) => m.dsl)));
    qods.set(t, known);
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
    // nuclei's results name no method: none here either, or a web finding's identity would differ
    // from the imported one's (the request, method included, is in the evidence).
    method: null,
    parameter: null,
    ruleId: nucleiRuleId(template.id, label),
    ...fields,
    qod: qodOf(template),
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
