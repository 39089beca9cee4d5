/**
 * Every page of the web application, by area. Each area is one plugin in src/web/pages/ that
 * registers its routes inside the web scope (web.plugin.ts): session, CSRF and error pages apply.
 */
import type { FastifyInstance } from 'fastify';
import { signOutRoutes } from './pages/sign-out.routes.js';
import { scanPages } from './pages/scans.routes.js';

/** The page plugins, in the order they register. */
export async function registerPages(scope: FastifyInstance): Promise<void> {
  await scope.register(signOutRoutes);
  await scope.register(scanPages);
}
