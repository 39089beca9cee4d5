/**
 * The vulnerability pages: the list (every filter, sort and page size of GET /api/vulnerabilities,
 * validated by the API's own query schema), one finding, triage one by one and in bulk, and the
 * CSV export of the current filters. Each handler calls the service the API calls.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ExportQuerySchema, ListQuerySchema, TRIAGE } from '../../findings/vulnerabilities.schema.js';
import * as vulnerabilities from '../../findings/vulnerabilities.service.js';
import { paginate, pageOf } from '../../http/pagination.js';
import { validationError } from '../../shared/errors.js';
import { requireViewer, viewerOf } from '../web.plugin.js';
import { redirectWithFlash, takeFlash } from '../flash.js';
import { sendPage } from '../render.js';
import { VulnerabilityListPage } from './vulnerabilities.list.views.js';
import { VulnerabilityDetailPage } from './vulnerabilities.detail.views.js';
import { dropEmptyQueryValues, queryErrorsOf, rawQueryOf, safeBack } from './vulnerabilities.query.js';
import { targetPages } from './targets.routes.js';

const BULK_ACTIONS = new Map(TRIAGE.map((t) => [t.path as string, t]));

/** The first value of a form field that may be sent once or many times. */
function listOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

/** `rampart-vulnerabilities-YYYY-MM-DD.csv`, the date in UTC (the API's file name). */
function exportFilename(now: Date): string {
  return `rampart-vulnerabilities-${now.toISOString().slice(0, 10)}.csv`;
}

/** The vulnerability pages (and, through `findingsPages`, the target pages). */
export async function vulnerabilityPages(scope: FastifyInstance): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config } = app.ctx;

  app.get(
    '/vulnerabilities',
    { schema: { hide: true, querystring: ListQuerySchema }, attachValidation: true, preValidation: dropEmptyQueryValues, preHandler: requireViewer },
    async (request, reply) => {
      const { user } = viewerOf(request);
      const raw = rawQueryOf(request);
      const errors = queryErrorsOf(request, ListQuerySchema);
      const frame = { user, csrfToken: request.web.csrfToken, flash: takeFlash(request, reply), query: raw, exportMinQod: config.minQod, self: request.url };
      if (errors) {
        const order = { sort: vulnerabilities.DEFAULT_ORDER.sort, direction: vulnerabilities.DEFAULT_ORDER.direction };
        return sendPage(reply, <VulnerabilityListPage {...frame} order={order} errors={errors} />, 422);
      }
      const { severity, status, lifecycle, target, search, url, min_qod: minQod, sort, direction } = request.query;
      const order = { sort: sort ?? vulnerabilities.DEFAULT_ORDER.sort, direction: direction ?? vulnerabilities.DEFAULT_ORDER.direction };
      const page = pageOf(request.query);
      const { items, total } = await vulnerabilities.listVulnerabilities(db, user.id, { filters: { severity, status, lifecycle, target, search, url, minQod }, ...order, ...page });
      const { meta } = paginate(items, total, page, '/vulnerabilities');
      return sendPage(reply, <VulnerabilityListPage {...frame} order={order} page={{ items, meta }} />);
    },
  );

  app.get(
    '/vulnerabilities/export.csv',
    { schema: { hide: true, querystring: ExportQuerySchema }, attachValidation: true, preValidation: dropEmptyQueryValues, preHandler: requireViewer },
    async (request, reply) => {
      const { user } = viewerOf(request);
      const errors = queryErrorsOf(request, ExportQuerySchema);
      if (errors) throw validationError(errors);
      const { min_qod: minQod, ...filters } = request.query;
      const { stream, quality } = await vulnerabilities.exportVulnerabilitiesAbove(db, user.id, filters, minQod ?? config.minQod);
      return reply
        .type('text/csv; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('x-rampart-min-qod', String(quality.minQod))
        .header('x-rampart-hidden-findings', String(quality.hidden))
        .header('content-disposition', `attachment; filename="${exportFilename(app.ctx.clock())}"`)
        .send(stream);
    },
  );

  scope.get<{ Params: { id: string } }>('/vulnerabilities/:id', { schema: { hide: true }, preHandler: requireViewer }, async (request, reply) => {
    const { user } = viewerOf(request);
    const v = await vulnerabilities.showVulnerability(db, user.id, request.params.id);
    return sendPage(reply, <VulnerabilityDetailPage user={user} csrfToken={request.web.csrfToken} flash={takeFlash(request, reply)} v={v} minQod={config.minQod} />);
  });

  for (const action of TRIAGE) {
    scope.post<{ Params: { id: string } }>(`/vulnerabilities/:id/${action.path}`, { schema: { hide: true }, preHandler: requireViewer }, async (request, reply) => {
      const { user } = viewerOf(request);
      await vulnerabilities.setVulnerabilityStatus(db, user.id, request.params.id, action.status);
      const back = safeBack((request.body as Record<string, unknown> | undefined)?.back, `/vulnerabilities/${request.params.id}`);
      return redirectWithFlash(request, reply, back, { kind: 'success', text: action.message });
    });
  }

  app.post('/vulnerabilities/bulk', { schema: { hide: true }, preHandler: requireViewer }, async (request, reply) => {
    const { user } = viewerOf(request);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const back = safeBack(body.back, '/vulnerabilities');
    const action = BULK_ACTIONS.get(typeof body.action === 'string' ? body.action : '');
    const ids = listOf(body.ids);
    if (!action) return redirectWithFlash(request, reply, back, { kind: 'error', text: 'Choose what to do with the selected vulnerabilities.' });
    if (ids.length === 0) return redirectWithFlash(request, reply, back, { kind: 'error', text: 'Select at least one vulnerability first.' });
    const { updated, notFound } = await vulnerabilities.setVulnerabilitiesStatus(db, user.id, ids, action.status);
    const changed = `${updated} ${updated === 1 ? 'vulnerability' : 'vulnerabilities'} set to ${action.status}.`;
    const missing = notFound > 0 ? ` ${notFound} not found.` : '';
    return redirectWithFlash(request, reply, back, { kind: notFound > 0 && updated === 0 ? 'error' : 'success', text: changed + missing });
  });
}

/** Every page of the findings area: vulnerabilities and targets (web.routes.ts registers this one plugin). */
export async function findingsPages(scope: FastifyInstance): Promise<void> {
  await scope.register(vulnerabilityPages);
  await scope.register(targetPages);
}
