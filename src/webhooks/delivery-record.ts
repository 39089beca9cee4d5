/**
 * What a delivery record says (DESIGN.md "Webhook"): one event sent to one webhook, whatever the
 * number of attempts, with its status true at every moment:
 * - pending: attempts remain, and the next is scheduled (`next_retry_at`) or in flight;
 * - succeeded: an attempt got a 2xx;
 * - failed: the attempts ran out, or the receiver answered 410 Gone.
 * Each attempt is listed inside it. The webhook's `last_status` puts its latest attempt in words.
 */
import type { DeliveryRow } from './webhooks.queries.js';
import type { DeliveryAttemptResource, DeliveryResource } from './webhooks.schema.js';

/** An answer that delivers the event. */
export function isSuccess(responseCode: number | null): boolean {
  return responseCode !== null && responseCode >= 200 && responseCode < 300;
}

/** The longest failure quoted in last_status: an error naming every address tried can run long. */
const MAX_REASON_CHARS = 200;

/**
 * A webhook's last_status after an attempt: the status it left the delivery in, the attempt, and
 * the answer, e.g. `pending (attempt 2 of 6 failed: HTTP 500)`. Never empty, even without an
 * answer. Migration 0010 wrote the same words for the attempts made before it.
 */
export function describeLastStatus(
  status: DeliveryResource['status'],
  attempt: { attempt: number; maxAttempts: number; responseCode: number | null; error: string | null },
): string {
  const head = `${status} (attempt ${attempt.attempt} of ${attempt.maxAttempts}`;
  if (status === 'succeeded') return `${head}: HTTP ${attempt.responseCode})`;
  const reason = attempt.responseCode !== null ? `HTTP ${attempt.responseCode}` : (attempt.error ?? 'no answer').slice(0, MAX_REASON_CHARS);
  return `${head} failed: ${reason})`;
}

/** An attempt with no result whose lease ran out: it was sent, or not; nobody saw the answer. */
const NO_RESULT = 'no result recorded: the worker stopped during this attempt';

type AttemptRow = DeliveryRow['attempts'][number];

function toAttempt(row: AttemptRow, delivery: DeliveryRow): DeliveryAttemptResource {
  const finished = row.finished_at !== null;
  const inFlight = !finished && delivery.in_flight && row.attempt === delivery.attempt;
  return {
    attempt: row.attempt,
    status: inFlight ? 'in_flight' : finished && isSuccess(row.response_code) ? 'succeeded' : 'failed',
    // JSON text from the database (`2025-01-01T12:00:00.123456+00:00`), made the API's ISO form.
    started_at: new Date(row.started_at).toISOString(),
    duration_ms: row.duration_ms,
    response_code: row.response_code,
    response_body: row.response_body,
    error: finished || inFlight ? row.error : NO_RESULT,
  };
}

/** The delivery resource: the latest finished attempt's answer on top, every attempt inside. */
export function toDeliveryResource(row: DeliveryRow): DeliveryResource {
  const attempts = row.attempts.map((a) => toAttempt(a, row));
  const latest = attempts.findLast((a) => a.status !== 'in_flight');
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event: row.event,
    // The exact text sent, which we rendered from JSON.
    payload: JSON.parse(row.body) as object,
    response_code: latest?.response_code ?? null,
    response_body: latest?.response_body ?? null,
    attempt: row.attempt,
    max_attempts: row.max_attempts,
    next_retry_at: row.status === 'pending' && !row.in_flight ? row.next_attempt_at.toISOString() : null,
    status: row.status,
    duration_ms: latest?.duration_ms ?? null,
    error: latest?.error ?? null,
    created_at: row.created_at.toISOString(),
    attempts,
  };
}
