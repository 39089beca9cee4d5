/** POST /sign-out: the session ends in the store and its cookie is cleared. */
import type { FastifyInstance } from 'fastify';
import { endSession } from '../../accounts/sessions.service.js';
import { cookieAttributes, cookieNames } from '../web-context.js';
import { redirectWithFlash } from '../flash.js';

export async function signOutRoutes(app: FastifyInstance): Promise<void> {
  app.post('/sign-out', async (request, reply) => {
    const viewer = request.web.viewer;
    if (viewer) await endSession(app.ctx.db, viewer.sessionIdHash);
    const secure = app.ctx.config.baseUrl.startsWith('https:');
    reply.clearCookie(cookieNames(secure).session, cookieAttributes(secure));
    return redirectWithFlash(request, reply, '/sign-in', { kind: 'success', text: 'You are signed out.' });
  });
}
