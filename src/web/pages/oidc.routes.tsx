/**
 * Sign-in through the deployment's OpenID Connect provider (config.oidc):
 * GET /auth/oidc?next=  starts it (redirect to the provider), GET /auth/oidc/callback finishes it
 * (a new session, then back to `next`). Every refusal is a page saying what happened, with a way
 * to try again; the details go to the log.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../../db/schema.js';
import { beginOidcSignIn, finishOidcSignIn, issuerProblem, localReturnPath, newOidcBinding, OidcSignInError, type OidcFailureKind, type OidcSettings } from '../../accounts/oidc.service.js';
import { rotateSession } from '../../accounts/sign-in.service.js';
import { sendErrorPage, sessionCookieOptions, sessionPolicy } from '../web.plugin.js';
import { redirectWithFlash } from '../flash.js';
import { sendPage } from '../render.js';
import { Layout } from '../layout.js';
import { browserClient, claimCleanup, setSessionCookie } from './sign-in.helpers.js';

/** How each refusal is answered: its status and the page's title. */
const FAILURES: Record<OidcFailureKind, { status: number; title: string; retry: boolean }> = {
  unavailable: { status: 503, title: 'Sign-in provider unavailable', retry: true },
  denied: { status: 403, title: 'Sign-in cancelled', retry: true },
  provider_error: { status: 502, title: 'Sign-in failed', retry: true },
  invalid_state: { status: 400, title: 'Sign-in link not valid', retry: true },
  expired: { status: 400, title: 'Sign-in expired', retry: true },
  exchange_failed: { status: 502, title: 'Sign-in not confirmed', retry: true },
  unverified_email: { status: 403, title: 'Email not verified', retry: true },
  disabled: { status: 403, title: 'Account disabled', retry: false },
  sign_up_closed: { status: 403, title: 'No account for this email', retry: false },
};

/** The page of a refused sign-in: what happened, and the ways on from here. */
export function OidcFailurePage(props: { status: number; title: string; message: string; retryHref: string | undefined; user: User | null; csrfToken: string }) {
  return (
    <Layout title={props.title} user={props.user} csrfToken={props.csrfToken} narrow>
      <div class="card error-page">
        <p class="status-code">{props.status}</p>
        <h1>{props.title}</h1>
        <p>{props.message}</p>
        <p class="row">
          {props.retryHref && (
            <a class="button" href={props.retryHref}>
              Try again
            </a>
          )}
          <a class={props.retryHref ? 'button secondary' : 'button'} href="/sign-in">
            Other ways to sign in
          </a>
        </p>
      </div>
    </Layout>
  );
}

/** The cookie binding a sign-in in flight to this browser (`__Host-` over HTTPS). */
function bindingCookie(secure: boolean): string {
  return `${secure ? '__Host-' : ''}rampart_oidc`;
}

export async function oidcRoutes(app: FastifyInstance): Promise<void> {
  const { config, db } = app.ctx;
  const oidc = config.oidc;
  // Refused at start-up rather than at the first sign-in: a cleartext provider off this machine
  // would expose codes and tokens, and the operator should learn it when starting, not from a user.
  const problem = oidc && issuerProblem(oidc.issuer);
  if (problem) throw new Error(problem);
  const secure = config.baseUrl.startsWith('https:');
  const cookie = bindingCookie(secure);
  const settings: OidcSettings | undefined = oidc && {
    issuer: oidc.issuer,
    clientId: oidc.clientId,
    clientSecret: oidc.clientSecret,
    redirectUri: `${config.baseUrl}/auth/oidc/callback`,
  };

  function refuse(request: FastifyRequest, reply: FastifyReply, error: OidcSignInError, fallbackNext: string): FastifyReply {
    const failure = FAILURES[error.kind];
    const level = failure.status >= 500 ? 'warn' : 'info';
    request.log[level]({ oidc: error.kind, ...error.context }, 'OpenID Connect sign-in refused');
    const next = error.returnTo ?? fallbackNext;
    const retryHref = failure.retry ? `/auth/oidc${next === '/' ? '' : `?next=${encodeURIComponent(next)}`}` : undefined;
    return sendPage(
      reply,
      OidcFailurePage({ status: failure.status, title: failure.title, message: error.message, retryHref, user: request.web.viewer?.user ?? null, csrfToken: request.web.csrfToken }),
      failure.status,
    );
  }

  app.get('/auth/oidc', async (request, reply) => {
    if (!oidc || !settings) return sendErrorPage(request, reply, 404);
    const next = localReturnPath((request.query as Record<string, unknown>).next);
    const existing = request.cookies[cookie];
    const binding = existing && /^[A-Za-z0-9_-]{43}$/.test(existing) ? existing : newOidcBinding();
    try {
      const target = await beginOidcSignIn(db, settings, { binding, returnTo: next, provider: oidc.name }, app.ctx.clock());
      reply.setCookie(cookie, binding, sessionCookieOptions(app, 600));
      return reply.redirect(target.href, 303);
    } catch (error) {
      if (error instanceof OidcSignInError) return refuse(request, reply, error, next);
      throw error;
    }
  });

  app.get('/auth/oidc/callback', async (request, reply) => {
    if (!oidc || !settings) return sendErrorPage(request, reply, 404);
    try {
      const signedIn = await finishOidcSignIn(
        db,
        settings,
        { callbackUrl: new URL(request.url, config.baseUrl), binding: request.cookies[cookie], provider: oidc.name, signUp: config.web.signUp, cleanup: claimCleanup },
        app.ctx.clock(),
      );
      // A new session every sign-in (rotation); the browser's previous one, whoever it was, ends.
      setSessionCookie(request, reply, await rotateSession(db, signedIn.user, sessionPolicy(app), browserClient(request)));
      const text = signedIn.created
        ? `Welcome to Rampart. Your account ${signedIn.user.email} was created through ${oidc.name}.`
        : `Signed in as ${signedIn.user.email} through ${oidc.name}.`;
      return redirectWithFlash(request, reply, signedIn.returnTo, { kind: 'success', text });
    } catch (error) {
      if (error instanceof OidcSignInError) return refuse(request, reply, error, '/');
      throw error;
    }
  });
}
