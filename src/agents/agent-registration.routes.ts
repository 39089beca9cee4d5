/** register_uri (POST /agent/auth) and claim_uri (POST /agent/auth/claim) of the agent_auth profile. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { clientAddress } from '../http/rate-limit.js';
import { claimRegistration, RegistrationLimitError, startRegistration } from './agent-registration.service.js';

const errors = { 422: Type.Ref('ValidationError'), 429: Type.Ref('Error'), 503: Type.Ref('Error') } as const;

export const agentRegistrationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/agent/auth',
    {
      schema: {
        tags: ['Agent registration'],
        summary: 'Start a verified-email registration: mails a one-time code to the address',
        body: Type.Object({
          email: Type.String({ format: 'email', maxLength: 255 }),
          name: Type.Optional(Type.String({ maxLength: 255 })),
          key_name: Type.Optional(Type.String({ maxLength: 255 })),
          identity_type: Type.Optional(Type.String({ description: 'identity_assertion (the only type offered)' })),
          assertion_type: Type.Optional(Type.String({ description: 'verified_email (the only assertion accepted)' })),
        }),
        response: {
          202: Type.Object({
            message: Type.String(),
            registration_id: Type.String({ format: 'uuid' }),
            claim_token: Type.String({ description: 'Secret to present with the code when claiming; shown only here' }),
            expires_in: Type.Integer(),
            claim_uri: Type.String(),
          }),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { config, db, mailer, clock } = app.ctx;
      const options = {
        codeTtlSeconds: config.agentCodeTtlSeconds,
        serviceUrl: config.baseUrl,
        limits: config.agentAuthLimits,
        clientAddress: clientAddress(request),
        now: clock(),
      };
      const started = await startRegistration(db, mailer, options, request.body).catch((error: unknown) => {
        // The limit that refused, not the per-minute one the limiter set before the handler.
        if (error instanceof RegistrationLimitError) {
          const wait = error.retryAfterSeconds;
          reply.headers({ 'retry-after': wait, 'x-ratelimit-limit': error.limit, 'x-ratelimit-remaining': 0, 'x-ratelimit-reset': wait });
        }
        throw error;
      });
      return reply.code(202).send({
        message: `A one-time code was sent to ${request.body.email.trim()}. Ask the user for it, then claim.`,
        ...started,
        claim_uri: `${config.baseUrl}/agent/auth/claim`,
      });
    },
  );

  app.post(
    '/agent/auth/claim',
    {
      schema: {
        tags: ['Agent registration'],
        summary: 'Claim a registration with the emailed code: returns an API key',
        body: Type.Object({
          registration_id: Type.String({ format: 'uuid' }),
          claim_token: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: 'The claim_token the start returned' }),
          code: Type.String({ pattern: '^\\s*[0-9]{6}\\s*$' }),
        }),
        response: {
          200: Type.Object({
            message: Type.String(),
            api_key: Type.String(),
            key_prefix: Type.String(),
            token_endpoint: Type.String(),
            account_created: Type.Boolean(),
            user: Type.Ref('User'),
          }),
          // The account of the email exists and an admin disabled it: no key is issued.
          403: Type.Ref('Error'),
          ...errors,
        },
      },
    },
    async (request) => {
      const claimed = await claimRegistration(app.ctx.db, request.body, app.ctx.clock());
      return {
        message: 'Registration claimed. Exchange the API key at the token endpoint; it is shown only once.',
        ...claimed,
        token_endpoint: `${app.ctx.config.baseUrl}/api/token`,
      };
    },
  );
};
