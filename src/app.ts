/**
 * Builds the Fastify application — plugins, hooks and every route — without listening, so tests
 * and `rampart serve` start the very same app.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { DestinationStream } from 'pino';
import type { Config } from './config.js';
import type { Store } from './db/database.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { createTokenService } from './auth/tokens.service.js';
import { authRoutes, tokenRoutes } from './auth/auth.routes.js';
import { UserSchema } from './auth/auth.schema.js';
import { agentRegistrationRoutes } from './agents/agent-registration.routes.js';
import { discoveryRoutes } from './discovery/discovery.routes.js';
import type { AppContext } from './app-context.js';
import { requireBearer } from './auth/bearer.js';
import { ErrorSchema, ValidationErrorSchema } from './http/schemas.js';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './http/error-handler.js';
import { registerInputGuard } from './http/input-guard.js';
import { registerOpenApi } from './http/openapi.js';
import { registerRateLimit } from './http/rate-limit.js';
import { loggerOptions, requestId } from './shared/logger.js';
import { createAddressGuard } from './shared/address-guard.js';
import { RunQueue } from './scans/run-queue.js';
import { ScanSchema } from './scans/scans.schema.js';
import { scanRoutes } from './scans/scans.routes.js';
import { importRoutes } from './imports/imports.routes.js';
import { agentRoutes } from './local-agent/agent.routes.js';
import { agentDownloadRoutes } from './local-agent/agent-download.routes.js';
import { TargetSchema, VulnerabilitySchema } from './findings/findings.schema.js';
import { vulnerabilityRoutes } from './findings/vulnerabilities.routes.js';
import { targetRoutes } from './targets/targets.routes.js';
import { ensureTargets } from './targets/targets.service.js';
import { reportLinkRoutes, reportRoutes } from './reports/reports.routes.js';
import { webhookRoutes } from './webhooks/webhooks.routes.js';
import { userAdminRoutes } from './accounts/users.routes.js';
import { DeliverySchema, WebhookSchema } from './webhooks/webhooks.schema.js';
import { mcpRoutes } from './mcp/mcp.routes.js';
import { routeCatalog } from './mcp/tools.js';
import { createEngineRegistry, type EngineRegistry } from './engines/registry.js';
import { isPagePath, securityHeaders, webApplication } from './web/web.plugin.js';
import { registerPages } from './web/web.routes.js';
import { sendPage } from './web/render.js';
import { ErrorPage } from './web/pages/error.page.js';

export interface AppOptions {
  config: Config;
  store: Store;
  /** Defaults to the mailer the configuration describes (SMTP or .eml files). */
  mailer?: Mailer;
  /** Overrides the configured log level (tests pass 'silent'). */
  logLevel?: string;
  /** Where log lines go instead of stdout (tests read the real output from it). */
  logStream?: DestinationStream;
  /** Shared with in-process workers, so the API can wake and cancel them. */
  queue?: RunQueue;
  /** The clock of schedules (tests pass a controllable one). */
  clock?: () => Date;
  /** Which engine serves each scan type; defaults to the one the configuration describes. */
  engines?: EngineRegistry;
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, store } = options;
  const app = Fastify({
    logger: loggerOptions(options.logLevel ?? config.logLevel, options.logStream),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    genReqId: requestId,
    requestIdHeader: false,
    frameworkErrors,
    clientErrorHandler,
    // strictNumbers: Infinity in a JSON body (from 1e400) is no number; coerced query text is checked in http/input-guard.ts.
    ajv: { customOptions: { allErrors: true, coerceTypes: 'array', removeAdditional: true, useDefaults: true, strictNumbers: true } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const mailer = options.mailer ?? createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir });
  const tokens = await createTokenService(store.db, { secret: config.jwtSecret, previousSecret: config.jwtPreviousSecret, issuer: config.baseUrl, ttlSeconds: config.tokenTtlSeconds });
  const guard = createAddressGuard(config.allowTargets);
  const queue = options.queue ?? new RunQueue();
  const clock = options.clock ?? (() => new Date());
  const engines = options.engines ?? createEngineRegistry(config);
  const scans = { db: store.db, config, guard, queue, clock, engines, recordNamedTargets: ensureTargets };
  app.decorate('ctx', { config, db: store.db, tokens, mailer, guard, queue, clock, engines, scans } satisfies AppContext);
  app.decorateRequest('principal', null);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onClose', async () => mailer.close());

  app.addSchema(ErrorSchema);
  app.addSchema(ValidationErrorSchema);
  app.addSchema(UserSchema);
  app.addSchema(ScanSchema);
  app.addSchema(VulnerabilitySchema);
  app.addSchema(TargetSchema);
  app.addSchema(WebhookSchema);
  app.addSchema(DeliverySchema);
  registerErrorHandling(app, {
    baseUrl: config.baseUrl,
    bodyLimit: config.bodyLimit,
    // A browser asking for an unknown page gets the application's 404 page, not JSON.
    notFoundPage: (request, reply) =>
      request.method === 'GET' && isPagePath(request.url) && (request.headers.accept ?? '').includes('text/html')
        ? sendPage(reply.headers(securityHeaders(config.baseUrl)), ErrorPage({ status: 404, user: null, csrfToken: '' }), 404)
        : undefined,
  });
  await registerOpenApi(app, config.baseUrl);
  await registerRateLimit(app, config);
  registerInputGuard(app);

  // Every route's schema, for the MCP tools built from them.
  const routes = routeCatalog();
  app.addHook('onRoute', (route) => routes.record(route));

  await app.register(discoveryRoutes);
  await app.register(agentRegistrationRoutes);
  await app.register(
    async (api) => {
      await api.register(tokenRoutes);
      // A signed report link is its own credential (mail clients and chat services send no bearer).
      await api.register(reportLinkRoutes);
      // The local agent's routes take its scan-scoped credential, never a JWT.
      await api.register(agentRoutes);
      // Everything else under /api needs a bearer token.
      await api.register(async (authed) => {
        authed.addHook('onRequest', requireBearer);
        await authed.register(authRoutes);
        await authed.register(scanRoutes);
        await authed.register(importRoutes);
        await authed.register(agentDownloadRoutes);
        await authed.register(vulnerabilityRoutes);
        await authed.register(targetRoutes);
        await authed.register(reportRoutes);
        await authed.register(webhookRoutes);
        await authed.register(userAdminRoutes);
      });
    },
    { prefix: '/api' },
  );
  await app.register(mcpRoutes, { routes });
  // The web application at `/`: pages for people, on the same services as the API.
  await app.register(async (scope) => webApplication(scope, { pages: registerPages }));
  return app;
}
