/**
 * The report email: when a run completes or fails, the scan's `scan_email` receives a summary
 * with the PDF report attached. The executor queues it in the same transaction that finishes the
 * run; `ReportMailWorker` sends it, retrying after the configured delays (DESIGN.md "Email").
 */
import type { Run, Scan } from '../db/schema.js';
import type { MailMessage, Mailer } from '../mail/mailer.js';
import { findUserById } from '../accounts/users.service.js';
import { findScanById } from '../scans/scans.service.js';
import { THREAT_ORDER, type ReportRecord } from './report.js';
import * as mailQueries from './report-mail.queries.js';
import { findRunById } from '../scans/runs.service.js';
import { loadRunReport, renderReport, reportFilename, signedReportUrls, type ReportDeps } from './reports.service.js';
import { AppError } from '../shared/errors.js';

export { enqueueReportMail } from './report-mail.queries.js';

/** A PDF larger than this is linked, not attached (mail servers commonly refuse 20-25 MB). */
const MAX_ATTACHMENT_BYTES = 15 * 1024 * 1024;
/** How long one worker may hold an email before another may take it over. */
const MAIL_LEASE_SECONDS = 300;

async function collect(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      (stream as unknown as { destroy?: () => void }).destroy?.();
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function summaryText(record: ReportRecord, links: string[], linksExpire: Date, attached: boolean): string {
  const { scan, run } = record;
  const lines = [
    `Scan: ${scan.name} (${scan.type})`,
    `Targets: ${scan.targets.join(', ')}`,
    `Run ${run.index}: ${run.outcome ?? 'unknown'}${run.error ? ` - ${run.error}` : ''}`,
    `Started: ${run.startedAt?.toISOString() ?? '-'}   Finished: ${run.completedAt?.toISOString() ?? '-'}`,
    `Hosts up: ${run.hostsUp}   down: ${run.hostsDown}`,
    '',
    `Findings: ${record.total}`,
    ...THREAT_ORDER.map((t) => `  ${t.padEnd(14)} ${record.counts[t]}`),
    `New: ${record.lifecycle.new}   Still open: ${record.lifecycle.still_open}   Fixed: ${record.lifecycle.fixed}   Regressed: ${record.lifecycle.regressed}`,
  ];
  if (run.notes.length) lines.push('', 'Notes:', ...run.notes.map((n) => `  - ${n}`));
  lines.push('', attached ? 'The full report is attached as a PDF. Other formats:' : 'The PDF report is too large to attach. Download the report:');
  lines.push(...links.map((l) => `  ${l}`));
  lines.push(`These links open without signing in until ${linksExpire.toISOString()}: anyone holding this email can use them.`, '', '-- Rampart');
  return lines.join('\n');
}

/** The message for a run: subject with the outcome and the worst counts, summary, PDF attached. */
async function composeReportMail(deps: ReportDeps, scan: Scan, run: Run, recipient: string): Promise<MailMessage> {
  const owner = await findUserById(deps.db, scan.user_id);
  const record = await loadRunReport(deps, scan, run, owner ?? { role: 'trial' });
  const pdf = await collect(renderReport(record, 'pdf'), MAX_ATTACHMENT_BYTES);
  const worst = THREAT_ORDER.filter((t) => t !== 'Informational' && record.counts[t] > 0).map((t) => `${record.counts[t]} ${t}`);
  const outcome = run.outcome === 'succeeded' ? 'completed' : (run.outcome ?? 'finished');
  const subject = `Rampart: "${scan.scan_name}" run ${run.run_index} ${outcome}${worst.length ? ` - ${worst.join(', ')}` : record.total ? '' : ' - no findings'}`;
  const links = await signedReportUrls(deps, scan.uuid, run.run_index, deps.clock());
  return {
    to: recipient,
    subject: subject.replace(/[\r\n]+/g, ' '),
    text: summaryText(record, Object.values(links.urls), links.expiresAt, pdf !== null),
    ...(pdf ? { attachments: [{ filename: reportFilename(scan.scan_name, run.run_index, 'pdf'), content: pdf, contentType: 'application/pdf' }] } : {}),
  };
}

export type MailOutcome = 'sent' | 'retry' | 'failed' | 'idle';

/**
 * Sends the next due report email, if any. A failure is retried after the next configured delay;
 * after the last one the email is marked failed with its error. A run or scan deleted meanwhile
 * cancels its email (the row goes with the run).
 */
export async function sendNextReportMail(deps: ReportDeps, mailer: Mailer): Promise<{ outcome: MailOutcome; error?: string }> {
  const job = await mailQueries.claimReportMail(deps.db, MAIL_LEASE_SECONDS);
  if (!job) return { outcome: 'idle' };
  try {
    const run = await findRunById(deps.db, job.run_id);
    const scan = run ? await findScanById(deps.db, run.scan_id) : undefined;
    if (!run || !scan) {
      await mailQueries.markMailFailed(deps.db, job.id, 'The run or its scan no longer exists.', null);
      return { outcome: 'failed' };
    }
    const message = await composeReportMail(deps, scan, run, job.recipient);
    const sent = await mailer.send(message);
    await mailQueries.markMailSent(deps.db, job.id, sent.messageId);
    return { outcome: 'sent' };
  } catch (error) {
    // The mailer's AppError carries a public message ("could not be reached"); the outbox keeps
    // what the SMTP server actually said, for whoever reads why a mail failed.
    const detail = error instanceof AppError ? error.context?.smtpError : undefined;
    const text = typeof detail === 'string' ? detail : error instanceof Error ? error.message : String(error);
    const delays = deps.config.mailRetryDelaysSeconds;
    const retryIn = job.attempts <= delays.length ? delays[job.attempts - 1]! : null;
    await mailQueries.markMailFailed(deps.db, job.id, text.slice(0, 1000), retryIn);
    return { outcome: retryIn === null ? 'failed' : 'retry', error: text };
  }
}
