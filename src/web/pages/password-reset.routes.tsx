/**
 * GET/POST /forgot-password (a reset link by mail, the same answer for any address) and
 * GET/POST /reset-password?token= (the new password; the link is spent only by a valid one).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../shared/errors.js';
import { checkResetLink, requestPasswordReset, resetPassword } from '../../accounts/password-reset.service.js';
import { redirectWithFlash, takeFlash } from '../flash.js';
import { sendPage } from '../render.js';
import { ForgotPasswordPage, ResetLinkFailedPage, ResetLinkSentPage, ResetPasswordPage } from './password-reset.views.js';
import { browserClient, claimCleanup, formText, orMailFailurePage, policyOf, queryText, setSessionCookie } from './sign-in.helpers.js';

/** The message of a link that cannot be used, when that is what the error is. */
function linkProblem(error: unknown): string | undefined {
  return error instanceof AppError ? error.errors?.token?.[0] : undefined;
}

/** Registers GET/POST /forgot-password and GET/POST /reset-password. */
export async function passwordResetRoutes(app: FastifyInstance): Promise<void> {
  const { config, db, mailer } = app.ctx;
  const base = (request: FastifyRequest) => ({ user: request.web.viewer?.user ?? null, csrfToken: request.web.csrfToken });
  const linkFailed = (request: FastifyRequest, reply: FastifyReply, message: string) => sendPage(reply, <ResetLinkFailedPage {...base(request)} message={message} />, 422);

  app.get('/forgot-password', async (request, reply) => sendPage(reply, <ForgotPasswordPage {...base(request)} flash={takeFlash(request, reply)} />));

  app.post('/forgot-password', async (request, reply) => {
    const email = formText(request, 'email').trim();
    return orMailFailurePage(request, reply, async () => {
      try {
        await requestPasswordReset(db, mailer, email, { baseUrl: config.baseUrl });
      } catch (error) {
        if (error instanceof AppError && error.code === 'validation_failed') return sendPage(reply, <ForgotPasswordPage {...base(request)} email={email} errors={error.errors} />, 422);
        throw error;
      }
      return sendPage(reply, <ResetLinkSentPage {...base(request)} email={email} />);
    });
  });

  app.get('/reset-password', async (request, reply) => {
    const token = queryText(request, 'token');
    try {
      const { email } = await checkResetLink(db, token);
      return sendPage(reply, <ResetPasswordPage {...base(request)} token={token} email={email} />);
    } catch (error) {
      const message = linkProblem(error);
      if (message) return linkFailed(request, reply, message);
      throw error;
    }
  });

  app.post('/reset-password', async (request, reply) => {
    const token = formText(request, 'token');
    try {
      const { session } = await resetPassword(
        db,
        { token, password: formText(request, 'password'), password_confirmation: formText(request, 'password_confirmation') },
        { policy: policyOf(request), client: browserClient(request), cleanup: claimCleanup },
      );
      setSessionCookie(request, reply, session);
      return redirectWithFlash(request, reply, '/', { kind: 'success', text: 'Password changed. Every other browser signed in to your account has been signed out.' });
    } catch (error) {
      const message = linkProblem(error);
      if (message) return linkFailed(request, reply, message);
      if (error instanceof AppError && error.code === 'validation_failed') {
        const { email } = await checkResetLink(db, token);
        return sendPage(reply, <ResetPasswordPage {...base(request)} token={token} email={email} errors={error.errors} message="Check the fields marked below." />, 422);
      }
      throw error;
    }
  });
}
