/**
 * nuclei results: JSON Lines (`-jsonl`) and JSON arrays (`-je`), of current and older releases
 * (`template-id`/`matched-at` and the older `templateID`/`matched`/`matcher_name`). One finding
 * per result; rule id and QoD as the built-in engine gives them (nuclei-info.ts `nucleiRuleId`,
 * `nucleiQod`: the QoD from the template in `template-encoded` when the result carries it). nuclei writes no version into its output, so the engine is named `nuclei` with the
 * version `unknown`.
 */
import type { EngineEvent, Finding } from '../engine.js';
import { readJson } from './json-reader.js';
import { findingFieldsOfNucleiInfo, matcherDslOfEncodedTemplate, nucleiEvidence, nucleiQod, nucleiRuleId } from './nuclei-info.js';
import { finding, invalidFile, numberOf, portOf, protocolOf, type ImportedResults, type ImportSource } from './importer.js';

type Obj = Record<string, unknown>;

const USED = new Set(['template-id', 'templateID', 'template', 'template-path', 'template-url', 'template-encoded', 'info', 'matcher-name', 'matcher_name', 'matched-at', 'matched', 'host', 'ip', 'port', 'url', 'extracted-results', 'extracted_results', 'type', 'timestamp', 'matcher-status', 'path', 'scheme', 'request', 'response', 'curl-command']);
const USED_INFO = new Set(['name', 'severity', 'description', 'reference', 'remediation', 'classification']);

const str = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(str) : typeof v === 'string' ? v.split(/\n|,(?=\s*https?:)/).map((s) => s.replace(/^\s*-\s*/, '').trim()) : []).filter(Boolean);

function locationOf(r: Obj): Pick<Finding, 'hostname' | 'hostIp' | 'port' | 'protocol' | 'url' | 'service'> {
  const matched = str(r['matched-at'] ?? r.matched);
  const hostField = str(r.host);
  let hostname = '';
  let port: number | null = portOf(str(r.port));
  let url: string | null = null;
  for (const candidate of [matched, str(r.url), hostField]) {
    if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(candidate)) continue;
    try {
      const u = new URL(candidate);
      hostname ||= u.hostname.replace(/^\[|\]$/g, '');
      port ??= u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : u.protocol === 'http:' ? 80 : null;
      if (!url && /^https?:/i.test(candidate) && candidate === matched) url = candidate.replace(/#.*$/, '');
      break;
    } catch {
      continue;
    }
  }
  if (!hostname) {
    // Network templates report `host:port`.
    const m = /^\[?([^\]\s]+?)\]?(?::(\d+))?$/.exec(matched || hostField);
    hostname = m?.[1] ?? (hostField || 'unknown');
    port ??= portOf(m?.[2]);
  }
  const ip = str(r.ip);
  const type = str(r.type);
  return { hostname, hostIp: ip || hostname, port, protocol: port === null ? null : protocolOf(type === 'udp' ? 'udp' : 'tcp'), url, service: type === 'http' ? (url?.startsWith('https') ? 'https' : 'http') : null };
}

/** The finding of one nuclei result object. */
export function nucleiFinding(r: Obj): Finding {
  const info = (r.info && typeof r.info === 'object' ? r.info : {}) as Obj;
  const cls = (info.classification && typeof info.classification === 'object' ? info.classification : {}) as Obj;
  const templateId = str(r['template-id'] ?? r.templateID) || 'unknown-template';
  const matcher = str(r['matcher-name'] ?? r.matcher_name);
  const extractor = str(r['extractor-name'] ?? r.extractor_name);
  const { fields, other: classified } = findingFieldsOfNucleiInfo({
    templateId,
    name: str(info.name),
    severity: str(info.severity),
    description: str(info.description),
    remediation: str(info.remediation),
    references: list(info.reference),
    cveIds: list(cls['cve-id']),
    cweIds: list(cls['cwe-id']),
    cvssScore: numberOf(str(cls['cvss-score'])),
    cvssMetrics: str(cls['cvss-metrics']),
  });
  const extracted = list(r['extracted-results'] ?? r.extracted_results);
  const other: [string, string][] = [];
  for (const [k, v] of Object.entries(r)) if (!USED.has(k)) other.push([k, str(v)]);
  for (const [k, v] of Object.entries(info)) if (!USED_INFO.has(k)) other.push([`info.${k}`, str(v)]);
  for (const [k, v] of Object.entries(cls)) if (!['cve-id', 'cwe-id', 'cvss-score', 'cvss-metrics'].includes(k)) other.push([`classification.${k}`, str(v)]);
  other.push(...classified);
  for (const k of ['type', 'template-path', 'template-url', 'timestamp']) if (r[k] !== undefined) other.push([k, str(r[k])]);
  return finding({
    ...locationOf(r),
    ruleId: nucleiRuleId(templateId, matcher || extractor),
    ...fields,
    qod: nucleiQod(matcherDslOfEncodedTemplate(str(r['template-encoded']))),
    evidence: nucleiEvidence({
      matchedAt: str(r['matched-at'] ?? r.matched) || str(r.host),
      matcher,
      extracted,
      ...(r['curl-command'] !== undefined ? { curl: str(r['curl-command']) } : {}),
      ...(r.request !== undefined ? { request: str(r.request) } : {}),
      ...(r.response !== undefined ? { response: str(r.response) } : {}),
      other,
    }),
  });
}

/** Reads nuclei JSON Lines or a JSON array of results. */
export async function importNuclei(source: ImportSource): Promise<ImportedResults> {
  const items = readJson(source, (path, kind) => kind === 'object' && (path.length === 0 || (path.length === 1 && typeof path[0] === 'number')));
  async function* events(): AsyncGenerator<EngineEvent> {
    const hosts = new Set<string>();
    let n = 0;
    for await (const item of items) {
      if (item.kind !== 'record') {
        if (item.path.length === 0 || (item.path.length === 1 && typeof item.path[0] === 'number')) throw invalidFile('A nuclei result is not a JSON object.');
        continue;
      }
      n++;
      const r = item.value as Obj;
      if (!r['template-id'] && !r.templateID) throw invalidFile(`nuclei result ${n} has no template-id.`);
      const f = nucleiFinding(r);
      if (!hosts.has(f.hostname)) {
        hosts.add(f.hostname);
        yield { type: 'host', hostname: f.hostname, address: f.hostIp, state: 'up' };
      }
      yield { type: 'finding', finding: f };
    }
  }
  return { engine: { name: 'nuclei', version: 'unknown' }, events: events() };
}
