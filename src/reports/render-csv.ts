/**
 * The CSV report: the rows of the vulnerability export (`exportRow`), one per finding of the
 * run — present ones in report order, then the ones fixed since the previous run (their
 * `lifecycle` is `fixed`). Same columns, RFC 4180 cells and formula neutralising as the export.
 */
import { Readable } from 'node:stream';
import { csvRow } from '../findings/csv.js';
import { EXPORT_COLUMNS, exportRow } from '../findings/vulnerabilities.service.js';
import type { ReportFinding, ReportRecord } from './report.js';

function row(record: ReportRecord, f: ReportFinding): string {
  return exportRow({
    id: f.id,
    name: f.name,
    threat: f.threat,
    cvss_base: f.cvssBase,
    cvss_vector: f.cvssVector,
    cve: f.cve,
    cwe: f.cwe,
    hostname: f.hostname,
    host_ip: f.hostIp,
    port: f.port,
    protocol: f.protocol,
    service: f.service,
    scan_name: record.scan.name,
    scan_uuid: record.scan.uuid,
    scan_type: record.scan.type,
    engine: f.engine,
    engines: f.engines,
    rule_id: f.ruleId,
    status: f.status,
    lifecycle: f.lifecycle,
    kev: f.kev,
    epss: f.epss,
    first_seen_at: f.firstSeenAt.toISOString(),
    last_seen_at: f.lastSeenAt.toISOString(),
    description: f.description,
    solution: f.solution,
    evidence: f.evidence,
    references: f.references,
  });
}

/** The run's findings as a CSV stream, read as the client consumes it. */
export function renderCsv(record: ReportRecord): Readable {
  async function* lines(): AsyncGenerator<string> {
    yield csvRow(EXPORT_COLUMNS);
    for await (const f of record.findings()) yield row(record, f);
    for await (const f of record.fixed()) yield row(record, f);
  }
  return Readable.from(lines(), { objectMode: false });
}
