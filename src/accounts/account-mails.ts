/**
 * The texts of the mails of the account entry: verification, password reset, and the note to an
 * existing account that someone tried to sign up with its address. Plain text, short, each link
 * on a line of its own, and what to do if it was not you.
 */
import type { MailMessage } from '../mail/mailer.js';

/** The mail with the link that verifies a new account's address. */
export function verificationMail(to: string, link: string, baseUrl: string): MailMessage {
  return {
    to,
    subject: 'Verify your email address for Rampart',
    text: [
      `Someone, hopefully you, created a Rampart account at ${baseUrl} with this email address.`,
      '',
      'Open this link to verify the address and sign in:',
      link,
      '',
      'The link works once and expires in 24 hours.',
      '',
      'If it was not you, ignore this message: the account cannot be used without this link.',
      '',
    ].join('\n'),
  };
}

/** The mail with the link that sets a new password. */
export function passwordResetMail(to: string, link: string, baseUrl: string): MailMessage {
  return {
    to,
    subject: 'Reset your Rampart password',
    text: [
      `Someone, hopefully you, asked to reset the password of the Rampart account at ${baseUrl} that uses this email address.`,
      '',
      'Open this link to choose a new password:',
      link,
      '',
      'The link works once and expires in 1 hour. Setting a new password signs out every browser signed in to the account.',
      '',
      'If it was not you, ignore this message: your password stays as it is.',
      '',
    ].join('\n'),
  };
}

/**
 * The note to an existing account when someone signs up with its address (the sign-up page answers
 * as for a new address, so only the mailbox's owner learns the account exists). `resetLink` is
 * absent when the account was sent too many links lately.
 */
export function signUpAttemptMail(to: string, baseUrl: string, resetLink: string | undefined): MailMessage {
  return {
    to,
    subject: 'Someone tried to sign up to Rampart with your email address',
    text: [
      `Someone tried to create a Rampart account at ${baseUrl} with this email address, which already has an account.`,
      '',
      'If it was you, sign in instead:',
      `${baseUrl}/sign-in`,
      '',
      ...(resetLink
        ? ['Forgot your password, or never set one? Choose a new one with this link (it works once and expires in 1 hour):', resetLink, '']
        : ['Forgot your password, or never set one? Ask for a reset link at:', `${baseUrl}/forgot-password`, '']),
      'If it was not you, ignore this message: nothing has changed in your account.',
      '',
    ].join('\n'),
  };
}
