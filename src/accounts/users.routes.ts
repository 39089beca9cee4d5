/**
 * The accounts API for admins: every account, paginated, and changing an account's plan (role).
 * Anyone else is refused before the request is even validated. These routes are deliberately
 * not MCP tools (docs/DECISIONS.md "Hardening").
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { authErrors } from '../http/schemas.js';
import { PageQuerySchema, PaginatedSchema, pageOf, paginate } from '../http/pagination.js';
import { notFound, validationError } from '../shared/errors.js';
import { parsePathId, unknownFields } from '../shared/validation.js';
import { ROLES } from '../shared/roles.js';
import { changeUserRole, listUsers, requireAdmin, toPublicUser } from './users.service.js';

const security = [{ bearerAuth: [] }];
const tags = ['Accounts'];
const forbidden = { 403: Type.Ref('Error') };

const RoleBodySchema = Type.Object({
  role: Type.String({ description: `The plan: one of ${ROLES.join(', ')}` }),
});

/** preValidation of every admin route: a non-admin learns only that the route is not for them. */
async function adminsOnly(request: FastifyRequest): Promise<void> {
  requireAdmin(request.principal!.user);
}

export const userAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/admin/users',
    {
      preValidation: adminsOnly,
      schema: {
        tags,
        security,
        summary: 'List every account (admins only)',
        description: 'Oldest first.',
        querystring: Type.Object(PageQuerySchema),
        response: { 200: PaginatedSchema(Type.Ref('User')), ...forbidden, 422: Type.Ref('ValidationError'), ...authErrors },
      },
    },
    async (request) => {
      const page = pageOf(request.query);
      const { items, total } = await listUsers(app.ctx.db, { limit: page.perPage, offset: (page.page - 1) * page.perPage });
      return paginate(items, total, page, `${app.ctx.config.baseUrl}/api/admin/users`, request.query);
    },
  );

  app.put(
    '/admin/users/:id',
    {
      preValidation: adminsOnly,
      schema: {
        tags,
        security,
        summary: "Change an account's plan (admins only)",
        description: 'Takes effect from the account\'s next request: rate limit and plan options. The only admin cannot be demoted.',
        params: Type.Object({ id: Type.String({ description: 'The user id (an integer)' }) }),
        body: RoleBodySchema,
        response: {
          200: Type.Object({ message: Type.String(), data: Type.Ref('User') }),
          ...forbidden,
          404: Type.Ref('Error'),
          422: Type.Ref('ValidationError'),
          ...authErrors,
        },
      },
    },
    async (request) => {
      const extra = unknownFields(request.body, Object.keys(RoleBodySchema.properties));
      if (extra.length > 0) throw validationError(Object.fromEntries(extra.map((field) => [field, [`The ${field} field is not allowed; only role can be changed here.`]])));
      const id = parsePathId(request.params.id);
      if (id === undefined) throw notFound('User');
      const user = toPublicUser(await changeUserRole(app.ctx.db, id, request.body.role));
      return { message: `The role of ${user.email} is now ${user.role.name}.`, data: user };
    },
  );
};
