/**
 * GET /verify-email?token= (the mailed link: a page with a button, the link checked, not spent),
 * POST /verify-email (the button: the link spent, the address verified, the browser signed in) and
 * POST /verify-email/resend (a new link). The GET changes nothing: a mail scanner fetching the link
 * must not spend it, and a link an attacker sends a victim must not sign the victim's browser in
 * to the attacker's account (login CSRF); the POST carries the CSRF token of the page's own form.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../shared/errors.js';
import { checkVerificationLink, resendVerification, verifyEmail } from '../../accounts/sign-up.service.js';
import { redirectWithFlash } from '../flash.js';
import { sendPage } from '../render.js';
import { CheckMailPage, ConfirmEmailPage, VerifyFailedPage } from './verify-email.views.js';
import { browserClient, formText, orMailFailurePage, policyOf, queryText, setSessionCookie } from './sign-in.helpers.js';

/** Registers GET and POST /verify-email and POST /verify-email/resend. */
export async function verifyEmailRoutes(app: FastifyInstance): Promise<void> {
  const { config, db, mailer } = app.ctx;
  const base = (request: FastifyRequest) => ({ user: request.web.viewer?.user ?? null, csrfToken: request.web.csrfToken });

  /** A link that cannot be used: the 422 page saying why; anything else goes on to the error page. */
  const linkFailed = (request: FastifyRequest, reply: FastifyReply, error: unknown) => {
    const message = error instanceof AppError ? error.errors?.token?.[0] : undefined;
    if (message) return sendPage(reply, <VerifyFailedPage {...base(request)} message={message} />, 422);
    throw error;
  };

  app.get('/verify-email', async (request, reply) => {
    const token = queryText(request, 'token');
    try {
      const { email } = await checkVerificationLink(db, token);
      return sendPage(reply, <ConfirmEmailPage {...base(request)} token={token} email={email} />);
    } catch (error) {
      return linkFailed(request, reply, error);
    }
  });

  app.post('/verify-email', async (request, reply) => {
    try {
      const { session } = await verifyEmail(db, formText(request, 'token'), { policy: policyOf(request), client: browserClient(request) });
      setSessionCookie(request, reply, session);
      return redirectWithFlash(request, reply, '/', { kind: 'success', text: 'Your email address is verified. Welcome to Rampart.' });
    } catch (error) {
      return linkFailed(request, reply, error);
    }
  });

  app.post('/verify-email/resend', async (request, reply) => {
    const email = formText(request, 'email').trim();
    return orMailFailurePage(request, reply, async () => {
      try {
        await resendVerification(db, mailer, email, { baseUrl: config.baseUrl });
      } catch (error) {
        if (error instanceof AppError && error.code === 'validation_failed') {
          return sendPage(reply, <VerifyFailedPage {...base(request)} message="Give the email address to send the link to." />, 422);
        }
        throw error;
      }
      return sendPage(reply, <CheckMailPage {...base(request)} email={email} resent />);
    });
  });
}
