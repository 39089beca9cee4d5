/** Public discovery endpoints: /.well-known/* documents and the /auth.md agent guide. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authGuide } from './auth-guide.js';
import { authorizationServerMetadata, mcpServerCard, protectedResourceMetadata } from './discovery.documents.js';
import { VERSION } from '../shared/version.js';

export const discoveryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const base = app.ctx.config.baseUrl;
  const tags = ['Discovery'];
  app.get('/.well-known/oauth-protected-resource', { schema: { tags, summary: 'RFC 9728 protected resource metadata' } }, async () =>
    protectedResourceMetadata(base),
  );
  app.get('/.well-known/oauth-authorization-server', { schema: { tags, summary: 'RFC 8414 authorization server metadata' } }, async () =>
    authorizationServerMetadata(base),
  );
  app.get('/.well-known/mcp/server-card.json', { schema: { tags, summary: 'MCP server card' } }, async () => mcpServerCard(base, VERSION));
  app.get('/auth.md', { schema: { tags, summary: 'Agent authentication guide (Markdown)' } }, async (_request, reply) =>
    reply.type('text/markdown; charset=utf-8').send(authGuide(base)),
  );
};
