/**
 * SQL of the report-mail outbox: one row per finished run, claimed by one worker at a time (a
 * lease, so a worker that dies mid-send gives the row back), retried after growing delays.
 */
import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/** Queues the report email of a run (once: a run retried after a crash does not mail twice). */
export async function enqueueReportMail(db: Db, runId: number, recipient: string): Promise<void> {
  await db.insertInto('mail_outbox').values({ run_id: runId, recipient }).onConflict((oc) => oc.column('run_id').doNothing()).execute();
}

export interface MailJob {
  id: number;
  run_id: number;
  recipient: string;
  attempts: number;
}

/** Claims the oldest due email for `leaseSeconds`, counting the attempt. */
export async function claimReportMail(db: Db, leaseSeconds: number): Promise<MailJob | undefined> {
  const result = await sql<MailJob>`
    update mail_outbox set attempts = attempts + 1, lease_expires_at = now() + make_interval(secs => ${leaseSeconds})
    where id = (
      select id from mail_outbox
      where status = 'pending' and next_attempt_at <= now() and (lease_expires_at is null or lease_expires_at < now())
      order by next_attempt_at, id
      for update skip locked
      limit 1)
    returning id, run_id, recipient, attempts`.execute(db);
  return result.rows[0];
}

export async function markMailSent(db: Db, id: number, messageId: string): Promise<void> {
  await db.updateTable('mail_outbox').set({ status: 'sent', sent_at: sql`now()`, message_id: messageId, lease_expires_at: null, error: null }).where('id', '=', id).execute();
}

/** Records a failed attempt: tried again after `retryInSeconds`, or given up when null. */
export async function markMailFailed(db: Db, id: number, error: string, retryInSeconds: number | null): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({
      error,
      lease_expires_at: null,
      ...(retryInSeconds === null ? { status: 'failed' as const } : { next_attempt_at: sql`now() + make_interval(secs => ${retryInSeconds})` }),
    })
    .where('id', '=', id)
    .execute();
}
