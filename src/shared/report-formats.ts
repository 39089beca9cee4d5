/**
 * The formats a run's report downloads in. Below every module because the runs of a scan list
 * them (`available_formats`) while the reports module, which renders them, reads scans and runs.
 */

/** A report format: the last segment of its download path. */
export type ReportFormat = 'pdf' | 'csv' | 'html' | 'txt' | 'xml';
/** Every report format, in the order the API lists them. */
export const REPORT_FORMATS: readonly ReportFormat[] = ['pdf', 'csv', 'html', 'txt', 'xml'];

/** The formats a run's report can be downloaded in: every one once the run has completed. */
export function availableFormats(run: { status: 'current' | 'completed' }): ReportFormat[] {
  return run.status === 'completed' ? [...REPORT_FORMATS] : [];
}
