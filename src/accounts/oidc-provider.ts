/**
 * The OpenID Connect provider as openid-client sees it (src/accounts/oidc.service.ts runs the
 * sign-in): the deployment's settings, which issuers are accepted, discovery cached per process
 * with a time limit on every call, and the errors a sign-in can end in.
 */
import * as client from 'openid-client';
import { AppError } from '../shared/errors.js';

/** Every request to the provider (discovery, token, userinfo) gives up after this long. */
export const OIDC_TIMEOUT_SECONDS = 10;
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

// The discovered configuration of each provider, per process. A failed discovery is forgotten,
// so the next sign-in tries again.
const configurations = new Map<string, Promise<client.Configuration>>();

export function providerConfiguration(settings: OidcSettings): Promise<client.Configuration> {
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
export function describe(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error: String(error) };
  const detail: Record<string, unknown> = { name: error.name, message: error.message };
  if (error instanceof client.ResponseBodyError) Object.assign(detail, { status: error.status, error: error.error, description: error.error_description });
  else if (error instanceof client.ClientError && error.code) detail.code = error.code;
  const cause = error.cause;
  if (cause instanceof Error) detail.cause = (cause as Error & { code?: string }).code ?? cause.message;
  return detail;
}

/** True when the provider could not be reached or did not answer in time (rather than answered no). */
export function isUnreachable(error: unknown): boolean {
  if (error instanceof TypeError) return true; // fetch failed: refused, reset, DNS
  if (error instanceof client.ClientError) {
    return error.code === 'OAUTH_TIMEOUT' || error.code === 'OAUTH_ABORT' || (error.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' && !(error instanceof client.ResponseBodyError));
  }
  return false;
}

/** The provider's configuration, or an `unavailable` failure naming no detail. */
export async function configurationOrFail(settings: OidcSettings, provider: string): Promise<client.Configuration> {
  try {
    return await providerConfiguration(settings);
  } catch (error) {
    if (error instanceof OidcSignInError) throw error;
    throw new OidcSignInError('unavailable', `${capitalised(provider)} cannot be reached right now, so Rampart could not start the sign-in.`, {
      context: { step: 'discovery', issuer: settings.issuer, ...describe(error) },
    });
  }
}

/** The provider's label at the start of a sentence ("single sign-on" becomes "Single sign-on"). */
export function capitalised(provider: string): string {
  return provider.charAt(0).toUpperCase() + provider.slice(1);
}
