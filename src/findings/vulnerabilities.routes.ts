/**
 * The vulnerability endpoints of the spec: list (filter, sort, page), show, triage and CSV export.
 *
 * Triage bodies must be JSON objects; they carry nothing, and fields in them are ignored (the
 * shared validator strips unknown properties, as Laravel ignores input it does not validate), so
 * a client sending `{"reason": "..."}` still gets its status set. A missing body is a 422 on `body`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authErrors } from '../http/schemas.js';
import { PaginatedSchema, pageOf, paginate } from '../http/pagination.js';
import { MessageSchema, StringEnum } from '../http/schemas.js';
import { ExportQuerySchema, ListQuerySchema, TRIAGE } from './vulnerabilities.schema.js';
import * as service from './vulnerabilities.service.js';

const security = [{ bearerAuth: [] }];
const tags = ['Vulnerabilities'];
const notFound = { 404: Type.Ref('Error') };
const invalid = { 422: Type.Ref('ValidationError') };

/** Path ids are text so that a non-integer id is a 404 like an unknown one, not a 422. */
const IdParamsSchema = Type.Object({ id: Type.String({ description: 'The vulnerability id (an integer)' }) });
const EmptyBodySchema = Type.Object({}, { additionalProperties: false, description: 'An empty JSON object; any fields are ignored' });

/** `rampart-vulnerabilities-YYYY-MM-DD.csv`, the date in UTC. */
function exportFilename(now: Date): string {
  return `rampart-vulnerabilities-${now.toISOString().slice(0, 10)}.csv`;
}

export const vulnerabilityRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/vulnerabilities',
    {
      schema: {
        tags,
        security,
        summary: "List the account's vulnerabilities",
        querystring: ListQuerySchema,
        response: { 200: PaginatedSchema(Type.Ref('Vulnerability')), ...invalid, ...authErrors },
      },
    },
    async (request) => {
      const { severity, status, lifecycle, target, search, url, min_qod: minQod, sort, direction } = request.query;
      const page = pageOf(request.query);
      const { items, total } = await service.listVulnerabilities(app.ctx.db, request.principal!.user.id, {
        filters: { severity, status, lifecycle, target, search, url, minQod },
        sort: sort ?? service.DEFAULT_ORDER.sort,
        direction: direction ?? service.DEFAULT_ORDER.direction,
        ...page,
      });
      return paginate(items, total, page, `${app.ctx.config.baseUrl}/api/vulnerabilities`, request.query);
    },
  );

  // Before `/vulnerabilities/:id`, though the router prefers the static path anyway.
  app.get(
    '/vulnerabilities/export',
    {
      schema: {
        tags,
        security,
        summary: 'Export the vulnerabilities as CSV',
        description:
          'Streams the findings matching the filters, by id, as RFC 4180 CSV (UTF-8, CRLF, a header row). Columns: ' +
          `${service.EXPORT_COLUMNS.join(', ')}. cve and references are joined by a space. A cell starting with =, +, -, @, ` +
          'TAB or CR gets a leading single quote so that spreadsheets do not run it as a formula. Findings whose quality of detection is below ' +
          'min_qod (the deployment threshold RAMPART_MIN_QOD, 70 by default, when omitted; 0 exports all) are left out; the X-Rampart-Min-Qod ' +
          'and X-Rampart-Hidden-Findings response headers say which threshold applied and how many findings it left out.',
        querystring: ExportQuerySchema,
        response: {
          200: { description: 'The CSV file', content: { 'text/csv': { schema: Type.String() } } },
          ...invalid,
          ...authErrors,
        },
      },
    },
    async (request, reply) => {
      const { min_qod: minQod, ...filters } = request.query;
      const { stream, quality } = await service.exportVulnerabilitiesAbove(app.ctx.db, request.principal!.user.id, filters, minQod ?? app.ctx.config.minQod);
      return reply
        .type('text/csv; charset=utf-8')
        .header('x-rampart-min-qod', String(quality.minQod))
        .header('x-rampart-hidden-findings', String(quality.hidden))
        .header('content-disposition', `attachment; filename="${exportFilename(app.ctx.clock())}"`)
        .send(stream);
    },
  );

  app.get(
    '/vulnerabilities/:id',
    { schema: { tags, security, summary: 'Show a vulnerability', params: IdParamsSchema, response: { 200: Type.Object({ data: Type.Ref('Vulnerability') }), ...notFound, ...authErrors } } },
    async (request) => ({ data: await service.showVulnerability(app.ctx.db, request.principal!.user.id, request.params.id) }),
  );

  for (const { path, status, message } of TRIAGE) {
    app.post(
      `/vulnerabilities/:id/${path}`,
      {
        schema: {
          tags,
          security,
          summary: `Set the status to ${status}`,
          description: 'Allowed from any status. The body is a required, empty JSON object; fields in it are ignored.',
          params: IdParamsSchema,
          body: EmptyBodySchema,
          response: { 200: MessageSchema, ...notFound, ...invalid, ...authErrors },
        },
      },
      async (request) => {
        await service.setVulnerabilityStatus(app.ctx.db, request.principal!.user.id, request.params.id, status);
        return { message };
      },
    );
  }
};
