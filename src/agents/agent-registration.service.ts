/**
 * Verified-email agent registration (DESIGN.md "Discovery and agents"): an agent posts the user's
 * email, the service mails a six-digit one-time code, and the agent claims the registration with
 * that code for an API key of a new or existing account. Codes are stored hashed, expire, allow
 * five attempts, and can be claimed once. Anonymous and ID-JAG registrations are refused.
 */
import { randomUUID } from 'node:crypto';
import { AppError, fieldError, validationError } from '../shared/errors.js';
import { randomDigits, safeEqual, sha256Hex } from '../shared/crypto.js';
import type { Db } from '../db/database.js';
import type { Mailer } from '../mail/mailer.js';
import { createApiKey } from '../accounts/api-keys.service.js';
import { createUser, findUserByEmail, markEmailVerified, toPublicUser, type PublicUser } from '../accounts/users.service.js';
import * as registrations from './agent-registration.queries.js';

export const MAX_CLAIM_ATTEMPTS = 5;
/** Codes one address can be sent per hour, so the service cannot be used to flood an inbox. */
export const MAX_REGISTRATIONS_PER_HOUR = 5;

export interface StartRegistrationInput {
  email: string;
  name?: string | undefined;
  key_name?: string | undefined;
  identity_type?: string | undefined;
  assertion_type?: string | undefined;
}

export interface StartedRegistration {
  registration_id: string;
  expires_in: number;
}

export interface ClaimedRegistration {
  api_key: string;
  key_prefix: string;
  account_created: boolean;
  user: PublicUser;
}

function codeHash(registrationId: string, code: string): string {
  return sha256Hex(`${registrationId}:${code}`);
}

export async function startRegistration(
  db: Db,
  mailer: Mailer,
  options: { codeTtlSeconds: number; serviceUrl: string },
  input: StartRegistrationInput,
): Promise<StartedRegistration> {
  if (input.identity_type !== undefined && input.identity_type !== 'identity_assertion') {
    throw fieldError('identity_type', 'Only identity_assertion registration is offered; anonymous registration is not.');
  }
  if (input.assertion_type !== undefined && input.assertion_type !== 'verified_email') {
    throw fieldError('assertion_type', 'Only the verified_email assertion type is accepted (ID-JAG assertions are not).');
  }
  const email = input.email.trim();
  const hourAgo = new Date(Date.now() - 3_600_000);
  if ((await registrations.countRecentRegistrations(db, email, hourAgo)) >= MAX_REGISTRATIONS_PER_HOUR) {
    throw new AppError('rate_limited', 'Too Many Attempts.', { context: { reason: 'agent registrations per email' } });
  }

  const id = randomUUID();
  const code = randomDigits(6);
  const expiresAt = new Date(Date.now() + options.codeTtlSeconds * 1000);
  await registrations.insertRegistration(db, {
    id,
    email,
    name: input.name?.trim() || null,
    key_name: input.key_name?.trim() || null,
    code_hash: codeHash(id, code),
    expires_at: expiresAt,
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
  return { registration_id: id, expires_in: options.codeTtlSeconds };
}

export async function claimRegistration(db: Db, input: { registration_id: string; code: string }): Promise<ClaimedRegistration> {
  const registration = await registrations.findOpenRegistration(db, input.registration_id, MAX_CLAIM_ATTEMPTS);
  if (!registration) {
    throw fieldError('registration_id', 'The registration does not exist, has expired, was already claimed or has no attempts left.');
  }
  if (!safeEqual(codeHash(registration.id, input.code.trim()), registration.code_hash)) {
    await registrations.recordFailedAttempt(db, registration.id);
    const left = MAX_CLAIM_ATTEMPTS - registration.attempts - 1;
    throw validationError({ code: [`The code is invalid; ${left} attempt${left === 1 ? '' : 's'} left.`] });
  }

  return db.transaction().execute(async (trx) => {
    if (!(await registrations.markClaimed(trx, registration.id))) {
      throw fieldError('registration_id', 'The registration was already claimed.');
    }
    const existing = await findUserByEmail(trx, registration.email);
    const user =
      existing ??
      (await createUser(trx, { email: registration.email, name: registration.name ?? undefined, emailVerified: true }));
    if (existing) await markEmailVerified(trx, existing.id);
    const created = await createApiKey(trx, user.id, registration.key_name ?? 'agent');
    return { api_key: created.key, key_prefix: created.record.prefix, account_created: !existing, user: toPublicUser(user) };
  });
}
