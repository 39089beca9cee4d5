/** GET /verify-email?token= (the mailed link: verified and signed in) and POST /verify-email/resend (a new link). */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../shared/errors.js';
import { resendVerification, verifyEmail } from '../../accounts/sign-up.service.js';
import { redirectWithFlash } from '../flash.js';
import { sendPage } from '../render.js';
import { CheckMailPage, VerifyFailedPage } from './verify-email.views.js';
import { browserClient, formText, orMailFailurePage, policyOf, queryText, setSessionCookie } from './sign-in.helpers.js';

/** Registers GET /verify-email and POST /verify-email/resend. */
export async function verifyEmailRoutes(app: FastifyInstance): Promise<void> {
  const { config, db, mailer } = app.ctx;
  const base = (request: FastifyRequest) => ({ user: request.web.viewer?.user ?? null, csrfToken: request.web.csrfToken });

  app.get('/verify-email', async (request, reply) => {
    try {
      const { session } = await verifyEmail(db, queryText(request, 'token'), { policy: policyOf(request), client: browserClient(request) });
      setSessionCookie(request, reply, session);
      return redirectWithFlash(request, reply, '/', { kind: 'success', text: 'Your email address is verified. Welcome to Rampart.' });
    } catch (error) {
      const message = error instanceof AppError ? error.errors?.token?.[0] : undefined;
      if (message) return sendPage(reply, <VerifyFailedPage {...base(request)} message={message} />, 422);
      throw error;
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
