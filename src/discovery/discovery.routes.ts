/** Public discovery endpoints: /.well-known/* documents and the /auth.md agent guide. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { authGuide } from './auth-guide.js';
import { authorizationServerMetadata, mcpServerCard, protectedResourceMetadata } from './discovery.documents.js';
import { VERSION } from '../shared/version.js';

const Strings = Type.Array(Type.String());

const ProtectedResourceSchema = Type.Object({
  resource: Type.String(),
  resource_name: Type.String(),
  resource_documentation: Type.String(),
  authorization_servers: Strings,
  scopes_supported: Strings,
  bearer_methods_supported: Strings,
});

const AuthorizationServerSchema = Type.Object({
  issuer: Type.String(),
  token_endpoint: Type.String(),
  token_endpoint_auth_methods_supported: Strings,
  response_types_supported: Strings,
  scopes_supported: Strings,
  service_documentation: Type.String(),
  agent_auth: Type.Object({
    skill: Type.String(),
    register_uri: Type.String(),
    claim_uri: Type.String(),
    identity_types_supported: Strings,
    identity_assertion: Type.Object({ assertion_types_supported: Strings }),
    credential_types_supported: Strings,
  }),
});

/** The card has nested, evolving parts: described by its main keys, serialized whole. */
const ServerCardSchema = Type.Object(
  { $schema: Type.String(), name: Type.String(), version: Type.String(), description: Type.String(), remotes: Type.Array(Type.Object({}, { additionalProperties: true })) },
  { additionalProperties: true },
);

export const discoveryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const base = app.ctx.config.baseUrl;
  const guideLimits = { ...app.ctx.config.agentAuthLimits, codeTtlSeconds: app.ctx.config.agentCodeTtlSeconds };
  const tags = ['Discovery'];
  app.get(
    '/.well-known/oauth-protected-resource',
    { schema: { tags, summary: 'RFC 9728 protected resource metadata', response: { 200: ProtectedResourceSchema } } },
    async () => protectedResourceMetadata(base),
  );
  app.get(
    '/.well-known/oauth-authorization-server',
    { schema: { tags, summary: 'RFC 8414 authorization server metadata, with agent_auth', response: { 200: AuthorizationServerSchema } } },
    async () => authorizationServerMetadata(base),
  );
  app.get(
    '/.well-known/mcp/server-card.json',
    { schema: { tags, summary: 'MCP server card', response: { 200: ServerCardSchema } } },
    async () => mcpServerCard(base, VERSION),
  );
  app.get(
    '/auth.md',
    { schema: { tags, summary: 'Agent authentication guide (Markdown)', produces: ['text/markdown'], response: { 200: Type.String() } } },
    async (_request, reply) => reply.type('text/markdown; charset=utf-8').send(authGuide(base, guideLimits)),
  );
};
