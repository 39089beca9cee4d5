/**
 * The target pages: the list (the query of GET /api/targets, validated by its schema), a target
 * with its vulnerabilities (the query of GET /api/targets/{id}/vulnerabilities), and deletion
 * behind a confirmation page that says how many vulnerabilities go with it.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { TargetListQuerySchema, TargetVulnerabilitiesQuerySchema, type TargetVulnerabilitiesQuery } from '../../targets/targets.schema.js';
import * as targets from '../../targets/targets.service.js';
import { DEFAULT_ORDER } from '../../findings/vulnerabilities.service.js';
import { paginate, pageOf } from '../../http/pagination.js';
import { requireViewer, viewerOf } from '../web.plugin.js';
import { redirectWithFlash, takeFlash } from '../flash.js';
import { sendPage } from '../render.js';
import { TargetListPage } from './targets.views.js';
import { TargetDeletePage, TargetDetailPage } from './targets.detail.views.js';
import { dropEmptyQueryValues, queryErrorsOf, rawQueryOf } from './vulnerabilities.query.js';

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

/** GET /targets, /targets/:id, /targets/:id/delete; POST /targets/:id/delete. */
export async function targetPages(scope: FastifyInstance): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx;

  app.get(
    '/targets',
    { schema: { hide: true, querystring: TargetListQuerySchema }, attachValidation: true, preValidation: dropEmptyQueryValues, preHandler: requireViewer },
    async (request, reply) => {
      const { user } = viewerOf(request);
      const raw = rawQueryOf(request);
      const frame = { user, csrfToken: request.web.csrfToken, flash: takeFlash(request, reply), query: raw };
      const errors = queryErrorsOf(request, TargetListQuerySchema);
      if (errors) return sendPage(reply, <TargetListPage {...frame} order={{ sort: 'last_scan', direction: 'desc' }} errors={errors} />, 422);
      const order = { sort: request.query.sort ?? 'last_scan', direction: request.query.direction ?? 'desc' };
      const page = pageOf(request.query);
      const { items, total } = await targets.listTargets(db, user.id, request.query, page);
      return sendPage(reply, <TargetListPage {...frame} order={order} page={{ items, meta: paginate(items, total, page, '/targets').meta }} />);
    },
  );

  app.get(
    '/targets/:id',
    { schema: { hide: true, querystring: TargetVulnerabilitiesQuerySchema }, attachValidation: true, preValidation: dropEmptyQueryValues, preHandler: requireViewer },
    async (request: IdRequest, reply) => {
      const { user } = viewerOf(request);
      const raw = rawQueryOf(request);
      const frame = { user, csrfToken: request.web.csrfToken, flash: takeFlash(request, reply), query: raw };
      const errors = queryErrorsOf(request, TargetVulnerabilitiesQuerySchema);
      if (errors) {
        const target = await targets.showTarget(db, user.id, request.params.id);
        return sendPage(reply, <TargetDetailPage {...frame} target={target} order={DEFAULT_ORDER} errors={errors} />, 422);
      }
      const query = request.query as TargetVulnerabilitiesQuery;
      const page = pageOf(query);
      const { items, total, target } = await targets.listTargetVulnerabilities(db, user.id, request.params.id, query, page);
      const order = { sort: query.sort ?? DEFAULT_ORDER.sort, direction: query.direction ?? DEFAULT_ORDER.direction };
      return sendPage(reply, <TargetDetailPage {...frame} target={target} order={order} page={{ items, meta: paginate(items, total, page, `/targets/${target.id}`).meta }} />);
    },
  );

  app.get('/targets/:id/delete', { schema: { hide: true }, preHandler: requireViewer }, async (request: IdRequest, reply) => {
    const { user } = viewerOf(request);
    const target = await targets.showTarget(db, user.id, request.params.id);
    return sendPage(reply, <TargetDeletePage user={user} csrfToken={request.web.csrfToken} target={target} />);
  });

  app.post('/targets/:id/delete', { schema: { hide: true }, preHandler: requireViewer }, async (request: IdRequest, reply) => {
    const { user } = viewerOf(request);
    const deleted = await targets.deleteTarget(db, user.id, request.params.id);
    return redirectWithFlash(request, reply, '/targets', { kind: 'success', text: targets.describeTargetDeletion(deleted) });
  });
}
