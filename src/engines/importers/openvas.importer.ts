/**
 * OpenVAS / Greenbone results: the GMP report XML (`get_reports` output, or the inner `<report>`
 * a web-UI export holds, of gvmd 9 to 24) and the CSV export. Only the direct
 * `report/results/result` elements are results: gvmd nests `<detection><result>` inside a result.
 * The engine version is the report's GMP version (`openvas`, `gmp 22.6`); CSV exports carry none.
 */
import type { EngineEvent } from '../engine.js';
import { childText, readXml } from './safe-xml-reader.js';
import { readHeader, invalidFile, type ImportedResults, type ImportSource } from './importer.js';
import { resultFinding } from './openvas-result.js';
import { csvRowFinding, OPENVAS_CSV_COLUMNS_REQUIRED } from './openvas-csv.js';
import { readCsv } from './csv-reader.js';

const isRecord = (path: readonly string[]): boolean => {
  const n = path.length;
  const name = path[n - 1];
  if (name === 'result') return path[n - 2] === 'results' && path[n - 3] === 'report';
  if (name === 'gmp' || name === 'host') return path[n - 2] === 'report' && n >= 3;
  return false;
};

/** A note for the run about skipped false positives. */
function falsePositiveNote(count: number): EngineEvent {
  return { type: 'log', level: 'info', message: `${count} result${count === 1 ? '' : 's'} marked false positive (severity -1) in the file ${count === 1 ? 'was' : 'were'} not imported.` };
}

/** Host events, once per address, from results and the report's host list. */
function hostTracker(): (hostname: string, address: string) => EngineEvent | null {
  const seen = new Set<string>();
  return (hostname, address) => {
    if (!address || seen.has(address)) return null;
    seen.add(address);
    return { type: 'host', hostname: hostname || address, address, state: 'up' };
  };
}

/** Reads a GMP report XML file. */
export async function importOpenvasXml(source: ImportSource): Promise<ImportedResults> {
  const items = readXml(source, isRecord);
  const { pulled, rest } = await readHeader(items, (item) => item.kind === 'record');
  const root = pulled[0];
  if (!root || root.kind !== 'open' || !['report', 'get_reports_response'].includes(root.node.name)) {
    throw invalidFile('This is not a Greenbone report (no <report> or <get_reports_response> root element).');
  }
  const first = pulled[pulled.length - 1];
  const version = first?.kind === 'record' && first.node.name === 'gmp' ? childText(first.node, 'version') : '';
  async function* events(): AsyncGenerator<EngineEvent> {
    const host = hostTracker();
    let falsePositives = 0;
    for await (const item of rest) {
      if (item.kind !== 'record') continue;
      if (item.node.name === 'host') {
        const ip = childText(item.node, 'ip');
        const nameDetail = item.node.children.find((d) => d.name === 'detail' && childText(d, 'name') === 'hostname');
        const event = host(childText(nameDetail, 'value') || ip, ip);
        if (event) yield event;
      } else if (item.node.name === 'result') {
        const f = resultFinding(item.node);
        if (!f) {
          falsePositives++;
          continue;
        }
        const event = host(f.hostname, f.hostIp);
        if (event) yield event;
        yield { type: 'finding', finding: f };
      }
    }
    if (falsePositives > 0) yield falsePositiveNote(falsePositives);
  }
  return { engine: { name: 'openvas', version: version ? `gmp ${version}` : 'gmp unknown' }, events: events() };
}

/** Reads a Greenbone CSV export. */
export async function importOpenvasCsv(source: ImportSource): Promise<ImportedResults> {
  const rows = readCsv(source)[Symbol.asyncIterator]();
  const header = await rows.next();
  const columns = header.done ? [] : header.value.map((c) => c.trim());
  const missing = OPENVAS_CSV_COLUMNS_REQUIRED.filter((c) => !columns.includes(c));
  if (missing.length > 0) throw invalidFile(`This is not a Greenbone CSV export: the header lacks ${missing.join(', ')}.`);
  async function* events(): AsyncGenerator<EngineEvent> {
    const host = hostTracker();
    let line = 1;
    for (;;) {
      const next = await rows.next();
      if (next.done) return;
      line++;
      const f = csvRowFinding(columns, next.value, line);
      const event = host(f.hostname, f.hostIp);
      if (event) yield event;
      yield { type: 'finding', finding: f };
    }
  }
  return { engine: { name: 'openvas', version: 'csv export' }, events: events() };
}
