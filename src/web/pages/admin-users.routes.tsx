/**
 * The admins' users page: GET /admin/users (?search= by email, ?page=), and the row forms
 * POST /admin/users/:id/role, /disable and /enable. Anyone but an admin gets the 403 page (the
 * same refusal as the accounts API). A refused change comes back as the same list, status 422,
 * with the reason beside its row; the forms carry the list's query so the page stays where it was.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { changeUserRole, listAccounts, requireAdmin, setUserDisabled } from '../../accounts/users.service.js';
import { notFound } from '../../shared/errors.js';
import { parsePathId } from '../../shared/validation.js';
import { requireViewer, viewerOf } from '../web.plugin.js';
import { sendPage } from '../render.js';
import { redirectWithFlash, takeFlash } from '../flash.js';
import { formFailure, formText, queryText, type FormFailure } from './settings.form.js';
import { AdminUsersPage } from './admin-users.views.js';

const PER_PAGE = 25;

/** preHandler after requireViewer: a signed-in non-admin gets the 403 page saying why. */
async function adminsOnly(request: FastifyRequest): Promise<void> {
  requireAdmin(viewerOf(request).user);
}

/** The list's page and search from the query string (a bad page number is page 1). */
function listOf(request: FastifyRequest): { page: number; search: string } {
  const page = Number(queryText(request, 'page'));
  return { page: Number.isSafeInteger(page) && page >= 1 && page <= 10_000_000 ? page : 1, search: queryText(request, 'search').trim().slice(0, 255) };
}

/** Where a row form sends the admin back: the list as it was. */
function backTo(request: FastifyRequest): string {
  const { page, search } = listOf(request);
  const params = new URLSearchParams();
  if (search) params.set('search', search);
  if (page > 1) params.set('page', String(page));
  return `/admin/users${params.size > 0 ? `?${params.toString()}` : ''}`;
}

function targetId(request: FastifyRequest<{ Params: { id: string } }>): number {
  const id = parsePathId(request.params.id);
  if (id === undefined) throw notFound('User');
  return id;
}

export async function adminUserRoutes(app: FastifyInstance): Promise<void> {
  const { db } = app.ctx;
  const guard = { preHandler: [requireViewer, adminsOnly] };

  const render = async (request: FastifyRequest, reply: FastifyReply, failure?: FormFailure & { userId: number }) => {
    const { page, search } = listOf(request);
    const { items, total } = await listAccounts(db, { limit: PER_PAGE, offset: (page - 1) * PER_PAGE, search });
    const lastPage = Math.max(1, Math.ceil(total / PER_PAGE));
    const from = items.length > 0 ? (page - 1) * PER_PAGE + 1 : null;
    const meta = { current_page: page, last_page: lastPage, per_page: PER_PAGE, total, from, to: from === null ? null : from + items.length - 1 };
    const flash = failure ? null : takeFlash(request, reply);
    const view = (
      <AdminUsersPage viewer={viewerOf(request).user} csrfToken={request.web.csrfToken} flash={flash} accounts={items} meta={meta} search={search} page={page} failure={failure} />
    );
    return sendPage(reply, view, failure ? 422 : 200);
  };

  app.get('/admin/users', guard, async (request, reply) => render(request, reply));

  app.post<{ Params: { id: string } }>('/admin/users/:id/role', guard, async (request, reply) => {
    const id = targetId(request);
    try {
      const user = await changeUserRole(db, id, formText(request.body, 'role'));
      return redirectWithFlash(request, reply, backTo(request), { kind: 'success', text: `The plan of ${user.email} is now ${user.role}.` });
    } catch (error) {
      return render(request, reply, { ...formFailure(error), userId: id });
    }
  });

  for (const [action, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    app.post<{ Params: { id: string } }>(`/admin/users/:id/${action}`, guard, async (request, reply) => {
      const id = targetId(request);
      try {
        const user = await setUserDisabled(db, viewerOf(request).user, id, disabled);
        const text = disabled ? `${user.email} is disabled: signed out everywhere, and their API keys and tokens are refused.` : `${user.email} is enabled again.`;
        return redirectWithFlash(request, reply, backTo(request), { kind: 'success', text });
      } catch (error) {
        return render(request, reply, { ...formFailure(error), userId: id });
      }
    });
  }
}
