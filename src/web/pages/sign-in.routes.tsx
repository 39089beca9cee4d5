/** GET/POST /sign-in: email and password; a new session and back to `next` (a local path) or `/`. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../shared/errors.js';
import { signIn, SignInRefusedError } from '../../accounts/sign-in.service.js';
import { SignInLockedError } from '../../accounts/sign-in-throttle.service.js';
import { takeFlash } from '../flash.js';
import { sendPage } from '../render.js';
import { SignInPage, type SignInView } from './sign-in.views.js';
import { browserClient, formText, policyOf, queryText, safeNext, setSessionCookie } from './sign-in.helpers.js';

/** Registers GET/POST /sign-in. */
export async function signInRoutes(app: FastifyInstance): Promise<void> {
  const { config, db } = app.ctx;
  const page = (request: FastifyRequest, reply: FastifyReply, view: Omit<SignInView, 'user' | 'csrfToken' | 'signUp' | 'oidcName'>, status = 200) =>
    sendPage(reply, <SignInPage user={request.web.viewer?.user ?? null} csrfToken={request.web.csrfToken} signUp={config.web.signUp} oidcName={config.oidc?.name} {...view} />, status);

  app.get('/sign-in', async (request, reply) => page(request, reply, { next: safeNext(queryText(request, 'next')), flash: takeFlash(request, reply) }));

  app.post('/sign-in', async (request, reply) => {
    const next = safeNext(formText(request, 'next'));
    const email = formText(request, 'email');
    try {
      const { session } = await signIn(db, { email, password: formText(request, 'password') }, {
        policy: policyOf(request),
        requireVerification: config.web.requireEmailVerification,
        client: browserClient(request),
      });
      setSessionCookie(request, reply, session);
      return reply.redirect(next, 303);
    } catch (error) {
      if (error instanceof SignInLockedError) {
        reply.header('retry-after', String(error.retryAfterSeconds));
        return page(request, reply, { next, email, error: error.message }, 429);
      }
      if (error instanceof SignInRefusedError) {
        return page(request, reply, { next, email, error: error.message, unverified: error.reason === 'unverified' }, error.reason === 'credentials' ? 422 : 403);
      }
      if (error instanceof AppError && error.code === 'validation_failed') return page(request, reply, { next, email, errors: error.errors }, 422);
      throw error;
    }
  });
}
