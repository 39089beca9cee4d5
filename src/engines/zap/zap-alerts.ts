/**
 * The alerts of a ZAP daemon as findings. `alert/view/alerts` answers one object per alert
 * instance with the API's field names (zaproxy `AlertAPI.alertToSet`: `risk` and `confidence` as
 * words, `description`, `url`, `other`, `pluginId`); the report importer's mapping
 * (importers/zap-alert.ts) reads the report's names (`riskcode`, `desc`, `uri`, `otherinfo`), so
 * each API alert is renamed into those fields and mapped by the same code: imported reports and
 * driven scans give the same findings.
 */
import type { Finding } from '../engine.js';
import { isZapFalsePositive, zapAlertFindings, type ZapAlertFields } from '../importers/zap-alert.js';

const RISK_CODES: Record<string, string> = { Informational: '0', Low: '1', Medium: '2', High: '3' };
const CONFIDENCE_CODES: Record<string, string> = { 'False Positive': '0', Low: '1', Medium: '2', High: '3', Confirmed: '4' };

/** API field -> report field, for the fields of the alert itself. */
const ALERT_FIELDS: Array<[string, string]> = [
  ['pluginId', 'pluginid'],
  ['alertRef', 'alertRef'],
  ['name', 'name'],
  ['alert', 'alert'],
  ['description', 'desc'],
  ['solution', 'solution'],
  ['reference', 'reference'],
  ['cweid', 'cweid'],
  ['wascid', 'wascid'],
  ['inputVector', 'inputVector'],
];
/** API field -> report field, for where the alert was raised. */
const INSTANCE_FIELDS: Array<[string, string]> = [
  ['url', 'uri'],
  ['method', 'method'],
  ['param', 'param'],
  ['evidence', 'evidence'],
  ['attack', 'attack'],
  ['other', 'otherinfo'],
];

function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/** One API alert in the report importer's shape. */
export function alertFieldsOf(alert: Record<string, unknown>): ZapAlertFields {
  const fields = new Map<string, string>();
  for (const [from, to] of ALERT_FIELDS) if (text(alert[from])) fields.set(to, text(alert[from]));
  const risk = text(alert.risk);
  fields.set('riskcode', RISK_CODES[risk] ?? risk);
  const confidence = text(alert.confidence);
  fields.set('confidence', CONFIDENCE_CODES[confidence] ?? confidence);
  fields.set('confidencedesc', confidence);
  const instance = new Map<string, string>();
  for (const [from, to] of INSTANCE_FIELDS) if (text(alert[from])) instance.set(to, text(alert[from]));
  return { fields, instances: [instance] };
}

/**
 * Collects the findings of alert pages: one finding per rule, URL, method and parameter (ZAP may
 * raise one rule twice on one parameter, with two payloads), false positives left out and counted.
 */
export class AlertCollector {
  readonly #seen = new Set<string>();
  falsePositives = 0;

  /** The new findings of one page of alerts. */
  add(alerts: unknown[]): Finding[] {
    const out: Finding[] = [];
    for (const alert of alerts) {
      if (!alert || typeof alert !== 'object') continue;
      const fields = alertFieldsOf(alert as Record<string, unknown>);
      if (isZapFalsePositive(fields)) {
        this.falsePositives++;
        continue;
      }
      const url = fields.instances[0]?.get('uri') ?? '';
      for (const finding of zapAlertFindings(fields, { name: url, host: '', port: '', ssl: '' })) {
        const key = JSON.stringify([finding.ruleId, finding.url, finding.method, finding.parameter]);
        if (this.#seen.has(key)) continue;
        this.#seen.add(key);
        out.push(finding);
      }
    }
    return out;
  }
}
