/** The target endpoints of the spec: list, show, delete, and a target's vulnerabilities. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authErrors } from '../http/schemas.js';
import { PaginatedSchema, pageOf, paginate } from '../http/pagination.js';
import { MessageSchema } from '../http/schemas.js';
import { TargetIdParamsSchema, TargetListQuerySchema, TargetVulnerabilitiesQuerySchema } from './targets.schema.js';
import * as service from './targets.service.js';

const security = [{ bearerAuth: [] }];
const tags = ['Targets'];
const notFound = { 404: Type.Ref('Error') };
const invalid = { 422: Type.Ref('ValidationError') };

export const targetRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const listUrl = () => `${app.ctx.config.baseUrl}/api/targets`;

  app.get(
    '/targets',
    {
      schema: {
        tags,
        security,
        summary: "List the account's targets",
        description: 'Each target with its number of vulnerabilities and their counts by threat.',
        querystring: TargetListQuerySchema,
        response: { 200: PaginatedSchema(Type.Ref('Target')), ...invalid, ...authErrors },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { items, total } = await service.listTargets(app.ctx.db, request.principal!.user.id, request.query, page);
      return paginate(items, total, page, listUrl(), request.query);
    },
  );

  app.get(
    '/targets/:id',
    { schema: { tags, security, summary: 'Show a target', params: TargetIdParamsSchema, response: { 200: Type.Object({ data: Type.Ref('Target') }), ...notFound, ...authErrors } } },
    async (request) => ({ data: await service.showTarget(app.ctx.db, request.principal!.user.id, request.params.id) }),
  );

  app.delete(
    '/targets/:id',
    { schema: { tags, security, summary: 'Delete a target and all its vulnerabilities', params: TargetIdParamsSchema, response: { 200: MessageSchema, ...notFound, ...authErrors } } },
    async (request) => {
      return { message: service.describeTargetDeletion(await service.deleteTarget(app.ctx.db, request.principal!.user.id, request.params.id)) };
    },
  );

  app.get(
    '/targets/:id/vulnerabilities',
    {
      schema: {
        tags,
        security,
        summary: "A target's vulnerabilities",
        params: TargetIdParamsSchema,
        querystring: TargetVulnerabilitiesQuerySchema,
        response: { 200: PaginatedSchema(Type.Ref('Vulnerability'), { target: Type.Ref('Target') }), ...notFound, ...invalid, ...authErrors },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { items, total, target } = await service.listTargetVulnerabilities(app.ctx.db, request.principal!.user.id, request.params.id, request.query, page);
      return { ...paginate(items, total, page, `${listUrl()}/${target.id}/vulnerabilities`, request.query), target };
    },
  );
};
