/**
 * What follows the end of a run, queued in the transaction that ends it, whoever ends it (the
 * executor, or the lease reaper for a run whose worker died): the report email to the scan's
 * address and the scan.completed / scan.failed webhook events.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Run, Scan } from '../db/schema.js';
import { enqueueReportMail } from '../reports/report-mail.service.js';
import { runCountsByThreat } from '../reports/reports.service.js';
import { enqueueRunEvent } from '../webhooks/webhooks.service.js';

/** Queues the report email and the webhook events of `run`, which has just ended. */
export async function queueRunEndNotices(trx: Db, config: Config, scan: Scan, run: Run): Promise<void> {
  await enqueueReportMail(trx, run.id, scan.scan_email);
  await enqueueRunEvent(trx, config, scan, run, () => runCountsByThreat(trx, run.id, config.minQod));
}
