/**
 * The OpenAPI 3.1 document, generated from the same route schemas that validate requests, served
 * at /api/openapi.json, and a readable reference (Swagger UI) at /docs.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { API_VERSION } from '../shared/version.js';

export async function registerOpenApi(app: FastifyInstance, baseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Rampart API',
        version: API_VERSION,
        description:
          'Rampart security scanning service. Exchange an API key at POST /api/token, then send ' +
          '`Authorization: Bearer <token>` on every other request. Errors are JSON: `{"message": ...}`, ' +
          'and validation errors add `errors` with messages by field.',
      },
      servers: [{ url: baseUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          // The local agent's routes (docs/AGENT.md) take only the credential of a downloaded agent.
          agentCredential: { type: 'http', scheme: 'bearer', bearerFormat: 'ragt_ scan-scoped agent credential' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, uiConfig: { docExpansion: 'list', deepLinking: true } });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
