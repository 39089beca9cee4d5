/** GET/POST /sign-up (when the deployment allows sign-up): a new account, then "check your mail" or signed in at once. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, notFound } from '../../shared/errors.js';
import { signUp } from '../../accounts/sign-up.service.js';
import { redirectWithFlash, takeFlash } from '../flash.js';
import { sendPage } from '../render.js';
import { SignUpPage } from './sign-up.views.js';
import { CheckMailPage } from './verify-email.views.js';
import { browserClient, formText, orMailFailurePage, policyOf, setSessionCookie } from './sign-in.helpers.js';

/** Registers GET/POST /sign-up (a 404 page when RAMPART_SIGN_UP is off). */
export async function signUpRoutes(app: FastifyInstance): Promise<void> {
  const { config, db, mailer } = app.ctx;
  const base = (request: FastifyRequest) => ({ user: request.web.viewer?.user ?? null, csrfToken: request.web.csrfToken });
  // Without sign-up the page does not exist (and no page links to it).
  const open = async () => {
    if (!config.web.signUp) throw notFound('Page');
  };

  app.get('/sign-up', { preHandler: open }, async (request, reply) => sendPage(reply, <SignUpPage {...base(request)} flash={takeFlash(request, reply)} />));

  app.post('/sign-up', { preHandler: open }, async (request, reply: FastifyReply) => {
    const values = { email: formText(request, 'email'), name: formText(request, 'name') };
    return orMailFailurePage(request, reply, async () => {
      try {
        const outcome = await signUp(
          db,
          mailer,
          { ...values, password: formText(request, 'password'), password_confirmation: formText(request, 'password_confirmation') },
          { baseUrl: config.baseUrl, requireVerification: config.web.requireEmailVerification, policy: policyOf(request), client: browserClient(request) },
        );
        if (outcome.kind === 'check-mail') return sendPage(reply, <CheckMailPage {...base(request)} email={outcome.email} />);
        setSessionCookie(request, reply, outcome.session);
        return redirectWithFlash(request, reply, '/', { kind: 'success', text: 'Welcome to Rampart: your account is ready.' });
      } catch (error) {
        if (error instanceof AppError && error.code === 'validation_failed') {
          return sendPage(reply, <SignUpPage {...base(request)} values={values} errors={error.errors} message="Check the fields marked below." />, 422);
        }
        throw error;
      }
    });
  });
}
