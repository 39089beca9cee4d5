/**
 * Webhooks: an account's HTTPS callbacks for scan events. Saving checks the URL (HTTPS, and the
 * address guard on what it resolves to now; delivery checks again on what it connects to). Events
 * become outbox messages, one per subscribed webhook, in the transaction that finishes the run;
 * `WebhookWorker` delivers them.
 */
import { parsePathId } from '../shared/validation.js';
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Run, Scan, WebhookEventType } from '../db/schema.js';
import { resolveAndCheck, type AddressGuard } from '../shared/address-guard.js';
import { AppError, fieldError, notFound, validationError } from '../shared/errors.js';
import { chatPayload, detectService } from './chat-formats.js';
import { toDeliveryResource } from './delivery-record.js';
import { SAMPLE_RUN_INDEX, SAMPLE_SCAN_UUID, samplePingEvent, type WebhookEvent } from './event.js';
import { generateSecret } from './signing.js';
import * as queries from './webhooks.queries.js';
import {
  MAX_DELIVERIES_SHOWN,
  MAX_WEBHOOKS,
  type CreateWebhookBody,
  type DeliveryResource,
  type UpdateWebhookBody,
  type WebhookResource,
} from './webhooks.schema.js';
import { signedReportUrls } from '../reports/reports.service.js';

export interface WebhookDeps {
  db: Db;
  config: Config;
  guard: AddressGuard;
  clock: () => Date;
}

/**
 * The resource; the secret only where the contract shows it (create, list) and where an update
 * has just made a new one, so an answer that was not asked for the secret cannot leak it.
 */
function toResource(row: queries.WebhookRow, options: { withSecret: boolean }): WebhookResource {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    is_active: row.is_active,
    ...(options.withSecret ? { secret: row.secret } : {}),
    service: row.service,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    last_delivery_at: row.last_delivery_at?.toISOString() ?? null,
    last_status: row.last_status,
  };
}

/** An https URL whose host resolves only to addresses the service may contact; else a 422 on `url`. */
async function checkUrl(deps: WebhookDeps, text: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw fieldError('url', 'The url field must be a valid URL.');
  }
  if (url.protocol !== 'https:') throw fieldError('url', 'The url field must be an https:// URL.');
  if (url.username || url.password) throw fieldError('url', 'The url field must not carry a user name or password.');
  const verdict = await resolveAndCheck(url.hostname, deps.guard);
  if (!verdict.ok) throw fieldError('url', `The url field is not allowed: ${verdict.message}`);
  return url.toString();
}

/** The account's webhook, or 404 when there is none with the id, 403 when it is another's. */
async function ownWebhook(db: Db, userId: number, id: string): Promise<queries.WebhookRow> {
  const n = parsePathId(id);
  const row = n === undefined ? undefined : await queries.findWebhook(db, n);
  if (!row) throw notFound('Webhook');
  if (row.user_id !== userId) throw new AppError('forbidden', 'This webhook belongs to another account.');
  return row;
}

export async function listWebhooks(db: Db, userId: number): Promise<WebhookResource[]> {
  return (await queries.listWebhooks(db, userId)).map((row) => toResource(row, { withSecret: true }));
}

/**
 * One of the account's webhooks, without its secret (the web pages show a secret only when it is
 * made); 404 for no such webhook, 403 for another account's, as the other webhook operations.
 */
export async function showWebhook(db: Db, userId: number, id: string): Promise<WebhookResource> {
  return toResource(await ownWebhook(db, userId, id), { withSecret: false });
}

export async function createWebhook(deps: WebhookDeps, userId: number, body: CreateWebhookBody): Promise<WebhookResource> {
  if ((await queries.countWebhooks(deps.db, userId)) >= MAX_WEBHOOKS) {
    throw validationError({ webhooks: [`An account can have at most ${MAX_WEBHOOKS} webhooks; delete one first.`] });
  }
  const url = await checkUrl(deps, body.url);
  const row = await queries.insertWebhook(deps.db, {
    user_id: userId,
    url,
    events: body.events,
    description: body.description ?? null,
    secret: generateSecret(),
    service: detectService(url),
  });
  return toResource(row, { withSecret: true });
}

export async function updateWebhook(deps: WebhookDeps, userId: number, id: string, body: UpdateWebhookBody): Promise<WebhookResource> {
  const row = await ownWebhook(deps.db, userId, id);
  const url = body.url !== undefined ? await checkUrl(deps, body.url) : undefined;
  const updated = await queries.updateWebhook(deps.db, row.id, {
    ...(url !== undefined ? { url, service: detectService(url) } : {}),
    ...(body.events !== undefined ? { events: body.events } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.is_active !== undefined ? { is_active: body.is_active } : {}),
    ...(body.rotate_secret ? { secret: generateSecret() } : {}),
  });
  return toResource(updated, { withSecret: body.rotate_secret === true });
}

/**
 * Turns off every webhook of an account (kept, so the owner can see and re-enable them): an
 * unverified account claimed by its address's owner must not keep sending events to URLs whoever
 * held it before chose (accounts' claim calls it through AccountClaimCleanup). Returns how many.
 */
export function deactivateUserWebhooks(db: Db, userId: number): Promise<number> {
  return queries.deactivateUserWebhooks(db, userId);
}

export async function deleteWebhook(db: Db, userId: number, id: string): Promise<void> {
  const row = await ownWebhook(db, userId, id);
  await queries.deleteWebhook(db, row.id);
}

function messageFor(deps: Pick<WebhookDeps, 'config'>, webhook: queries.WebhookRow, event: WebhookEvent) {
  return {
    webhook_id: webhook.id,
    message_id: `msg_${randomUUID().replace(/-/g, '')}`,
    event: event.type,
    body: JSON.stringify(chatPayload(webhook.service, event)),
    max_attempts: deps.config.webhooks.retryDelaysSeconds.length + 1,
  };
}

/** Queues a ping with sample data (sent even when the webhook is switched off: it was asked for). */
export async function testWebhook(deps: WebhookDeps, userId: number, id: string): Promise<void> {
  const row = await ownWebhook(deps.db, userId, id);
  const now = deps.clock();
  const links = await signedReportUrls(deps, SAMPLE_SCAN_UUID, SAMPLE_RUN_INDEX, now);
  const event = samplePingEvent(links.urls, now, `evt_${randomUUID().replace(/-/g, '')}`);
  await queries.enqueueMessages(deps.db, [messageFor(deps, row, event)]);
}

/** The webhook's 50 most recent deliveries, newest first, each with its attempts. */
export async function listDeliveries(db: Db, userId: number, id: string): Promise<DeliveryResource[]> {
  const row = await ownWebhook(db, userId, id);
  return (await queries.recentDeliveries(db, row.id, MAX_DELIVERIES_SHOWN)).map(toDeliveryResource);
}

/**
 * Queues scan.completed or scan.failed for every active webhook of the scan's owner subscribed to
 * it. Called in the transaction that finishes the run; `counts` (the run's counts by threat) is
 * only asked for when some webhook is subscribed, so runs without webhooks pay one lookup.
 */
export async function enqueueRunEvent(
  db: Db,
  config: Config,
  scan: Scan,
  run: Run,
  counts: () => Promise<WebhookEvent['data']['run']['counts']>,
): Promise<number> {
  const type: WebhookEventType = run.outcome === 'succeeded' ? 'scan.completed' : 'scan.failed';
  const webhooks = await queries.subscribedWebhooks(db, scan.user_id, type);
  if (webhooks.length === 0) return 0;
  const event: WebhookEvent = {
    id: `evt_${randomUUID().replace(/-/g, '')}`,
    type,
    created_at: new Date().toISOString(),
    data: {
      scan: { uuid: scan.uuid, name: scan.scan_name, type: scan.scan_type, target: scan.scan_target },
      run: {
        run_index: run.run_index,
        outcome: run.outcome,
        completed_at: run.completed_at?.toISOString() ?? null,
        error: run.error,
        error_kind: run.error_kind,
        counts: await counts(),
        // Signed: chat services show these links to people, whose browsers send no bearer token.
        report_urls: (await signedReportUrls({ db, config }, scan.uuid, run.run_index, new Date())).urls,
      },
    },
  };
  await queries.enqueueMessages(db, webhooks.map((w) => messageFor({ config }, w, event)));
  return webhooks.length;
}
