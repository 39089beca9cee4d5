/**
 * The alerts of a ZAP daemon as findings. `alert/view/alerts` answers one object per alert
 * instance with the API's field names (zaproxy `AlertAPI.alertToSet`: `risk` and `confidence` as
 * words, `description`, `url`, `other`, `pluginId`); the report importer's mapping
 * (importers/zap-alert.ts) reads the report's names (`riskcode`, `desc`, `uri`, `otherinfo`), so
 * each API alert is renamed into those fields and mapped by the same code: imported reports and
 * driven scans give the same findings. Each finding gets the request and response ZAP raised its
 * alert on (`core/view/message`), bounded per run.
 */
import type { EngineEvent, Finding } from '../engine.js';
import { EngineError } from '../engine.js';
import { joinParagraphs } from '../importers/importer.js';
import { isZapFalsePositive, zapAlertFindings, type ZapAlertFields } from '../importers/zap-alert.js';
import { ZapApiError, type ZapApi } from './zap-api.js';
import { scopePrefix } from './zap-scope.js';

/** Alerts read per page: ZAP's documented page (zap-api-docs "Getting the Results"). */
const DEFAULT_PAGE_SIZE = 5000;

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

/** A finding of an alert, and the id of the HTTP message ZAP raised it on ('' when none). */
export interface AlertFinding {
  finding: Finding;
  messageId: string;
  /** ZAP's evidence (the excerpt of the response is taken around it). */
  zapEvidence: string;
}

/**
 * Collects the findings of alert pages: one finding per rule, URL, method and parameter (ZAP may
 * raise one rule twice on one parameter, with two payloads), false positives left out and counted.
 */
export class AlertCollector {
  readonly #seen = new Set<string>();
  falsePositives = 0;
  /** Messages read for evidence so far (bounded per run). */
  messagesRead = 0;

  /** The new findings of one page of alerts. */
  add(alerts: unknown[]): AlertFinding[] {
    const out: AlertFinding[] = [];
    for (const alert of alerts) {
      if (!alert || typeof alert !== 'object') continue;
      const fields = alertFieldsOf(alert as Record<string, unknown>);
      if (isZapFalsePositive(fields)) {
        this.falsePositives++;
        continue;
      }
      const url = fields.instances[0]?.get('uri') ?? '';
      const messageId = text((alert as Record<string, unknown>).messageId);
      for (const finding of zapAlertFindings(fields, { name: url, host: '', port: '', ssl: '' })) {
        const key = JSON.stringify([finding.ruleId, finding.url, finding.method, finding.parameter]);
        if (this.#seen.has(key)) continue;
        this.#seen.add(key);
        out.push({ finding, messageId, zapEvidence: fields.instances[0]?.get('evidence') ?? '' });
      }
    }
    return out;
  }
}

/** Characters of a message body kept in the evidence (around ZAP's evidence when it is found there). */
const BODY_EXCERPT = 2000;

function excerpt(body: string, evidence: string): string {
  if (body.length <= BODY_EXCERPT) return body;
  const at = evidence ? body.indexOf(evidence) : -1;
  const start = at < 0 ? 0 : Math.max(0, at - BODY_EXCERPT / 2);
  return `${start > 0 ? '[...]' : ''}${body.slice(start, start + BODY_EXCERPT)}[...]`;
}

/**
 * The finding with the request and response ZAP raised it on (`core/view/message`'s `message`)
 * added to its evidence: the headers whole, each body cut to an excerpt around ZAP's evidence.
 * Secrets in them are masked when the finding is stored (src/shared/evidence.ts).
 */
export function withMessage(finding: Finding, message: Record<string, unknown>, zapEvidence: string): Finding {
  const request = `${text(message.requestHeader).trimEnd()}\n\n${excerpt(text(message.requestBody), '')}`.trimEnd();
  const response = `${text(message.responseHeader).trimEnd()}\n\n${excerpt(text(message.responseBody), zapEvidence)}`.trimEnd();
  return { ...finding, evidence: joinParagraphs(finding.evidence, `Request:\n${request}`, `Response:\n${response}`) };
}

/** Reads the alerts under the target's scope, page by page until an empty page. */
export async function* readAlerts(api: ZapApi, target: string, collector: AlertCollector, signal: AbortSignal, count = DEFAULT_PAGE_SIZE): AsyncGenerator<EngineEvent> {
  const baseurl = scopePrefix(target);
  for (let start = 0; ; start += count) {
    const page = (await api.call('alert/view/alerts', { baseurl, start, count }, signal)).alerts;
    if (!Array.isArray(page)) throw new EngineError('internal', `ZAP's alert/view/alerts answer has no "alerts" list.`);
    if (page.length === 0) return;
    for (const found of collector.add(page)) yield { type: 'finding', finding: await withRequest(api, found, collector, signal) };
  }
}

/** Messages read per run for the findings' evidence: past it, findings keep ZAP's evidence only. */
const MAX_MESSAGES = 500;

/** The finding with the request and response ZAP raised it on, when ZAP still has them. */
async function withRequest(api: ZapApi, found: AlertFinding, collector: AlertCollector, signal: AbortSignal): Promise<Finding> {
  if (!found.messageId || collector.messagesRead >= MAX_MESSAGES) return found.finding;
  collector.messagesRead++;
  try {
    const message = (await api.call('core/view/message', { id: found.messageId }, signal)).message;
    return message && typeof message === 'object' ? withMessage(found.finding, message as Record<string, unknown>, found.zapEvidence) : found.finding;
  } catch (error) {
    // A message ZAP no longer holds (does_not_exist) leaves ZAP's own evidence.
    if (error instanceof ZapApiError) return found.finding;
    throw error;
  }
}
