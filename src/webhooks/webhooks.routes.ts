/**
 * The webhook endpoints of the spec. Another account's webhook is a 403 (the spec's rule for
 * webhooks, unlike scans and findings), an unknown id a 404.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authErrors } from '../http/schemas.js';
import { MessageSchema } from '../http/schemas.js';
import { CreateWebhookSchema, UpdateWebhookSchema } from './webhooks.schema.js';
import * as service from './webhooks.service.js';

const security = [{ bearerAuth: [] }];
const tags = ['Webhooks'];
const IdParams = Type.Object({ id: Type.String({ description: 'The webhook id (an integer)' }) });
const forbidden = { 403: Type.Ref('Error'), 404: Type.Ref('Error') };
const invalid = { 422: Type.Ref('ValidationError') };

export const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deps = (): service.WebhookDeps => ({ db: app.ctx.db, config: app.ctx.config, guard: app.ctx.guard, clock: app.ctx.clock });
  const user = (request: { principal: { user: { id: number } } | null }) => request.principal!.user.id;

  app.get(
    '/webhooks',
    { schema: { tags, security, summary: "The account's webhooks, with their secrets", response: { 200: Type.Object({ data: Type.Array(Type.Ref('Webhook')) }), ...authErrors } } },
    async (request) => ({ data: await service.listWebhooks(app.ctx.db, user(request)) }),
  );

  app.post(
    '/webhooks',
    {
      schema: {
        tags,
        security,
        summary: 'Create a webhook',
        description: 'HTTPS only; the URL must resolve to addresses the service may contact. At most 10 per account (422).',
        body: CreateWebhookSchema,
        response: { 201: Type.Object({ message: Type.String(), data: Type.Ref('Webhook') }), ...invalid, ...authErrors },
      },
    },
    async (request, reply) => {
      const webhook = await service.createWebhook(deps(), user(request), request.body);
      return reply.code(201).send({ message: 'Webhook created successfully.', data: webhook });
    },
  );

  app.put(
    '/webhooks/:id',
    {
      schema: {
        tags,
        security,
        summary: 'Update a webhook',
        description:
          'Only the fields given change; `is_active` switches deliveries. `rotate_secret: true` issues a new secret, returned in this answer; otherwise the answer has no `secret` (list the webhooks to see it).',
        params: IdParams,
        body: UpdateWebhookSchema,
        response: { 200: Type.Object({ message: Type.String(), data: Type.Ref('Webhook') }), ...forbidden, ...invalid, ...authErrors },
      },
    },
    async (request) => ({ message: 'Webhook updated successfully.', data: await service.updateWebhook(deps(), user(request), request.params.id, request.body) }),
  );

  app.delete(
    '/webhooks/:id',
    { schema: { tags, security, summary: 'Delete a webhook and its delivery history', params: IdParams, response: { 200: MessageSchema, ...forbidden, ...authErrors } } },
    async (request) => {
      await service.deleteWebhook(app.ctx.db, user(request), request.params.id);
      return { message: 'Webhook deleted successfully.' };
    },
  );

  app.post(
    '/webhooks/:id/test',
    {
      schema: {
        tags,
        security,
        summary: 'Send a ping event with sample scan data',
        description: 'Queued at once and delivered like any event (signed, retried, recorded), even when the webhook is switched off.',
        params: IdParams,
        response: { 200: MessageSchema, ...forbidden, ...authErrors },
      },
    },
    async (request) => {
      await service.testWebhook(deps(), user(request), request.params.id);
      return { message: 'Test event dispatched.' };
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        tags,
        security,
        summary: 'The 50 most recent deliveries, newest first, each with its attempts',
        description: 'One record per event sent: `status` pending while attempts remain (the next due at `next_retry_at`, or in flight), then succeeded or failed.',
        params: IdParams,
        response: { 200: Type.Object({ data: Type.Array(Type.Ref('WebhookDelivery')) }), ...forbidden, ...authErrors },
      },
    },
    async (request) => ({ data: await service.listDeliveries(app.ctx.db, user(request), request.params.id) }),
  );
};
