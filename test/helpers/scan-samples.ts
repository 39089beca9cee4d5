/**
 * The third-party scan output samples (../shared/third_party/scan-samples, see its SOURCE.md) and
 * the figures each should import to. Every figure was counted from the file itself, independently
 * of the importers, with Python's xml.etree / csv / json modules:
 * - nmap: hosts = `<host>` elements; up = those with `<status state="up">`; findings = ports of up
 *   hosts with `<state state="open">` plus vulners `table/table` entries whose `type` elem is `cve`.
 * - OpenVAS XML: findings = `report/results/result` (the direct children only); threats = the band
 *   of each result's own `<severity>` score (>= 9 Critical, >= 7 High, >= 4 Medium, >= 0.1 Low).
 * - OpenVAS CSV: findings = data rows (csv.DictReader); threats = the band of the `CVSS` column.
 * - ZAP XML: findings = `site/alerts/alertitem/instances/instance`; threats = the alert's
 *   `riskcode` (0 Informational .. 3 High) counted per instance.
 * - nuclei: findings = JSON Lines records or array elements; threats = `info.severity`.
 * - hosts: nmap `<host>` elements; OpenVAS distinct result addresses; ZAP distinct host names of the
 *   instance URLs (urllib.parse); nuclei distinct host names of `host` / `matched-at`.
 * `unique` is the number of distinct identities (host, port, protocol, first CVE or rule id, and
 * for web findings url, method, parameter) the store keeps; see test/results-upload.test.ts.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { SHARED_DIR } from './shared.js';

/** Where the samples are. */
export const SAMPLES_DIR = path.join(SHARED_DIR, 'third_party', 'scan-samples');

/** Why tests that need the samples skip, or false when they are present. */
export const SAMPLES_SKIP: string | false = existsSync(SAMPLES_DIR) ? false : `scan samples absent (${SAMPLES_DIR}); set RAMPART_SHARED_DIR`;

/** What one sample file holds. */
export interface SampleFigures {
  file: string;
  engine: string;
  hosts: number;
  findings: number;
  threats: Partial<Record<'Critical' | 'High' | 'Medium' | 'Low' | 'Informational', number>>;
  /** One rule id the file must yield. */
  ruleId?: string;
}

/** Every sample file (empty ones too) and its figures. */
export const SAMPLES: SampleFigures[] = [
  { file: 'nmap/issue12411.xml', engine: 'nmap 7.95', hosts: 2, findings: 4, threats: { Informational: 4 }, ruleId: 'nmap:open-port' },
  { file: 'nmap/issue4406.xml', engine: 'nmap 7.91', hosts: 1, findings: 25 + 8, threats: { Informational: 25, Medium: 7, Low: 1 }, ruleId: 'nmap:vulners' },
  { file: 'nmap/nmap_0port.xml', engine: 'nmap 6.40', hosts: 1, findings: 0, threats: {} },
  { file: 'nmap/nmap_1port.xml', engine: 'nmap 6.40', hosts: 1, findings: 1, threats: { Informational: 1 } },
  { file: 'nmap/nmap_multiple_port.xml', engine: 'nmap 7.12', hosts: 1, findings: 13, threats: { Informational: 13 } },
  // Two vulners CVEs at CVSS 5.0 (Medium) on one open port.
  { file: 'nmap/nmap_script_vulners.xml', engine: 'nmap 7.60', hosts: 1, findings: 3, threats: { Informational: 1, Medium: 2 }, ruleId: 'nmap:vulners' },
  { file: 'openvas/many_vuln.xml', engine: 'openvas gmp 9.0', hosts: 1, findings: 44, threats: { Critical: 8, High: 11, Medium: 25 }, ruleId: '1.3.6.1.4.1.25623.1.0.100111' },
  { file: 'openvas/no_vuln.xml', engine: 'openvas gmp 9.0', hosts: 0, findings: 0, threats: {} },
  // gvmd 9 says <threat>High</threat> for severity 10.0: the band comes from the score.
  { file: 'openvas/one_vuln.xml', engine: 'openvas gmp 9.0', hosts: 1, findings: 1, threats: { Critical: 1 }, ruleId: '1.3.6.1.4.1.25623.1.0.832260' },
  { file: 'openvas/report_detail_v2.xml', engine: 'openvas gmp 22.6', hosts: 1, findings: 1, threats: { Critical: 1 }, ruleId: '1.3.6.1.4.1.25623.1.0.836484' },
  { file: 'openvas/many_vuln.csv', engine: 'openvas csv export', hosts: 1, findings: 4, threats: { Low: 1, Medium: 2, Critical: 1 }, ruleId: '1.3.6.1.4.1.25623.1.0.80091' },
  { file: 'openvas/no_vuln.csv', engine: 'openvas csv export', hosts: 0, findings: 0, threats: {} },
  { file: 'openvas/one_vuln.csv', engine: 'openvas csv export', hosts: 1, findings: 1, threats: { Medium: 1 }, ruleId: '1.3.6.1.4.1.25623.1.0.105611' },
  { file: 'openvas/report_combine_v2.csv', engine: 'openvas csv export', hosts: 1, findings: 2, threats: { Low: 2 } },
  { file: 'openvas/report_detail_v2.csv', engine: 'openvas csv export', hosts: 1, findings: 1, threats: { Critical: 1 }, ruleId: '1.3.6.1.4.1.25623.1.0.836484' },
  { file: 'openvas/report_using_CVE.csv', engine: 'openvas csv export', hosts: 1, findings: 43, threats: { High: 13, Critical: 8, Medium: 22 } },
  // 12 Log rows (CVSS 0.0) are Informational.
  { file: 'openvas/report_using_openVAS.csv', engine: 'openvas csv export', hosts: 1, findings: 13, threats: { Low: 1, Informational: 12 } },
  { file: 'zap/0_zap_sample.xml', engine: 'zap 2.9.0', hosts: 1, findings: 12, threats: { Low: 11, Medium: 1 }, ruleId: 'zap:10011' },
  { file: 'zap/0_zap_sample_without_zap3.xml', engine: 'zap 2.9.0', hosts: 1, findings: 11, threats: { Low: 11 } },
  { file: 'zap/1_zap_sample_0_and_new_absent.xml', engine: 'zap 2.9.0', hosts: 1, findings: 12, threats: { Low: 11, Medium: 1 } },
  { file: 'zap/2_zap_sample_0_and_new_endpoint.xml', engine: 'zap 2.9.0', hosts: 2, findings: 13, threats: { Low: 12, Medium: 1 } },
  { file: 'zap/3_zap_sampl_0_and_different_severities.xml', engine: 'zap 2.9.0', hosts: 1, findings: 12, threats: { Low: 3, Medium: 9 } },
  { file: 'zap/5_zap_sample_one.xml', engine: 'zap 2.9.0', hosts: 1, findings: 6, threats: { Low: 6 } },
  { file: 'zap/dvwa_baseline_dojo.xml', engine: 'zap D-2021-03-29', hosts: 1, findings: 124, threats: { Medium: 35, Informational: 42, Low: 47 } },
  { file: 'zap/dvwa_baseline_dojo_fabricated_internal_duplicates.xml', engine: 'zap D-2021-03-29', hosts: 1, findings: 123, threats: { Medium: 44, Informational: 38, Low: 41 } },
  { file: 'zap/dvwa_baseline_dojo_fabricated_internal_duplicates_subset.xml', engine: 'zap D-2021-03-29', hosts: 1, findings: 75, threats: { Medium: 44, Informational: 20, Low: 11 } },
  { file: 'zap/dvwa_baseline_dojo_subset.xml', engine: 'zap D-2021-03-29', hosts: 1, findings: 97, threats: { Medium: 33, Informational: 38, Low: 26 } },
  { file: 'zap/empty_2.9.0.xml', engine: 'zap 2.9.0', hosts: 0, findings: 0, threats: {} },
  { file: 'zap/juicy2.xml', engine: 'zap 2.10.0', hosts: 1, findings: 86, threats: { Low: 40, Medium: 22, Informational: 24 } },
  { file: 'zap/some_2.9.0.xml', engine: 'zap 2.9.0', hosts: 1, findings: 17, threats: { Low: 12, Medium: 1, Informational: 4 } },
  { file: 'zap/zap-results-first-scan.xml', engine: 'zap 2.10.0', hosts: 1, findings: 130, threats: { Informational: 47, Low: 48, Medium: 30, High: 5 } },
  { file: 'zap/zap-results-second-scan.xml', engine: 'zap 2.10.0', hosts: 1, findings: 126, threats: { Low: 52, Informational: 44, High: 5, Medium: 25 } },
  { file: 'zap/zap-xml-plus-format.xml', engine: 'zap 2.11.1', hosts: 1, findings: 1, threats: { Medium: 1 }, ruleId: 'zap:90028' },
  { file: 'zap/zap_2.16.1_with_req_resp.xml', engine: 'zap 2.16.1', hosts: 1, findings: 13, threats: { Informational: 13 } },
  { file: 'nuclei/empty.jsonl', engine: 'nuclei unknown', hosts: 0, findings: 0, threats: {} },
  { file: 'nuclei/no_findings.json', engine: 'nuclei unknown', hosts: 0, findings: 0, threats: {} },
  { file: 'nuclei/invalid_cwe.json', engine: 'nuclei unknown', hosts: 1, findings: 1, threats: { Informational: 1 } },
  { file: 'nuclei/issue_14071.json', engine: 'nuclei unknown', hosts: 2, findings: 27, threats: { Critical: 1, Low: 1, Informational: 23, Medium: 2 } },
  { file: 'nuclei/issue_9201.json', engine: 'nuclei unknown', hosts: 1, findings: 1, threats: { Informational: 1 } },
  { file: 'nuclei/many_findings.json', engine: 'nuclei unknown', hosts: 2, findings: 18, threats: { Low: 1, Informational: 16, Medium: 1 }, ruleId: 'openssh5.3-detect' },
  { file: 'nuclei/many_findings_new.json', engine: 'nuclei unknown', hosts: 1, findings: 2, threats: { Medium: 1, Low: 1 } },
  { file: 'nuclei/many_findings_third.json', engine: 'nuclei unknown', hosts: 1, findings: 2, threats: { Informational: 2 } },
  { file: 'nuclei/multi_cwe_fabricated.json', engine: 'nuclei unknown', hosts: 1, findings: 1, threats: { High: 1 } },
  { file: 'nuclei/multiple_matches.json', engine: 'nuclei unknown', hosts: 1, findings: 2, threats: { Informational: 2 } },
  { file: 'nuclei/multiple_v3.json', engine: 'nuclei unknown', hosts: 1, findings: 6, threats: { Informational: 6 } },
];
