/**
 * Maps one Greenbone result (GMP report XML) to a finding. The threat band comes from the
 * result's `<severity>` score, not its `<threat>` word: gvmd 24.2 added "Critical" (>= 9.0), so
 * older reports call a 9.8 "High"; the score reads the same in every generation. Severity 0 is
 * Log (Informational); -1 marks a false positive (the importer skips it and says so in a note);
 * the other sentinels (-3 error, -98/-99 undefined) are kept as Informational with the score in
 * the evidence.
 */
import type { Finding } from '../engine.js';
import { threatFromCvss } from '../engine.js';
import { child, childrenNamed, childText, deepText, type XmlNode } from './safe-xml-reader.js';
import { finding, joinParagraphs, numberOf, otherFields, portOf, protocolOf } from './importer.js';

/** The gvmd severity of a false positive. */
export const FALSE_POSITIVE_SEVERITY = -1;

/** Result children the mapping reads, or that are bookkeeping of the report (owner, times). */
const USED_RESULT_FIELDS = new Set(['name', 'owner', 'modification_time', 'creation_time', 'comment', 'host', 'port', 'nvt', 'severity', 'threat', 'description', 'notes', 'overrides', 'detection', 'qod']);
const USED_NVT_FIELDS = new Set(['type', 'name', 'cvss_base', 'severities', 'tags', 'solution', 'refs']);
const USED_TAGS = new Set(['summary', 'insight', 'impact', 'affected', 'vuldetect', 'solution', 'cvss_base_vector']);

/** `k=v|k=v` pairs of an NVT's tags (values may span lines). */
export function parseTags(tags: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of tags.split('|')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}

/** "42/tcp" -> 42, tcp; "general/tcp" -> no port and no protocol (a host-wide result). */
export function parseGmpPort(value: string): Pick<Finding, 'port' | 'protocol'> {
  const [portPart, protoPart] = value.trim().split('/');
  const port = portOf(portPart);
  return port === null ? { port: null, protocol: null } : { port, protocol: protocolOf(protoPart) };
}

/** The severity score of a result (its direct `<severity>` child), or null when absent. */
export function resultSeverity(result: XmlNode): number | null {
  return numberOf(childText(result, 'severity'));
}

/** The finding of one result, or null for a false positive. */
export function resultFinding(result: XmlNode): Finding | null {
  const severity = resultSeverity(result);
  if (severity === FALSE_POSITIVE_SEVERITY) return null;
  const nvt = child(result, 'nvt');
  const host = child(result, 'host');
  const hostIp = (host?.text ?? '').trim();
  const hostname = childText(host, 'hostname') || hostIp;
  const tags = parseTags(childText(nvt, 'tags'));
  const score = severity !== null && severity > 0 ? severity : null;
  const cvssNode = childrenNamed(child(nvt, 'severities'), 'severity')[0];
  const vector = childText(cvssNode, 'value') || tags.get('cvss_base_vector') || null;
  const refs = childrenNamed(child(nvt, 'refs'), 'ref');
  const cve = refs.filter((r) => r.attrs.type?.toLowerCase() === 'cve').map((r) => (r.attrs.id ?? '').toUpperCase()).filter(Boolean);
  const urls = refs.filter((r) => r.attrs.type?.toLowerCase() === 'url').map((r) => r.attrs.id ?? '').filter(Boolean);
  const otherRefs = refs.filter((r) => !['cve', 'url'].includes(r.attrs.type?.toLowerCase() ?? '')).map((r) => `${r.attrs.type}:${r.attrs.id}`);
  const qod = child(result, 'qod');
  const other: [string, string][] = [];
  other.push(['threat', childText(result, 'threat')]);
  if (severity !== null && severity < 0) other.push(['severity', String(severity)]);
  if (qod) other.push(['qod', `${childText(qod, 'value')} ${childText(qod, 'type')}`]);
  if (otherRefs.length > 0) other.push(['refs', otherRefs.join(' ')]);
  for (const c of result.children) if (!USED_RESULT_FIELDS.has(c.name)) other.push([c.name, deepText(c)]);
  for (const c of nvt?.children ?? []) if (!USED_NVT_FIELDS.has(c.name)) other.push([`nvt.${c.name}`, c.children.length > 0 ? flatten(c) : c.text]);
  const solutionType = child(nvt, 'solution')?.attrs.type;
  if (solutionType) other.push(['solution_type', solutionType]);
  for (const [k, v] of tags) if (!USED_TAGS.has(k) && !(k === 'solution_type' && solutionType)) other.push([`tag.${k}`, v]);
  const detection = child(result, 'detection');
  if (detection) other.push(['detection', flatten(detection)]);
  return finding({
    hostname,
    hostIp,
    ...parseGmpPort(childText(result, 'port')),
    ruleId: nvt?.attrs.oid ?? childText(result, 'name'),
    name: childText(nvt, 'name') || childText(result, 'name'),
    description: joinParagraphs(tags.get('summary'), tags.get('insight') && `Insight: ${tags.get('insight')}`, tags.get('impact') && `Impact: ${tags.get('impact')}`, tags.get('affected') && `Affected: ${tags.get('affected')}`),
    solution: childText(nvt, 'solution') || tags.get('solution') || '',
    threat: threatFromCvss(score),
    cvssBase: score ?? (numberOf(childText(nvt, 'cvss_base')) || null),
    cvssVector: vector,
    cve,
    references: urls,
    evidence: joinParagraphs(childText(result, 'description'), tags.get('vuldetect') && `Detection: ${tags.get('vuldetect')}`, otherFields(other)),
    ...qodOf(childText(qod, 'value')),
  });
}

/** OpenVAS's own quality of detection (0-100) as the finding's, when the result has one. */
export function qodOf(value: string | null | undefined): { qod?: number } {
  const n = numberOf(value);
  return n !== null && Number.isInteger(n) && n >= 0 && n <= 100 ? { qod: n } : {};
}

/** An element's descendants as compact `path=text` pairs (for the "other fields" block). */
function flatten(node: XmlNode, prefix = ''): string {
  const parts: string[] = [];
  const walk = (n: XmlNode, p: string): void => {
    const attrs = Object.entries(n.attrs).map(([k, v]) => `${k}=${v}`).join(',');
    const name = p ? `${p}.${n.name}` : n.name;
    if (n.text.trim() || attrs) parts.push(`${name}${attrs ? `[${attrs}]` : ''}${n.text.trim() ? ` ${n.text.trim()}` : ''}`);
    for (const c of n.children) walk(c, name);
  };
  for (const c of node.children) walk(c, prefix);
  return parts.join('; ');
}
