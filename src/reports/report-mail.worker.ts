/**
 * Works the report-mail outbox: one email at a time (each bounded by the mailer's timeouts), as
 * long as some are due, then waits a poll interval. Runs beside the run worker in `rampart serve`
 * and `rampart worker`; several processes share the outbox safely (rows are leased).
 */
import type { Mailer } from '../mail/mailer.js';
import type { Logger } from '../shared/logger.js';
import { PollLoop } from '../shared/poll-loop.js';
import { sendNextReportMail } from './report-mail.service.js';
import type { ReportDeps } from './reports.service.js';

export class ReportMailWorker {
  readonly #loop: PollLoop;

  constructor(deps: ReportDeps, mailer: Mailer, log: Logger, pollMs: number) {
    this.#loop = new PollLoop(
      async () => {
        const result = await sendNextReportMail(deps, mailer);
        if (result.outcome === 'sent') log.info({}, 'report email sent');
        else if (result.outcome === 'retry') log.warn({ error: result.error }, 'report email failed; it will be retried');
        else if (result.outcome === 'failed') log.error({ error: result.error }, 'report email given up');
        return result.outcome !== 'idle';
      },
      pollMs,
      (error) => log.error({ err: error }, 'report mail worker could not reach the store; retrying'),
    );
  }

  start(): void {
    this.#loop.start();
  }

  /** Stops after the email being sent, if any. */
  stop(): Promise<void> {
    return this.#loop.stop();
  }
}
