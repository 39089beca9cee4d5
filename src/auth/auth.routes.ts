/** POST /api/token (public), POST /api/refresh and GET /api/user (bearer). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authErrors } from '../http/schemas.js';
import { toPublicUser } from '../accounts/users.service.js';
import { exchangeApiKey, refreshToken } from './auth.service.js';
import { TokenQuerySchema, tokenResponse, TokenResponseSchema } from './auth.schema.js';

export const tokenRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/token',
    {
      schema: {
        tags: ['Authentication'],
        summary: 'Exchange an API key for a JWT bearer token',
        querystring: Type.Partial(TokenQuerySchema),
        response: { 200: TokenResponseSchema, 401: Type.Ref('Error'), 429: Type.Ref('Error') },
      },
    },
    async (request) => tokenResponse(await exchangeApiKey(app.ctx.db, app.ctx.tokens, request.query.key ?? '')),
  );
};

export const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/refresh',
    {
      schema: {
        tags: ['Authentication'],
        summary: 'Exchange the current bearer token for a new one',
        security: [{ bearerAuth: [] }],
        response: { 200: TokenResponseSchema, ...authErrors },
      },
    },
    async (request) => tokenResponse(await refreshToken(app.ctx.db, app.ctx.tokens, request.principal!)),
  );

  app.get(
    '/user',
    {
      schema: {
        tags: ['Authentication'],
        summary: 'The authenticated user',
        security: [{ bearerAuth: [] }],
        response: { 200: Type.Ref('User'), ...authErrors },
      },
    },
    async (request) => toPublicUser(request.principal!.user),
  );
};

