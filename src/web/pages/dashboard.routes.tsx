/**
 * GET /: the dashboard home of a signed-in account; anyone else is sent to sign in. Each box is
 * one bounded query of the module that owns its data (findings, scans); a box whose query fails
 * shows its error state while the others still show.
 */
import type { FastifyInstance } from 'fastify';
import { knownExploitedFindings, newestUnresolvedFindings, unresolvedByThreat } from '../../findings/findings-overview.service.js';
import { runsInProgress, scansDueNext } from '../../scans/scans-overview.service.js';
import { takeFlash } from '../flash.js';
import { sendPage } from '../render.js';
import { DashboardPage, type Box } from './dashboard.views.js';

/** Rows per list box. */
const LIST_LIMIT = 8;

export async function dashboardPages(app: FastifyInstance): Promise<void> {
  const { db } = app.ctx;

  app.get('/', async (request, reply) => {
    const viewer = request.web.viewer;
    // The way in for someone not signed in: the sign-in page, with no `next` (here is its default).
    if (!viewer) return reply.redirect('/sign-in', 303);
    const userId = viewer.user.id;
    const box = async <T,>(read: () => Promise<T>): Promise<Box<T>> => {
      try {
        return { ok: true, value: await read() };
      } catch (error) {
        request.log.error({ err: error }, 'dashboard box failed');
        return { ok: false };
      }
    };
    // One after another: an embedded store has one connection, so parallel reads would only queue.
    const data = {
      threats: await box(() => unresolvedByThreat(db, userId)),
      newest: await box(() => newestUnresolvedFindings(db, userId, LIST_LIMIT)),
      kev: await box(() => knownExploitedFindings(db, userId, LIST_LIMIT)),
      due: await box(() => scansDueNext(db, userId, LIST_LIMIT)),
      running: await box(() => runsInProgress(db, userId, LIST_LIMIT)),
    };
    const frame = { user: viewer.user, csrfToken: request.web.csrfToken, flash: takeFlash(request, reply) };
    return sendPage(reply, <DashboardPage frame={frame} data={data} />);
  });
}
