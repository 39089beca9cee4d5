/**
 * Maps one ZAP alert (an `alertitem` of the XML report, or an alert of the traditional JSON
 * report: the same fields) to findings, one per instance: the URL, method and parameter are the
 * finding's location, so one rule on two parameters is two findings. `riskcode` 0-3 is
 * Informational, Low, Medium, High. The rule id is the alert reference (`alertRef`, e.g. `10020-1`,
 * which tells apart the variants of one plugin), or the plugin id where the report predates it.
 * An alert whose confidence is 0 ("False Positive") is skipped and counted in a note.
 */
import { QOD, type Finding, type Threat } from '../engine.js';
import { finding, joinParagraphs, otherFields, cweOf, portOf, protocolOf } from './importer.js';

/** An alert as plain fields: XML children or JSON keys, instances as a list of field maps. */
export interface ZapAlertFields {
  fields: Map<string, string>;
  instances: Map<string, string>[];
}

/** The site an alert was reported under. */
export interface ZapSite {
  name: string;
  host: string;
  port: string;
  ssl: string;
}

const RISKS: Threat[] = ['Informational', 'Low', 'Medium', 'High'];
const USED_ALERT = new Set(['pluginid', 'alertRef', 'alert', 'name', 'riskcode', 'riskdesc', 'desc', 'solution', 'reference', 'cweid', 'instances', 'count', 'confidence', 'confidencedesc', 'uri', 'method', 'param', 'evidence', 'attack', 'otherinfo']);
const USED_INSTANCE = new Set(['uri', 'method', 'param', 'evidence', 'attack', 'otherinfo']);

/** ZAP reports write descriptions as HTML paragraphs (`<p>...</p>`); keep the text. */
export function zapText(value: string | undefined): string {
  return (value ?? '').replace(/<\/p>\s*<p>/g, '\n\n').replace(/<\/?p>/g, '').trim();
}

function hostOf(url: string, site: ZapSite): { hostname: string; port: number | null } {
  try {
    const u = new URL(url);
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : u.protocol === 'http:' ? 80 : null;
    return { hostname: u.hostname.replace(/^\[|\]$/g, ''), port };
  } catch {
    return { hostname: site.host, port: portOf(site.port) };
  }
}

/**
 * ZAP's confidence (0 False Positive, 1 Low, 2 Medium, 3 High, 4 User Confirmed) as a quality of
 * detection: Confirmed 95 (`QOD.confirmed`), High 80, Medium 70 (at the default threshold: ZAP's
 * usual confidence, shown unless a deployment raises it), Low 30 (hidden by default).
 */
export const ZAP_CONFIDENCE_QOD: Record<string, number> = { '1': 30, '2': 70, '3': 80, '4': QOD.confirmed };

/** Whether an alert is marked a false positive (confidence 0). */
export function isZapFalsePositive(alert: ZapAlertFields): boolean {
  return alert.fields.get('confidence')?.trim() === '0';
}

/** The findings of one alert. */
export function zapAlertFindings(alert: ZapAlertFields, site: ZapSite): Finding[] {
  const f = alert.fields;
  const risk = Number(f.get('riskcode'));
  const threat = RISKS[risk] ?? 'Informational';
  const ruleId = `zap:${f.get('alertRef')?.trim() || f.get('pluginid')?.trim() || 'unknown'}`;
  const other: [string, string][] = [];
  for (const [k, v] of f) if (!USED_ALERT.has(k)) other.push([k, v]);
  other.push(['confidence', f.get('confidencedesc') || f.get('confidence') || '']);
  if (!(risk in RISKS)) other.push(['riskcode', f.get('riskcode') ?? '']);
  const qod = ZAP_CONFIDENCE_QOD[f.get('confidence')?.trim() ?? ''];
  // Reports older than ZAP 2.9 have no instances: the location is on the alert itself.
  const instances = alert.instances.length > 0 ? alert.instances : [f];
  return instances.map((instance) => {
    const url = (instance.get('uri') ?? '').trim();
    const { hostname, port } = hostOf(url || site.name, site);
    const instanceOther: [string, string][] = [];
    for (const [k, v] of instance) if (!USED_INSTANCE.has(k)) instanceOther.push([k, v]);
    return finding({
      hostname,
      hostIp: hostname,
      port,
      protocol: port === null ? null : protocolOf('tcp'),
      service: url.startsWith('https:') ? 'https' : url.startsWith('http:') ? 'http' : null,
      url: url ? url.replace(/#.*$/, '') : null,
      method: (instance.get('method') ?? '').trim().toUpperCase() || null,
      parameter: (instance.get('param') ?? '').trim() || null,
      ruleId,
      name: (f.get('name') || f.get('alert') || ruleId).trim(),
      description: zapText(f.get('desc')),
      solution: zapText(f.get('solution')),
      threat,
      cwe: cweOf(f.get('cweid')),
      references: zapText(f.get('reference'))
        .split(/\s+/)
        .filter((r) => /^https?:\/\//i.test(r)),
      evidence: joinParagraphs(
        instance.get('evidence') && `Evidence: ${instance.get('evidence')}`,
        instance.get('attack') && `Attack: ${instance.get('attack')}`,
        zapText(instance.get('otherinfo') || f.get('otherinfo')),
        otherFields([...instanceOther, ...other]),
      ),
      ...(qod !== undefined ? { qod } : {}),
    });
  });
}
