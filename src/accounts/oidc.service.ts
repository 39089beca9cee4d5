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

/** How long a sign-in may take at the provider. */
export const OIDC_LOGIN_TTL_MS = 10 * 60_000;
/** Every request to the provider (discovery, token, userinfo) gives up after this long. */
export const OIDC_TIMEOUT_SECONDS = 10;
const SCOPE = 'openid email profile';

/** The deployment's provider and how Rampart is registered there. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  /** Absent for a public client (PKCE alone). */
  clientSecret: string | undefined;
  /** Rampart's callback, registered at the provider: `<base URL>/auth/oidc/callback`. */
  redirectUri: string;
  /** Seconds before a request to the provider is abandoned (tests shorten it). */
  timeoutSeconds?: number;
}

/** Why a sign-in failed, as the page tells it (each kind has its own status there). */
export type OidcFailureKind =
  | 'unavailable' // the provider cannot be reached or is too slow
  | 'denied' // the person cancelled or the provider refused (error=access_denied)
  | 'provider_error' // the provider answered the callback with another error
  | 'invalid_state' // unknown, used or foreign state, or no code
  | 'expired' // the login is older than OIDC_LOGIN_TTL_MS
  | 'exchange_failed' // the code exchange or the ID token checks failed
  | 'unverified_email' // no email, or the provider has not verified it
  | 'disabled' // the account exists but an admin disabled it
  | 'sign_up_closed'; // no account has this email and the deployment takes no sign-ups

/** A failed sign-in: a public message (no secret, no provider detail), the log's context, and where the person wanted to go. */
export class OidcSignInError extends Error {
  readonly kind: OidcFailureKind;
  readonly context: Record<string, unknown>;
  /** The local path of the login, when it was found (so "try again" keeps it). */
  readonly returnTo: string | undefined;

  constructor(kind: OidcFailureKind, message: string, options: { context?: Record<string, unknown>; returnTo?: string | undefined } = {}) {
    super(message);
    this.name = 'OidcSignInError';
    this.kind = kind;
    this.context = options.context ?? {};
    this.returnTo = options.returnTo;
  }
}

/**
 * Why an issuer may not be used, or undefined. http:// is accepted only on loopback (a provider
 * started beside Rampart, as tests do): anywhere else the tokens would cross the network in clear.
 */
export function issuerProblem(issuer: string): string | undefined {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return `RAMPART_OIDC_ISSUER is not a URL: ${issuer}`;
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return `RAMPART_OIDC_ISSUER must be an https:// URL (http:// is accepted only on loopback: 127.0.0.0/8, ::1, localhost); got ${url.origin}`;
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** `next` as a local path, else `/`: never an open redirect (src/shared/local-path.ts). */
export const localReturnPath = (next: unknown): string => localPath(next);

/** The SHA-256 under which a login is stored: the state bound to the browser that started it. */
function loginKey(binding: string, state: string): string {
  return sha256Hex(`${binding}.${state}`);
}

// The discovered configuration of each provider, per process. A failed discovery is forgotten,
// so the next sign-in tries again.
const configurations = new Map<string, Promise<client.Configuration>>();

function providerConfiguration(settings: OidcSettings): Promise<client.Configuration> {
  const key = JSON.stringify([settings.issuer, settings.clientId, settings.clientSecret ?? null, settings.timeoutSeconds ?? null]);
  let found = configurations.get(key);
  if (!found) {
    found = discover(settings);
    configurations.set(key, found);
    found.catch(() => configurations.delete(key));
  }
  return found;
}

async function discover(settings: OidcSettings): Promise<client.Configuration> {
  const problem = issuerProblem(settings.issuer);
  if (problem) throw new OidcSignInError('unavailable', 'Single sign-on is misconfigured on this Rampart.', { context: { problem } });
  const insecure = new URL(settings.issuer).protocol === 'http:';
  // client_secret_basic is the method every provider must support (RFC 6749 2.3.1).
  const auth = settings.clientSecret ? client.ClientSecretBasic(settings.clientSecret) : client.None();
  return client.discovery(new URL(settings.issuer), settings.clientId, undefined, auth, {
    timeout: settings.timeoutSeconds ?? OIDC_TIMEOUT_SECONDS,
    ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
  });
}

/** What failed while talking to the provider, for the log: names and codes, never tokens or secrets. */
function describe(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error: String(error) };
  const detail: Record<string, unknown> = { name: error.name, message: error.message };
  if (error instanceof client.ResponseBodyError) Object.assign(detail, { status: error.status, error: error.error, description: error.error_description });
  else if (error instanceof client.ClientError && error.code) detail.code = error.code;
  const cause = error.cause;
  if (cause instanceof Error) detail.cause = (cause as Error & { code?: string }).code ?? cause.message;
  return detail;
}

/** True when the provider could not be reached or did not answer in time (rather than answered no). */
function isUnreachable(error: unknown): boolean {
  if (error instanceof TypeError) return true; // fetch failed: refused, reset, DNS
  if (error instanceof client.ClientError) {
    return error.code === 'OAUTH_TIMEOUT' || error.code === 'OAUTH_ABORT' || (error.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' && !(error instanceof client.ResponseBodyError));
  }
  return false;
}

/** The provider's configuration, or an `unavailable` failure naming no detail. */
async function configurationOrFail(settings: OidcSettings, provider: string): Promise<client.Configuration> {
  try {
    return await providerConfiguration(settings);
  } catch (error) {
    if (error instanceof OidcSignInError) throw error;
    throw new OidcSignInError('unavailable', `${capitalised(provider)} cannot be reached right now, so Rampart could not start the sign-in.`, {
      context: { step: 'discovery', issuer: settings.issuer, ...describe(error) },
    });
  }
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

/** The provider's label at the start of a sentence ("single sign-on" becomes "Single sign-on"). */
function capitalised(provider: string): string {
  return provider.charAt(0).toUpperCase() + provider.slice(1);
}

/** A new random browser binding (the value of the OIDC cookie). */
export function newOidcBinding(): string {
  return randomToken(32);
}
