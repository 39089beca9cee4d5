/**
 * Delivers webhook messages from the outbox: up to `concurrency` attempts in flight, each bounded
 * by the attempt timeout, at most one per webhook, so a receiver that hangs holds one slot for one
 * timeout and never delays the others. Runs beside the run worker (`rampart serve`, `rampart
 * worker`); processes share the outbox through leases.
 */
import fs from 'node:fs';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { AddressGuard } from '../shared/address-guard.js';
import type { Logger } from '../shared/logger.js';
import { PollLoop } from '../shared/poll-loop.js';
import { VERSION } from '../shared/version.js';
import { deliverOnce } from './deliver.js';
import { describeLastStatus, isSuccess } from './delivery-record.js';
import { signatureHeaders } from './signing.js';
import { claimMessages, recordAttempt, type ClaimedMessage } from './webhooks.queries.js';

export interface WebhookWorkerDeps {
  db: Db;
  config: Config;
  guard: AddressGuard;
  log: Logger;
  /** Tests resolve names themselves; production uses the system resolver. */
  lookup?: (hostname: string) => Promise<string[]>;
}

/** The next attempt's time: the configured delay for this retry, or the receiver's Retry-After if longer. */
function nextAttemptAt(now: Date, attempt: number, delays: number[], retryAfterSeconds: number | null): Date | null {
  if (attempt > delays.length) return null;
  const seconds = Math.max(delays[attempt - 1]!, retryAfterSeconds ?? 0);
  return new Date(now.getTime() + seconds * 1000);
}

export class WebhookWorker {
  readonly #deps: WebhookWorkerDeps;
  readonly #ca: Buffer | undefined;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #loop: PollLoop;

  constructor(deps: WebhookWorkerDeps) {
    this.#deps = deps;
    this.#ca = deps.config.webhooks.caFile ? fs.readFileSync(deps.config.webhooks.caFile) : undefined;
    this.#loop = new PollLoop(
      () => this.#claim(),
      deps.config.worker.pollMs,
      (error) => deps.log.error({ err: error }, 'webhook worker could not reach the store; retrying'),
    );
  }

  start(): void {
    this.#loop.start();
  }

  /** Stops claiming and waits for the attempts in flight (each ends within its timeout). */
  async stop(): Promise<void> {
    await this.#loop.stop();
    await Promise.all([...this.#inFlight]);
  }

  /** Starts attempts for due messages while there is room; the loop waits for the next poll after. */
  async #claim(): Promise<boolean> {
    const { config, db } = this.#deps;
    const room = config.webhooks.concurrency - this.#inFlight.size;
    if (room <= 0) return false;
    const leaseSeconds = Math.ceil(config.webhooks.timeoutMs / 1000) + 30;
    for (const message of await claimMessages(db, room, leaseSeconds)) {
      const attempt = this.#attempt(message).finally(() => {
        this.#inFlight.delete(attempt);
        if (!this.#loop.stopped) this.#loop.notify();
      });
      this.#inFlight.add(attempt);
    }
    return false;
  }

  async #attempt(message: ClaimedMessage): Promise<void> {
    const { config, db, log } = this.#deps;
    const timestamp = Math.floor(Date.now() / 1000);
    const result = await deliverOnce({
      url: message.url,
      body: message.body,
      headers: signatureHeaders(message.secret, message.message_id, timestamp, message.body),
      guard: this.#deps.guard,
      timeoutMs: config.webhooks.timeoutMs,
      userAgent: `Rampart-Webhooks/${VERSION}`,
      ...(this.#ca ? { ca: this.#ca } : {}),
      ...(this.#deps.lookup ? { lookup: this.#deps.lookup } : {}),
    });
    const ok = isSuccess(result.status);
    // 410 Gone: the receiver says this webhook is over; stop sending to it.
    const gone = result.status === 410;
    const retryAt = ok || gone ? null : nextAttemptAt(new Date(), message.attempts, config.webhooks.retryDelaysSeconds, result.retryAfterSeconds);
    const status = ok ? 'succeeded' : retryAt ? 'pending' : 'failed';
    try {
      const current = await recordAttempt(db, message, {
        status,
        response_code: result.status,
        response_body: result.responseBody,
        duration_ms: Math.round(result.durationMs),
        error: result.error,
        retryAt,
        lastStatus: describeLastStatus(status, { attempt: message.attempts, maxAttempts: message.max_attempts, responseCode: result.status, error: result.error }),
        disable: gone,
      });
      if (!current) log.warn({ webhook_id: message.webhook_id }, 'webhook attempt ended after its lease; a newer attempt owns the delivery');
    } catch (error) {
      log.error({ err: error, webhook_id: message.webhook_id }, 'webhook attempt could not be recorded');
    }
    if (gone) log.warn({ webhook_id: message.webhook_id }, 'webhook receiver answered 410 Gone: webhook switched off');
  }
}
