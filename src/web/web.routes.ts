/**
 * Every page of the web application, by area. Each area is one plugin in src/web/pages/ that
 * registers its routes inside the web scope (web.plugin.ts): session, CSRF and error pages apply.
 */
import type { FastifyInstance } from 'fastify';
import { signOutRoutes } from './pages/sign-out.routes.js';
import { settingsPages } from './pages/settings.routes.js';
import { oidcRoutes } from './pages/oidc.routes.js';
import { findingsPages } from './pages/vulnerabilities.routes.js';
import { accountEntryRoutes } from './pages/account-entry.routes.js';
import { dashboardPages } from './pages/dashboard.routes.js';
import { webhookPages } from './pages/webhooks.routes.js';
import { scanPages } from './pages/scans.routes.js';

/** The page plugins, in the order they register. */
export async function registerPages(scope: FastifyInstance): Promise<void> {
  await scope.register(signOutRoutes);
  await scope.register(settingsPages);
  await scope.register(oidcRoutes);
  await scope.register(findingsPages);
  await scope.register(accountEntryRoutes);
  await scope.register(dashboardPages);
  await scope.register(webhookPages);
  await scope.register(scanPages);
}
