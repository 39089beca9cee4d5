/**
 * The webhook pages, on the same service as /api/webhooks: list, create (the secret shown once),
 * detail with edit, rotate, test and the delivery history, and delete with confirmation.
 *
 * Another account's webhook is a 404 page here, where the API answers 403: a page does not tell a
 * stranger that an id exists (as scans and findings are 404 everywhere).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, notFound, type FieldErrors } from '../../shared/errors.js';
import { WEBHOOK_EVENTS } from '../../webhooks/webhooks.schema.js';
import * as webhooks from '../../webhooks/webhooks.service.js';
import { redirectWithFlash, takeFlash } from '../flash.js';
import { sendPage } from '../render.js';
import { requireViewer, viewerOf } from '../web.plugin.js';
import { DeleteWebhookPage, WebhookDetailPage } from './webhook-detail.views.js';
import { WebhookSecretPage } from './webhook-secret.views.js';
import { NewWebhookPage, valuesOf, WebhooksListPage, type Frame, type WebhookFormValues } from './webhooks.views.js';

type FormBody = Record<string, string | string[] | undefined>;
type IdParams = { Params: { id: string } };

const EMPTY_FORM: WebhookFormValues = { url: '', events: ['scan.completed', 'scan.failed'], description: '', is_active: true };

/** The form as typed, and what the API's schema would refuse of it (the service checks the URL). */
function readForm(body: unknown): { values: WebhookFormValues; problems: FieldErrors | undefined } {
  const form = (body ?? {}) as FormBody;
  const text = (name: string) => {
    const value = form[name];
    return (Array.isArray(value) ? value[0] : value)?.trim() ?? '';
  };
  const raw = form.events;
  const events = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter((e, i, all) => all.indexOf(e) === i);
  const values = { url: text('url'), events, description: text('description'), is_active: form.is_active !== undefined };
  const problems: FieldErrors = {};
  if (!values.url) problems.url = ['Enter the https:// URL to call.'];
  else if (values.url.length > 2048) problems.url = ['The url field must not be greater than 2048 characters.'];
  if (events.length === 0) problems.events = ['Choose at least one event.'];
  else if (events.some((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e))) problems.events = [`The selected events are invalid. Valid: ${WEBHOOK_EVENTS.join(', ')}.`];
  if (values.description.length > 255) problems.description = ['The description field must not be greater than 255 characters.'];
  return { values, problems: Object.keys(problems).length > 0 ? problems : undefined };
}

/** The body the service takes, from a form without problems. */
function bodyOf(values: WebhookFormValues) {
  return { url: values.url, events: values.events as (typeof WEBHOOK_EVENTS)[number][], description: values.description || null };
}

/** A validation error's field errors (the service's 422), or undefined for any other error. */
function fieldErrorsOf(error: unknown): FieldErrors | undefined {
  return error instanceof AppError && error.code === 'validation_failed' ? (error.errors ?? { webhooks: [error.message] }) : undefined;
}

/** Another account's webhook looks like none at all (the service's 403 becomes a 404). */
async function own<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof AppError && error.code === 'forbidden') throw notFound('Webhook');
    throw error;
  }
}

export async function webhookPages(app: FastifyInstance): Promise<void> {
  const { db } = app.ctx;
  const deps = (): webhooks.WebhookDeps => ({ db, config: app.ctx.config, guard: app.ctx.guard, clock: app.ctx.clock });
  const frame = (request: FastifyRequest, reply?: FastifyReply): Frame => ({
    user: viewerOf(request).user,
    csrfToken: request.web.csrfToken,
    flash: reply ? takeFlash(request, reply) : null,
  });
  const userId = (request: FastifyRequest) => viewerOf(request).user.id;
  const guarded = { preHandler: requireViewer };

  /** The detail page, with the edit form holding `values` (and its errors, for a 422). */
  const detail = async (request: FastifyRequest<IdParams>, reply: FastifyReply, form?: { values: WebhookFormValues; errors: FieldErrors }) => {
    const webhook = await own(webhooks.showWebhook(db, userId(request), request.params.id));
    const deliveries = await own(webhooks.listDeliveries(db, userId(request), request.params.id));
    const page = <WebhookDetailPage frame={frame(request, form ? undefined : reply)} webhook={webhook} deliveries={deliveries} values={form?.values ?? valuesOf(webhook)} errors={form?.errors} />;
    return sendPage(reply, page, form ? 422 : 200);
  };

  app.get('/webhooks', guarded, async (request, reply) => {
    const list = await webhooks.listWebhooks(db, userId(request));
    return sendPage(reply, <WebhooksListPage frame={frame(request, reply)} webhooks={list} />);
  });

  app.get('/webhooks/new', guarded, async (request, reply) => sendPage(reply, <NewWebhookPage frame={frame(request, reply)} values={EMPTY_FORM} />));

  app.post('/webhooks/new', guarded, async (request, reply) => {
    const { values, problems } = readForm(request.body);
    if (problems) return sendPage(reply, <NewWebhookPage frame={frame(request)} values={values} errors={problems} />, 422);
    try {
      const created = await webhooks.createWebhook(deps(), userId(request), bodyOf(values));
      // Shown in this answer and never again: there is no page to redirect to that could show it.
      return sendPage(reply, <WebhookSecretPage frame={frame(request)} webhook={created} secret={created.secret ?? ''} rotated={false} />, 201);
    } catch (error) {
      const errors = fieldErrorsOf(error);
      if (!errors) throw error;
      return sendPage(reply, <NewWebhookPage frame={frame(request)} values={values} errors={errors} />, 422);
    }
  });

  app.get<IdParams>('/webhooks/:id', guarded, async (request, reply) => detail(request, reply));

  app.post<IdParams>('/webhooks/:id', guarded, async (request, reply) => {
    const { values, problems } = readForm(request.body);
    if (problems) return detail(request, reply, { values, errors: problems });
    try {
      await own(webhooks.updateWebhook(deps(), userId(request), request.params.id, { ...bodyOf(values), is_active: values.is_active }));
    } catch (error) {
      const errors = fieldErrorsOf(error);
      if (!errors) throw error;
      return detail(request, reply, { values, errors });
    }
    return redirectWithFlash(request, reply, `/webhooks/${request.params.id}`, { kind: 'success', text: 'Webhook saved.' });
  });

  app.post<IdParams>('/webhooks/:id/rotate', guarded, async (request, reply) => {
    const rotated = await own(webhooks.updateWebhook(deps(), userId(request), request.params.id, { rotate_secret: true }));
    return sendPage(reply, <WebhookSecretPage frame={frame(request)} webhook={rotated} secret={rotated.secret ?? ''} rotated />);
  });

  app.post<IdParams>('/webhooks/:id/test', guarded, async (request, reply) => {
    await own(webhooks.testWebhook(deps(), userId(request), request.params.id));
    return redirectWithFlash(request, reply, `/webhooks/${request.params.id}`, { kind: 'success', text: 'Test ping queued: it appears under Recent deliveries with the answer once sent.' });
  });

  app.get<IdParams>('/webhooks/:id/delete', guarded, async (request, reply) => {
    const webhook = await own(webhooks.showWebhook(db, userId(request), request.params.id));
    const deliveries = await own(webhooks.listDeliveries(db, userId(request), request.params.id));
    return sendPage(reply, <DeleteWebhookPage frame={frame(request, reply)} webhook={webhook} deliveries={deliveries.length} />);
  });

  app.post<IdParams>('/webhooks/:id/delete', guarded, async (request, reply) => {
    await own(webhooks.deleteWebhook(db, userId(request), request.params.id));
    return redirectWithFlash(request, reply, '/webhooks', { kind: 'success', text: 'Webhook deleted, with its delivery history.' });
  });
}
