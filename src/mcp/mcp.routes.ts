/**
 * `POST/GET/DELETE /mcp`: the MCP endpoint, Streamable HTTP with sessions, served by the official
 * SDK's transport. Before the SDK sees a request, this checks what the SDK leaves to its host:
 * - the bearer token, exactly as the API does (401 with the same body and WWW-Authenticate);
 * - the `Origin`, when a browser sends one: only the service's own (DNS-rebinding protection);
 * - the protocol version header: 2025-11-25 or 2025-06-18 (an initialize asking for another
 *   version is answered with 2025-11-25, as the protocol's negotiation prescribes);
 * - the session: `Mcp-Session-Id` required after initialize (400), unknown or ended 404, and only
 *   the account that opened a session may use it (403).
 * The rate limit counts each request to /mcp as one API request.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { bearerToken, requireBearer } from '../auth/bearer.js';
import { MCP_PROTOCOL_VERSIONS } from '../discovery/discovery.documents.js';
import { buildToolBox, createMcpServer, type ToolBox } from './mcp.server.js';
import { McpSessions, type McpSession } from './sessions.js';
import type { RouteSchema } from './tools.js';

const SUPPORTED: readonly string[] = MCP_PROTOCOL_VERSIONS;

/** A JSON-RPC error body, as the SDK's transport answers its own HTTP-level errors. */
function rpcError(reply: FastifyReply, status: number, message: string) {
  return reply.code(status).type('application/json').send({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export interface McpRouteOptions {
  routes: { get(method: string, url: string): RouteSchema | undefined };
}

export const mcpRoutes: FastifyPluginAsync<McpRouteOptions> = async (app, options) => {
  const { config } = app.ctx;
  const sessions = new McpSessions({ idleMs: config.mcp.sessionIdleSeconds * 1000, perAccount: config.mcp.sessionsPerAccount });
  // Before the server stops listening: open event streams would otherwise keep it from closing.
  app.addHook('preClose', () => sessions.closeAll());
  // Built on first use, when every route (and so every tool's schema) is registered.
  let box: ToolBox | undefined;
  const toolBox = () => (box ??= buildToolBox(app, options.routes));
  const ownOrigin = new URL(config.baseUrl).origin;

  app.addHook('onRequest', async (request, reply) => {
    const origin = header(request, 'origin');
    if (origin !== undefined && origin !== ownOrigin) return rpcError(reply, 403, `Forbidden: Origin ${origin} is not allowed.`);
    const version = header(request, 'mcp-protocol-version');
    if (version !== undefined && !SUPPORTED.includes(version)) {
      return rpcError(reply, 400, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED.join(', ')})`);
    }
  });
  app.addHook('onRequest', requireBearer);

  /** Hands the request to a session's transport, with the token the SDK passes to handlers. */
  async function handle(request: FastifyRequest, reply: FastifyReply, transport: StreamableHTTPServerTransport): Promise<void> {
    // requireBearer has checked the header and the token.
    const auth: AuthInfo = { token: bearerToken(request)!, clientId: `user:${request.principal!.user.id}`, scopes: [] };
    (request.raw as IncomingMessage & { auth?: AuthInfo }).auth = auth;
    // The SDK writes the reply itself, past the onSend hook that sets this on every other reply.
    reply.raw.setHeader('x-request-id', request.id);
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
  }

  /** The session a request names, or the error reply already sent. */
  function sessionOf(request: FastifyRequest, reply: FastifyReply): McpSession | FastifyReply {
    const id = header(request, 'mcp-session-id');
    if (!id) return rpcError(reply, 400, 'Bad Request: Mcp-Session-Id header is required');
    const session = sessions.use(id);
    if (!session) return rpcError(reply, 404, 'Session not found');
    if (session.userId !== request.principal!.user.id) return rpcError(reply, 403, 'Forbidden: this session belongs to another account');
    return session;
  }

  const schema = { hide: true };

  app.post('/mcp', { schema }, async (request, reply) => {
    if (header(request, 'mcp-session-id') === undefined && isInitializeRequest(request.body)) {
      const userId = request.principal!.user.id;
      const params = request.body.params as { protocolVersion: string };
      if (!SUPPORTED.includes(params.protocolVersion)) params.protocolVersion = SUPPORTED[0]!;
      const server = createMcpServer(app, toolBox());
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.add({ id, userId, transport, server }),
        onsessionclosed: (id) => sessions.forget(id),
      });
      await server.connect(transport);
      return handle(request, reply, transport);
    }
    const session = sessionOf(request, reply);
    if (!('transport' in session)) return session;
    return handle(request, reply, session.transport);
  });

  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      schema,
      handler: async (request, reply) => {
        const session = sessionOf(request, reply);
        if (!('transport' in session)) return session;
        return handle(request, reply, session.transport);
      },
    });
  }
};
