/** POST /sign-out: the session ends in the store and its cookie is cleared. */
import type { FastifyInstance } from 'fastify';
import { endSession } from '../../accounts/sessions.service.js';
import { cookieNames } from '../web-context.js';
import { redirectWithFlash } from '../flash.js';

export async function signOutRoutes(app: FastifyInstance): Promise<void> {
  app.post('/sign-out', async (request, reply) => {
    const viewer = request.web.viewer;
    if (viewer) await endSession(app.ctx.db, viewer.sessionIdHash);
    reply.clearCookie(cookieNames(app.ctx.config.baseUrl.startsWith('https:')).session, { path: '/' });
    return redirectWithFlash(request, reply, '/sign-in', { kind: 'success', text: 'You are signed out.' });
  });
}
