/**
 * ZAP reports: the XML report (`OWASPZAPReport`, including the "xml-plus" variant with requests
 * and responses) and the traditional JSON report (`@programName`, `site[].alerts[]`). The engine
 * version is the report's (`zap 2.16.1`).
 */
import type { EngineEvent } from '../engine.js';
import { child, childrenNamed, deepText, readXml, type XmlNode } from './safe-xml-reader.js';
import { readJson } from './json-reader.js';
import { invalidFile, readHeader, type ImportedResults, type ImportSource } from './importer.js';
import { isZapFalsePositive, zapAlertFindings, type ZapAlertFields, type ZapSite } from './zap-alert.js';

function fieldsOfXml(node: XmlNode): Map<string, string> {
  const fields = new Map<string, string>();
  for (const c of node.children) if (c.name !== 'instances') fields.set(c.name, deepText(c));
  return fields;
}

function siteOf(attrs: Record<string, string | undefined>): ZapSite {
  return { name: attrs.name ?? '', host: attrs.host ?? '', port: attrs.port ?? '', ssl: attrs.ssl ?? '' };
}

/** Findings of alerts, with one note for the false positives skipped. */
async function* alertEvents(alerts: AsyncIterable<{ alert: ZapAlertFields; site: ZapSite }>): AsyncGenerator<EngineEvent> {
  const hosts = new Set<string>();
  let falsePositives = 0;
  for await (const { alert, site } of alerts) {
    if (isZapFalsePositive(alert)) {
      falsePositives++;
      continue;
    }
    for (const f of zapAlertFindings(alert, site)) {
      if (!hosts.has(f.hostname)) {
        hosts.add(f.hostname);
        yield { type: 'host', hostname: f.hostname, address: f.hostIp, state: 'up' };
      }
      yield { type: 'finding', finding: f };
    }
  }
  if (falsePositives > 0) yield { type: 'log', level: 'info', message: `${falsePositives} alert${falsePositives === 1 ? '' : 's'} marked false positive (confidence 0) in the file ${falsePositives === 1 ? 'was' : 'were'} not imported.` };
}

/** Reads a ZAP XML report. */
export async function importZapXml(source: ImportSource): Promise<ImportedResults> {
  const items = readXml(source, (path) => path.length === 4 && path[3] === 'alertitem');
  const { pulled, rest } = await readHeader(items, (item) => item.kind === 'open');
  const root = pulled[0];
  if (!root || root.kind !== 'open' || root.node.name !== 'OWASPZAPReport') throw invalidFile('This is not a ZAP XML report (no <OWASPZAPReport> root element).');
  async function* alerts(): AsyncGenerator<{ alert: ZapAlertFields; site: ZapSite }> {
    let site = siteOf({});
    for await (const item of rest) {
      if (item.kind === 'open' && item.path.length === 2 && item.node.name === 'site') site = siteOf(item.node.attrs);
      if (item.kind !== 'record') continue;
      const instances = childrenNamed(child(item.node, 'instances'), 'instance').map(fieldsOfXml);
      yield { alert: { fields: fieldsOfXml(item.node), instances }, site };
    }
  }
  return { engine: { name: 'zap', version: root.node.attrs.version ?? 'unknown' }, events: alertEvents(alerts()) };
}

function fieldsOfJson(value: unknown): Map<string, string> {
  const fields = new Map<string, string>();
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) if (k !== 'instances') fields.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  return fields;
}

/** Reads a ZAP traditional JSON report. */
export async function importZapJson(source: ImportSource): Promise<ImportedResults> {
  const items = readJson(source, (path, kind) => kind === 'object' && path.length === 4 && path[0] === 'site' && path[2] === 'alerts');
  const { pulled, rest } = await readHeader(items, (item) => item.kind === 'record' || (item.kind === 'scalar' && item.path.length === 1 && item.path[0] === '@version'));
  const last = pulled[pulled.length - 1];
  const version = last?.kind === 'scalar' && last.path[0] === '@version' ? String(last.value) : 'unknown';
  async function* alerts(): AsyncGenerator<{ alert: ZapAlertFields; site: ZapSite }> {
    const sites = new Map<number, Record<string, string>>();
    for await (const item of rest) {
      if (item.kind === 'scalar' && item.path.length === 3 && item.path[0] === 'site' && typeof item.path[1] === 'number') {
        const attrs = sites.get(item.path[1]) ?? {};
        attrs[String(item.path[2]).replace(/^@/, '')] = String(item.value);
        sites.set(item.path[1], attrs);
      }
      if (item.kind !== 'record') continue;
      const site = siteOf(sites.get(item.path[1] as number) ?? {});
      const raw = item.value as { instances?: unknown };
      const instances = Array.isArray(raw.instances) ? raw.instances.map(fieldsOfJson) : [];
      yield { alert: { fields: fieldsOfJson(item.value), instances }, site };
    }
  }
  return { engine: { name: 'zap', version }, events: alertEvents(alerts()) };
}
