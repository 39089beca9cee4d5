/**
 * Sign-in through an OpenID Connect provider (authorisation code flow with PKCE S256, `state` and
 * `nonce`), with openid-client. The provider's verified email identifies the account: an existing
 * one (any case) is signed in, otherwise one is created at the default plan, without a password.
 *
 * A sign-in in flight is a row of oidc_logins keyed by the SHA-256 of the browser's binding (a
 * random cookie) and the `state`: a callback URL replayed, or opened in another browser (login
 * CSRF: an attacker's own code and state planted in a victim's browser), finds nothing.
 *
 * Glossary: *issuer* the provider's identifier URL; *login* one sign-in in flight; *binding* the
 * random value of the browser's OIDC cookie.
 */
import * as client from 'openid-client';
import { AppError } from '../shared/errors.js';
import { localPath } from '../shared/local-path.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import type { Db } from '../db/database.js';
import type { User } from '../db/schema.js';
import { claimUnverifiedAccount, createUser, findUserByEmail, type AccountClaimCleanup } from './users.service.js';
import * as logins from './oidc-logins.queries.js';
import { capitalised, configurationOrFail, describe, isUnreachable, OidcSignInError, type OidcSettings } from './oidc-provider.js';

export { issuerProblem, OidcSignInError, type OidcFailureKind, type OidcSettings } from './oidc-provider.js';

/** How long a sign-in may take at the provider. */
export const OIDC_LOGIN_TTL_MS = 10 * 60_000;
const SCOPE = 'openid email profile';

/** `next` as a local path, else `/`: never an open redirect (src/shared/local-path.ts). */
export const localReturnPath = (next: unknown): string => localPath(next);

/** The SHA-256 under which a login is stored: the state bound to the browser that started it. */
function loginKey(binding: string, state: string): string {
  return sha256Hex(`${binding}.${state}`);
}

/**
 * Starts a sign-in: stores the login (PKCE verifier, nonce, where to return) for ten minutes and
 * returns the provider's authorisation URL to redirect the browser to.
 */
export async function beginOidcSignIn(
  db: Db,
  settings: OidcSettings,
  input: { binding: string; returnTo: string; provider: string },
  now = new Date(),
): Promise<URL> {
  const config = await configurationOrFail(settings, input.provider);
  const state = client.randomState();
  const nonce = client.randomNonce();
  const codeVerifier = client.randomPKCECodeVerifier();
  const codeChallenge = await client.calculatePKCECodeChallenge(codeVerifier);
  await logins.deleteExpiredOidcLogins(db, now);
  await logins.insertOidcLogin(db, {
    state_hash: loginKey(input.binding, state),
    code_verifier: codeVerifier,
    nonce,
    return_to: localReturnPath(input.returnTo),
    expires_at: new Date(now.getTime() + OIDC_LOGIN_TTL_MS),
  });
  return client.buildAuthorizationUrl(config, {
    redirect_uri: settings.redirectUri,
    scope: SCOPE,
    state,
    nonce,
    code_challenge: codeChallenge,
    code_challenge_method: 'S256',
  });
}

/** A finished sign-in: the account, whether it was just created, and the local path to go to. */
export interface OidcSignIn {
  user: User;
  created: boolean;
  returnTo: string;
}

/**
 * Finishes a sign-in from the provider's callback URL: takes the login (single use), exchanges
 * the code (PKCE verifier, nonce and issuer checked by openid-client), reads the email (ID token,
 * else userinfo), and finds or creates the account. Throws OidcSignInError for every refusal.
 */
export async function finishOidcSignIn(
  db: Db,
  settings: OidcSettings,
  input: { callbackUrl: URL; binding: string | undefined; provider: string; signUp: boolean; cleanup: AccountClaimCleanup },
  now = new Date(),
): Promise<OidcSignIn> {
  const { callbackUrl, provider } = input;
  const state = callbackUrl.searchParams.get('state') ?? '';
  const login = state && input.binding ? await logins.takeOidcLogin(db, loginKey(input.binding, state)) : undefined;
  const returnTo = login?.return_to;
  const providerError = callbackUrl.searchParams.get('error');
  if (providerError) {
    const context = { step: 'authorization', error: providerError.slice(0, 100), description: callbackUrl.searchParams.get('error_description')?.slice(0, 300), known: Boolean(login) };
    if (providerError === 'access_denied') throw new OidcSignInError('denied', `The sign-in was cancelled at ${provider}, or ${provider} refused it.`, { context, returnTo });
    if (providerError === 'temporarily_unavailable') throw new OidcSignInError('unavailable', `${capitalised(provider)} is unavailable right now.`, { context, returnTo });
    throw new OidcSignInError('provider_error', `${capitalised(provider)} could not complete the sign-in.`, { context, returnTo });
  }
  if (!login) {
    throw new OidcSignInError('invalid_state', 'This sign-in link is not valid: it was already used, was started in another browser, or was changed.', {
      context: { step: 'state', hasState: Boolean(state), hasBinding: Boolean(input.binding) },
    });
  }
  if (login.expires_at.getTime() <= now.getTime()) {
    throw new OidcSignInError('expired', `This sign-in took longer than ${OIDC_LOGIN_TTL_MS / 60_000} minutes and has expired.`, { context: { step: 'state' }, returnTo });
  }

  const config = await configurationOrFail(settings, provider);
  let claims: Record<string, unknown>;
  try {
    const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: login.code_verifier,
      expectedNonce: login.nonce,
      expectedState: state,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims();
    if (!idClaims) throw new client.ClientError('no ID token');
    claims = { ...idClaims };
    // Providers that follow the spec closely put profile claims only in userinfo when an access token is issued.
    if (typeof claims.email !== 'string' || claims.email_verified === undefined) {
      const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      claims = { ...claims, ...info };
    }
  } catch (error) {
    const context = { step: 'token', issuer: settings.issuer, ...describe(error) };
    if (isUnreachable(error)) throw new OidcSignInError('unavailable', `${capitalised(provider)} could not be reached or did not answer properly, so the sign-in could not be completed.`, { context, returnTo });
    throw new OidcSignInError('exchange_failed', `${capitalised(provider)} did not confirm the sign-in.`, { context, returnTo });
  }
  const user = await accountFor(db, claims, { provider, signUp: input.signUp, returnTo: login.return_to, cleanup: input.cleanup });
  return { ...user, returnTo: login.return_to };
}

/** The account of verified claims: found by email (any case), or created at the default plan. */
async function accountFor(db: Db, claims: Record<string, unknown>, options: { provider: string; signUp: boolean; returnTo: string; cleanup: AccountClaimCleanup }): Promise<{ user: User; created: boolean }> {
  const email = typeof claims.email === 'string' ? claims.email.trim() : '';
  // Some providers send the boolean as a string.
  const verified = claims.email_verified === true || claims.email_verified === 'true';
  const { provider, returnTo } = options;
  if (!email) {
    throw new OidcSignInError('unverified_email', `${capitalised(provider)} did not share an email address, and Rampart accounts are identified by email. Allow Rampart to see your email at ${provider}, then try again.`, {
      context: { step: 'claims', sub: claims.sub },
      returnTo,
    });
  }
  if (!verified) {
    throw new OidcSignInError('unverified_email', `${capitalised(provider)} has not verified the email address ${email}. Verify it at ${provider}, then try again, or sign in with your email and password.`, {
      context: { step: 'claims', sub: claims.sub },
      returnTo,
    });
  }
  const existing = await findUserByEmail(db, email);
  if (existing) return { user: await admit(db, existing, returnTo, options.cleanup), created: false };
  if (!options.signUp) {
    throw new OidcSignInError('sign_up_closed', `No Rampart account uses ${email}, and this Rampart does not take new sign-ups. Ask its administrator for an account.`, {
      context: { step: 'account' },
      returnTo,
    });
  }
  const name = typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim().slice(0, 255) : undefined;
  try {
    return { user: await createUser(db, { email, name, emailVerified: true }), created: true };
  } catch (error) {
    // Two first sign-ins at once: the other one created the account.
    const raced = await findUserByEmail(db, email);
    if (raced) return { user: await admit(db, raced, returnTo, options.cleanup), created: false };
    if (error instanceof AppError && error.code === 'validation_failed') {
      throw new OidcSignInError('unverified_email', `${capitalised(provider)} gave an email address Rampart cannot use (${email.slice(0, 100)}).`, { context: { step: 'account', errors: error.errors }, returnTo });
    }
    throw error;
  }
}

/**
 * Lets an existing account in, unless disabled. An address the account had not verified is now
 * proven by the provider: the account is claimed (claimUnverifiedAccount: the password whoever
 * signed up first chose is removed, as are their sessions, keys, pending links and webhooks).
 */
async function admit(db: Db, user: User, returnTo: string, cleanup: AccountClaimCleanup): Promise<User> {
  if (user.disabled_at) {
    throw new OidcSignInError('disabled', 'This account is disabled. Ask the administrator of this Rampart to enable it.', { context: { step: 'account', userId: user.id }, returnTo });
  }
  if (!user.email_verified_at) {
    await claimUnverifiedAccount(db, user.id, cleanup);
    return { ...user, email_verified_at: new Date(), password_hash: null };
  }
  return user;
}

/** A new random browser binding (the value of the OIDC cookie). */
export function newOidcBinding(): string {
  return randomToken(32);
}
