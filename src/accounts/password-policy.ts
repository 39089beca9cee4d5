/**
 * What a new password must be: at least 12 characters, at most 1,024 (scrypt takes any length, but
 * an unbounded input is a denial of service), and not one of the ~49,000 most common passwords
 * (zxcvbn-ts's list, MIT), nor such a password with digits or symbols added at the end, nor the
 * account's own email address.
 */
import zxcvbnCommon from '@zxcvbn-ts/language-common';

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 1024;

let common: Set<string> | undefined;
function commonPasswords(): Set<string> {
  common ??= new Set((zxcvbnCommon.dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()));
  return common;
}

/** The messages of what is wrong with a password (empty when it is acceptable). */
export function passwordProblems(password: string, email?: string): string[] {
  if (password.length < PASSWORD_MIN) return [`The password must be at least ${PASSWORD_MIN} characters.`];
  if (password.length > PASSWORD_MAX) return [`The password must be at most ${PASSWORD_MAX} characters.`];
  const lower = password.toLowerCase();
  const stem = lower.replace(/[^a-z]+$/, '');
  const list = commonPasswords();
  if (list.has(lower) || (stem.length >= 4 && list.has(stem)) || /^(.)\1+$/.test(lower)) {
    return ['This password is too common: it appears in lists of leaked passwords. Choose another.'];
  }
  if (email && lower.includes(email.toLowerCase().split('@')[0] ?? '\u0000') && (email.split('@')[0]?.length ?? 0) >= 4 && lower.replace(email.toLowerCase().split('@')[0]!, '').length < 8) {
    return ['The password must not be built from your email address.'];
  }
  return [];
}

/**
 * The field errors of a new password and its confirmation (sign-up, reset, change): the policy's
 * problems on `password`, a mismatch on `password_confirmation`; empty when both are fine.
 */
export function newPasswordErrors(password: string, confirmation: string | undefined, email?: string): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const problems = passwordProblems(password, email);
  if (problems.length > 0) errors.password = problems;
  return { ...errors, ...confirmationErrors(password, confirmation) };
}

/** The error of a confirmation that differs from its password, on `password_confirmation`. */
export function confirmationErrors(password: string, confirmation: string | undefined): Record<string, string[]> {
  return password === confirmation ? {} : { password_confirmation: ['The password confirmation does not match.'] };
}
