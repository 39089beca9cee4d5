/**
 * One MCP server (the official SDK's low-level `Server`) per session: tools/list and tools/call
 * over the tool table, resource templates and resources/read for report and export files. Each
 * call runs with the bearer token of the HTTP request that carried it (checked before the SDK
 * sees the request), so an expired or revoked token stops a session's calls at once.
 */
import type { FastifyInstance } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../shared/version.js';
import { SERVICE_NAME } from '../discovery/discovery.documents.js';
import { AppError } from '../shared/errors.js';
import { appErrorResult, callApi, isSuccess, toolError, toolResult } from './dispatch.js';
import { fileResourceTemplates, fileTools, readFileResource } from './files.js';
import { descriptionOf, inputSchemaOf, outputSchemaOf, ROUTE_TOOLS, type RouteSchema } from './tools.js';

export interface ToolBox {
  tools: Tool[];
  call(name: string, args: Record<string, unknown>, token: string): Promise<CallToolResult>;
}

/** Builds the tools once, from the routes registered on `app`. */
export function buildToolBox(app: FastifyInstance, routes: { get(method: string, url: string): RouteSchema | undefined }): ToolBox {
  const shared = app.getSchemas() as Record<string, unknown>;
  const handlers = new Map<string, (args: Record<string, unknown>, token: string) => Promise<CallToolResult>>();
  const tools: Tool[] = [];
  for (const spec of ROUTE_TOOLS) {
    const route = routes.get(spec.method, spec.url);
    if (!route) throw new Error(`the MCP tool ${spec.name} names a route that does not exist: ${spec.method} ${spec.url}`);
    const { schema, places } = inputSchemaOf(route, shared);
    const outputSchema = outputSchemaOf(route, shared);
    tools.push({
      name: spec.name,
      title: spec.title,
      description: descriptionOf(spec, route),
      inputSchema: schema as Tool['inputSchema'],
      ...(outputSchema ? { outputSchema: outputSchema as Tool['outputSchema'] } : {}),
      annotations: spec.annotations,
    });
    handlers.set(spec.name, async (args, token) => {
      const response = await callApi(app, { method: spec.method, url: spec.url, args, places, token });
      return isSuccess(response) ? toolResult(response) : toolError(response);
    });
  }
  for (const file of fileTools(app, routes, shared)) {
    const readOnly = { title: file.title, readOnlyHint: true, openWorldHint: false };
    tools.push({ name: file.name, title: file.title, description: file.description, inputSchema: file.inputSchema as Tool['inputSchema'], outputSchema: file.outputSchema as Tool['outputSchema'], annotations: readOnly });
    handlers.set(file.name, (args, token) => file.call(args, token));
  }
  return {
    tools,
    async call(name, args, token) {
      const handler = handlers.get(name);
      if (!handler) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      try {
        return await handler(args, token);
      } catch (error) {
        if (error instanceof AppError) return appErrorResult(error);
        throw error;
      }
    },
  };
}

function tokenOf(authInfo: AuthInfo | undefined): string {
  if (!authInfo?.token) throw new McpError(ErrorCode.InvalidRequest, 'Unauthenticated.');
  return authInfo.token;
}

type RequestSchema = typeof CallToolRequestSchema | typeof ReadResourceRequestSchema;

/**
 * A request schema that lets any params through to the handler, which checks them itself. The SDK
 * parses params before the handler runs and answers a mismatch (`"arguments": "text"`) with -32603
 * Internal error; the MCP specification, like JSON-RPC, calls that -32602 Invalid params.
 */
function lenient<S extends RequestSchema>(schema: S) {
  return schema.pick({ method: true }).loose();
}

/** The request checked against its schema: the parsed request, or -32602 naming what does not fit. */
function checked<S extends RequestSchema>(schema: S, request: unknown): ReturnType<S['parse']> {
  const parsed = schema.safeParse(request);
  if (parsed.success) return parsed.data as ReturnType<S['parse']>;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'params'}: ${issue.message}`);
  throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${problems.join('; ')}`);
}

export function createMcpServer(app: FastifyInstance, box: ToolBox): Server {
  const server = new Server(
    { name: 'rampart', title: SERVICE_NAME, version: VERSION },
    {
      capabilities: { tools: { listChanged: false }, resources: {} },
      instructions:
        'Rampart scans hosts, networks and web apps for vulnerabilities. Create scans (scans_create), follow their runs (scans_runs), ' +
        'triage findings (vulnerabilities_*) and download reports (scans_report). Every tool acts for the account of the bearer token.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: box.tools }));
  server.setRequestHandler(lenient(CallToolRequestSchema), async (raw, extra) => {
    const request = checked(CallToolRequestSchema, raw);
    return box.call(request.params.name, request.params.arguments ?? {}, tokenOf(extra.authInfo));
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: fileResourceTemplates(app.ctx.config.baseUrl) }));
  server.setRequestHandler(lenient(ReadResourceRequestSchema), async (raw, extra) => {
    const request = checked(ReadResourceRequestSchema, raw);
    try {
      return await readFileResource(app, request.params.uri, tokenOf(extra.authInfo));
    } catch (error) {
      if (error instanceof McpError) throw error;
      throw new McpError(ErrorCode.InvalidParams, (error as Error).message);
    }
  });
  return server;
}
