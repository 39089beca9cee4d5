/**
 * Maps one row of the Greenbone CSV export to a finding. Like the XML, the threat band comes from
 * the score (the `CVSS` column), not the `Severity` word; columns the mapping does not use are
 * kept in the evidence's "other fields" block.
 */
import type { Finding } from '../engine.js';
import { threatFromCvss } from '../engine.js';
import { qodOf } from './openvas-result.js';
import { cveIdsIn, finding, invalidFile, joinParagraphs, numberOf, otherFields, portOf, protocolOf } from './importer.js';

/** Columns every Greenbone CSV export has (gvmd 9 to 24). */
export const OPENVAS_CSV_COLUMNS_REQUIRED = ['IP', 'Port', 'Port Protocol', 'CVSS', 'Severity', 'NVT Name', 'NVT OID'];

const USED = new Set(['IP', 'Hostname', 'Port', 'Port Protocol', 'CVSS', 'NVT Name', 'Summary', 'Specific Result', 'NVT OID', 'CVEs', 'Impact', 'Solution', 'Affected Software/OS', 'Vulnerability Insight', 'Vulnerability Detection Method', 'Other References', 'Task ID', 'Task Name', 'Timestamp', 'Result ID']);

/** The finding of one CSV row (`line` for error messages). */
export function csvRowFinding(columns: string[], row: string[], line: number): Finding {
  if (row.length !== columns.length) throw invalidFile(`The CSV row ending on line ${line} has ${row.length} fields where the header has ${columns.length}.`);
  const get = (name: string): string => (row[columns.indexOf(name)] ?? '').trim();
  const score = numberOf(get('CVSS'));
  const port = portOf(get('Port'));
  const other: [string, string][] = [];
  for (const [i, name] of columns.entries()) if (!USED.has(name)) other.push([name, row[i] ?? '']);
  return finding({
    hostname: get('Hostname') || get('IP'),
    hostIp: get('IP'),
    port,
    protocol: port === null ? null : protocolOf(get('Port Protocol')),
    ruleId: get('NVT OID') || get('NVT Name'),
    name: get('NVT Name'),
    description: joinParagraphs(get('Summary'), get('Vulnerability Insight') && `Insight: ${get('Vulnerability Insight')}`, get('Impact') && `Impact: ${get('Impact')}`, get('Affected Software/OS') && `Affected: ${get('Affected Software/OS')}`),
    solution: get('Solution'),
    threat: threatFromCvss(score !== null && score > 0 ? score : null),
    cvssBase: score !== null && score > 0 ? score : null,
    cve: cveIdsIn(get('CVEs')),
    references: get('Other References').split(/[\s,]+/).filter((r) => /^https?:\/\//i.test(r)),
    evidence: joinParagraphs(get('Specific Result'), get('Vulnerability Detection Method') && `Detection: ${get('Vulnerability Detection Method')}`, otherFields(other)),
    // Greenbone's CSV export has a QoD column (percent) since gvmd 8.
    ...qodOf(get('QoD').replace(/%$/, '')),
  });
}
