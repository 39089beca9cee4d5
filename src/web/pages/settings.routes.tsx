/**
 * Settings, profile page: GET /settings, and the forms it posts (name, password, email), plus the
 * page a confirmation link of an email change lands on (GET /settings/email/confirm?token=).
 * A form that fails comes back with status 422, its errors beside its fields and what was typed
 * (passwords excepted: they are never written into a page).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { changePassword, changeUserName } from '../../accounts/users.service.js';
import { confirmEmailChange, requestEmailChange } from '../../accounts/email-change.service.js';
import { SignInLockedError } from '../../accounts/sign-in-throttle.service.js';
import { requireViewer, sessionCookieOptions, sessionPolicy, viewerOf } from '../web.plugin.js';
import { sendPage } from '../render.js';
import { redirectWithFlash, takeFlash } from '../flash.js';
import { cookieNames } from '../web-context.js';
import { formFailure, formText, queryText } from './settings.form.js';
import { browserClient } from './sign-in.helpers.js';
import { EmailConfirmPage, SettingsPage, type SettingsFormState } from './settings.views.js';
import { apiKeyRoutes } from './api-keys.routes.js';
import { adminUserRoutes } from './admin-users.routes.js';

export async function settingsRoutes(app: FastifyInstance): Promise<void> {
  const { db, config, mailer } = app.ctx;

  /** The profile page; with `failed`, the form that failed is shown again with status 422 (or `status`). */
  const renderSettings = (request: FastifyRequest, reply: FastifyReply, failed?: SettingsFormState, status = 422) => {
    const user = viewerOf(request).user;
    const flash = failed ? null : takeFlash(request, reply);
    const page = <SettingsPage user={user} csrfToken={request.web.csrfToken} flash={flash} ratePerMinute={config.rateLimits[user.role]} failed={failed} />;
    return sendPage(reply, page, failed ? status : 200);
  };

  /**
   * A form that proves the current password and failed: a locked account (too many wrong
   * passwords, here or at sign-in) is a 429 with the sign-in form's lock-out text beside the
   * current password; field errors a 422.
   */
  const renderFailure = (request: FastifyRequest, reply: FastifyReply, form: 'password' | 'email', values: Record<string, string>, error: unknown) => {
    if (error instanceof SignInLockedError) {
      reply.header('retry-after', String(error.retryAfterSeconds));
      return renderSettings(request, reply, { form, errors: { current_password: [error.message] }, values }, 429);
    }
    return renderSettings(request, reply, { form, errors: formFailure(error).errors, values });
  };

  app.get('/settings', { preHandler: requireViewer }, async (request, reply) => renderSettings(request, reply));

  app.post('/settings/name', { preHandler: requireViewer }, async (request, reply) => {
    const name = formText(request.body, 'name');
    try {
      await changeUserName(db, viewerOf(request).user.id, name);
    } catch (error) {
      return renderSettings(request, reply, { form: 'name', errors: formFailure(error).errors, values: { name } });
    }
    return redirectWithFlash(request, reply, '/settings', { kind: 'success', text: 'Name saved.' });
  });

  app.post('/settings/password', { preHandler: requireViewer }, async (request, reply) => {
    const viewer = viewerOf(request);
    const input = {
      current_password: formText(request.body, 'current_password'),
      password: formText(request.body, 'password'),
      password_confirmation: formText(request.body, 'password_confirmation'),
    };
    let started;
    try {
      started = await changePassword(db, viewer.user.id, input, { policy: sessionPolicy(app), client: browserClient(request) });
    } catch (error) {
      return renderFailure(request, reply, 'password', {}, error);
    }
    // The old session ended with the others: this browser carries on with the new one.
    const maxAge = Math.max(1, Math.floor((started.expiresAt.getTime() - Date.now()) / 1000));
    reply.setCookie(cookieNames(config.baseUrl.startsWith('https:')).session, started.token, sessionCookieOptions(app, maxAge));
    return redirectWithFlash(request, reply, '/settings', { kind: 'success', text: 'Password changed. Every other browser signed in to this account was signed out.' });
  });

  app.post('/settings/email', { preHandler: requireViewer }, async (request, reply) => {
    const email = formText(request.body, 'email');
    let sentTo: string;
    try {
      sentTo = await requestEmailChange(db, mailer, config.baseUrl, viewerOf(request).user.id, { email, current_password: formText(request.body, 'current_password') });
    } catch (error) {
      return renderFailure(request, reply, 'email', { email }, error);
    }
    return redirectWithFlash(request, reply, '/settings', {
      kind: 'info',
      text: `We sent a confirmation link to ${sentTo}. Your address changes when you follow it (within 24 hours).`,
    });
  });

  // Not behind requireViewer: the link may be opened in another browser; the token is the proof.
  app.get('/settings/email/confirm', async (request, reply) => {
    const viewer = request.web.viewer;
    try {
      const user = await confirmEmailChange(db, queryText(request, 'token'));
      const shown = viewer && viewer.user.id === user.id ? user : (viewer?.user ?? null);
      return sendPage(reply, <EmailConfirmPage user={shown} csrfToken={request.web.csrfToken} email={user.email} />);
    } catch (error) {
      const problem = formFailure(error).message;
      return sendPage(reply, <EmailConfirmPage user={viewer?.user ?? null} csrfToken={request.web.csrfToken} problem={problem} />, 422);
    }
  });
}

/** The pages of this area, registered by web.routes.ts in one line: settings, API keys, the admins' users page. */
export async function settingsPages(app: FastifyInstance): Promise<void> {
  await app.register(settingsRoutes);
  await app.register(apiKeyRoutes);
  await app.register(adminUserRoutes);
}
