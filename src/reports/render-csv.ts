/**
 * The CSV report: the rows of the vulnerability export (`exportRow`), one per finding of the
 * run — present ones in report order, then the ones fixed since the previous run (their
 * `lifecycle` is `fixed`). Same columns, RFC 4180 cells and formula neutralising as the export;
 * each column's value is the report finding's field of the same name (FINDING_FIELDS `key`), or
 * the scan's.
 */
import { Readable } from 'node:stream';
import { csvRow } from '../findings/csv.js';
import { FINDING_FIELDS, type FindingField } from '../findings/finding-fields.js';
import { EXPORT_COLUMNS, exportRow } from '../findings/vulnerabilities.service.js';
import type { ReportFinding, ReportRecord } from './report.js';

function row(record: ReportRecord, f: ReportFinding): string {
  const values = f as unknown as Record<string, unknown>;
  return exportRow((column) => {
    const field: FindingField = FINDING_FIELDS[column];
    if (field.scan) return record.scan[field.scan];
    return field.key ? values[field.key] : undefined;
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
