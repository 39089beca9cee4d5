/**
 * Settings, API keys: GET /settings/api-keys (the list and the create form), POST
 * /settings/api-keys (creates one and shows the whole key on this very response, status 201: never
 * through a redirect or a flash cookie, so the key is in no URL, cookie or later page), and POST
 * /settings/api-keys/:id/revoke (another account's key id is a 404 page).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createApiKey, listApiKeys, revokeApiKey, toPublicApiKey, type CreatedApiKey } from '../../accounts/api-keys.service.js';
import { notFound } from '../../shared/errors.js';
import { parsePathId } from '../../shared/validation.js';
import { requireViewer, viewerOf } from '../web.plugin.js';
import { sendPage } from '../render.js';
import { redirectWithFlash, takeFlash } from '../flash.js';
import { formFailure, formText, type FormFailure } from './settings.form.js';
import { ApiKeysPage } from './api-keys.views.js';

export async function apiKeyRoutes(app: FastifyInstance): Promise<void> {
  const { db, config } = app.ctx;

  const render = async (request: FastifyRequest, reply: FastifyReply, outcome: { created?: CreatedApiKey; failed?: FormFailure & { name: string } } = {}) => {
    const user = viewerOf(request).user;
    const keys = (await listApiKeys(db, user.id)).map(toPublicApiKey);
    const flash = outcome.created || outcome.failed ? null : takeFlash(request, reply);
    const created = outcome.created ? { key: outcome.created.key, record: toPublicApiKey(outcome.created.record) } : undefined;
    const page = <ApiKeysPage user={user} csrfToken={request.web.csrfToken} flash={flash} baseUrl={config.baseUrl} keys={keys} created={created} failed={outcome.failed} />;
    return sendPage(reply, page, outcome.created ? 201 : outcome.failed ? 422 : 200);
  };

  app.get('/settings/api-keys', { preHandler: requireViewer }, async (request, reply) => render(request, reply));

  app.post('/settings/api-keys', { preHandler: requireViewer }, async (request, reply) => {
    const name = formText(request.body, 'name');
    let created: CreatedApiKey;
    try {
      created = await createApiKey(db, viewerOf(request).user.id, name);
    } catch (error) {
      return render(request, reply, { failed: { ...formFailure(error), name } });
    }
    return render(request, reply, { created });
  });

  app.post<{ Params: { id: string } }>('/settings/api-keys/:id/revoke', { preHandler: requireViewer }, async (request, reply) => {
    const id = parsePathId(request.params.id);
    if (id === undefined) throw notFound('API key');
    const revoked = await revokeApiKey(db, viewerOf(request).user.id, id);
    return redirectWithFlash(request, reply, '/settings/api-keys', { kind: 'success', text: `The key "${revoked.name}" (${revoked.prefix}) is revoked: it can no longer be exchanged for tokens.` });
  });
}
