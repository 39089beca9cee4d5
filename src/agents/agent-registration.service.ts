/**
 * Verified-email agent registration (DESIGN.md "Discovery and agents"): an agent posts the user's
 * email, the service mails a six-digit one-time code and answers the agent a claim token, and the
 * agent claims the registration with both for an API key of a new or existing account.
 *
 * What keeps it safe (docs/DECISIONS.md "Agent registration"):
 * - a claim needs the claim token, which only the client that started the registration holds, and
 *   the code mailed for that very registration: a code can never claim another one;
 * - each claim reserves one of five attempts atomically before its code is compared, so parallel
 *   guesses cannot outrun the limit; codes and tokens are stored hashed and compared in equal time;
 * - codes expire and are claimed once;
 * - starts are capped per email address and per client address per hour, so neither one inbox nor
 *   the mail server can be flooded, and the start answers the same whether an account exists.
 * Anonymous and ID-JAG registrations are refused.
 */
import { randomUUID } from 'node:crypto';
import { AppError, fieldError, validationError } from '../shared/errors.js';
import { randomDigits, randomToken, safeEqual, sha256Hex } from '../shared/crypto.js';
import type { Db } from '../db/database.js';
import type { Mailer } from '../mail/mailer.js';
import { createApiKey } from '../accounts/api-keys.service.js';
import { claimUnverifiedAccount, createUser, findUserByEmail, toPublicUser, type PublicUser } from '../accounts/users.service.js';
import { deactivateUserWebhooks } from '../webhooks/webhooks.service.js';
import * as registrations from './agent-registration.queries.js';
import type { AgentRegistration } from '../db/schema.js';

export const MAX_CLAIM_ATTEMPTS = 5;
/** The window of the per-email and per-client caps on starts. */
const START_WINDOW_MS = 3_600_000;

export interface StartRegistrationInput {
  email: string;
  name?: string | undefined;
  key_name?: string | undefined;
  identity_type?: string | undefined;
  assertion_type?: string | undefined;
}

export interface StartOptions {
  codeTtlSeconds: number;
  serviceUrl: string;
  /** Starts allowed per hour to one email address and from one client address. */
  limits: { perEmail: number; perClient: number };
  clientAddress: string;
  now: Date;
}

export interface StartedRegistration {
  registration_id: string;
  /** The secret the claim must present: returned to this client only, stored hashed. */
  claim_token: string;
  expires_in: number;
}

export interface ClaimInput {
  registration_id: string;
  claim_token: string;
  code: string;
}

export interface ClaimedRegistration {
  api_key: string;
  key_prefix: string;
  account_created: boolean;
  user: PublicUser;
}

/** A start refused by a cap: which cap, and in how many seconds the window frees a slot. */
export class RegistrationLimitError extends AppError {
  constructor(
    readonly limit: number,
    readonly retryAfterSeconds: number,
    reason: string,
  ) {
    super('rate_limited', 'Too Many Attempts.', { context: { reason } });
  }
}

function codeHash(registrationId: string, code: string): string {
  return sha256Hex(`${registrationId}:${code}`);
}

export async function startRegistration(db: Db, mailer: Mailer, options: StartOptions, input: StartRegistrationInput): Promise<StartedRegistration> {
  if (input.identity_type !== undefined && input.identity_type !== 'identity_assertion') {
    throw fieldError('identity_type', 'Only identity_assertion registration is offered; anonymous registration is not.');
  }
  if (input.assertion_type !== undefined && input.assertion_type !== 'verified_email') {
    throw fieldError('assertion_type', 'Only the verified_email assertion type is accepted (ID-JAG assertions are not).');
  }
  const email = input.email.trim();
  const { now } = options;
  const id = randomUUID();
  const code = randomDigits(6);
  const claimToken = randomToken(32);

  await db.transaction().execute(async (trx) => {
    await registrations.lockStarts(trx, email, options.clientAddress);
    await refuseOverCap(trx, email, options);
    await registrations.insertRegistration(trx, {
      id,
      email,
      name: input.name?.trim() || null,
      key_name: input.key_name?.trim() || null,
      code_hash: codeHash(id, code),
      claim_token_hash: sha256Hex(claimToken),
      client_address: options.clientAddress,
      expires_at: new Date(now.getTime() + options.codeTtlSeconds * 1000),
      created_at: now,
    });
  });

  const minutes = Math.round(options.codeTtlSeconds / 60);
  await mailer.send({
    to: email,
    subject: `Your Rampart verification code: ${code}`,
    text: [
      'An AI agent asked for an API key to Rampart for this email address.',
      '',
      `Your one-time code is: ${code}`,
      '',
      `Give it to the agent only if you started this request. It expires in ${minutes} minutes`,
      `and can be used once. Service: ${options.serviceUrl}`,
      '',
      'If you did not ask for this, ignore this message: nothing happens without the code.',
    ].join('\n'),
  });
  return { registration_id: id, claim_token: claimToken, expires_in: options.codeTtlSeconds };
}

/** Throws RegistrationLimitError when the address or the client has used its starts this hour. */
async function refuseOverCap(db: Db, email: string, options: StartOptions): Promise<void> {
  const since = new Date(options.now.getTime() - START_WINDOW_MS);
  const caps = [
    { reason: 'agent registrations per email address', limit: options.limits.perEmail, by: { email } },
    { reason: 'agent registrations per client address', limit: options.limits.perClient, by: { clientAddress: options.clientAddress } },
  ];
  let refusal: RegistrationLimitError | undefined;
  for (const cap of caps) {
    const blocking = await registrations.maxthRecentStart(db, cap.by, since, cap.limit);
    if (!blocking) continue;
    // The slot frees when the blocking start leaves the window; both caps must free one.
    const seconds = Math.max(1, Math.ceil((blocking.getTime() + START_WINDOW_MS - options.now.getTime()) / 1000));
    if (!refusal || seconds > refusal.retryAfterSeconds) refusal = new RegistrationLimitError(cap.limit, seconds, cap.reason);
  }
  if (refusal) throw refusal;
}

export async function claimRegistration(db: Db, input: ClaimInput, now: Date): Promise<ClaimedRegistration> {
  const claimTokenHash = sha256Hex(input.claim_token);
  const registration = await registrations.reserveAttempt(db, { id: input.registration_id, claimTokenHash, maxAttempts: MAX_CLAIM_ATTEMPTS, now });
  if (!registration) throw whyNotClaimable(await registrations.findRegistration(db, input.registration_id), claimTokenHash, now);
  if (!safeEqual(codeHash(registration.id, input.code.trim()), registration.code_hash)) {
    const left = MAX_CLAIM_ATTEMPTS - registration.attempts;
    throw validationError({ code: [`The code is invalid; ${left} attempt${left === 1 ? '' : 's'} left.`] });
  }

  return db.transaction().execute(async (trx) => {
    if (!(await registrations.markClaimed(trx, registration.id, now))) {
      throw fieldError('registration_id', 'The registration was already claimed.');
    }
    const existing = await findUserByEmail(trx, registration.email);
    // Only the holder of the mailed code gets this far, so saying why reveals nothing to a stranger.
    if (existing?.disabled_at) {
      throw new AppError('forbidden', 'This account is disabled; an administrator must enable it before an agent can get a key.', { context: { reason: 'account disabled', userId: existing.id } });
    }
    const user =
      existing ??
      (await createUser(trx, { email: registration.email, name: registration.name ?? undefined, emailVerified: true }));
    // The code proved the address: an account that had not verified it is its owner's now, and
    // loses what whoever signed up with it first left (password, sessions, keys, links, webhooks).
    if (existing && !existing.email_verified_at) await claimUnverifiedAccount(trx, existing.id, { deactivateWebhooks: deactivateUserWebhooks });
    const created = await createApiKey(trx, user.id, registration.key_name ?? 'agent');
    return { api_key: created.key, key_prefix: created.record.prefix, account_created: !existing, user: toPublicUser(user) };
  });
}

/** The 422 of a claim that reserved no attempt, saying which rule refused it. */
function whyNotClaimable(registration: AgentRegistration | undefined, claimTokenHash: string, now: Date): AppError {
  if (!registration) return fieldError('registration_id', 'No registration has this id.');
  // Rows from before claim tokens have none: nothing matches them.
  if (!safeEqual(claimTokenHash, registration.claim_token_hash ?? '')) {
    return fieldError('claim_token', 'The claim token is not the one this registration was started with.');
  }
  if (registration.claimed_at) return fieldError('registration_id', 'The registration was already claimed.');
  if (registration.expires_at <= now) return fieldError('registration_id', 'The code has expired; start a new registration.');
  return fieldError('registration_id', `The registration has no attempts left (${MAX_CLAIM_ATTEMPTS} wrong codes); start a new registration.`);
}
