/**
 * Forms of the web application through app.inject, as a browser would post them: the cookies and
 * CSRF token of a page, a form post, the session cookie of an answer; and a mailer that keeps its
 * messages in memory (or fails like an unreachable SMTP server).
 */
import assert from 'node:assert/strict';
import type { Mailer, MailMessage } from '../../src/mail/mailer.js';
import { AppError } from '../../src/shared/errors.js';
import type { TestApp } from './app.js';

/** A password the policy accepts, and another. */
export const PASSWORD = 'plum kettle orbit harbour';
export const NEW_PASSWORD = 'violet anchor meadow 7';
/** The session policy tests resume sessions with. */
export const POLICY = { idleMinutes: 60, maxHours: 2 };
export const BAD_CREDENTIALS = 'These credentials do not match our records.';

/** A mailer that keeps its messages (or fails like an unreachable SMTP server). */
export function memoryMailer(options: { fail?: boolean } = {}): Mailer & { sent: MailMessage[]; to(address: string): MailMessage[] } {
  const sent: MailMessage[] = [];
  return {
    sent,
    to: (address) => sent.filter((m) => m.to === address),
    async send(message) {
      if (options.fail) throw new AppError('service_unavailable', 'The mail server could not be reached; try again later.');
      sent.push(message);
      return { messageId: String(sent.length) };
    },
    close() {},
  };
}

/** What a browser holds to post a form: its cookies and the page's CSRF token. */
export interface FormSession {
  cookie: string;
  csrf: string;
}

/** The cookies and CSRF token a browser would hold after opening the sign-in page. */
export async function formSession(app: TestApp['app'], cookie = ''): Promise<FormSession> {
  const res = await app.inject({ method: 'GET', url: '/sign-in', headers: cookie ? { cookie } : {} });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
  assert.ok(csrf, 'the sign-in page carries a CSRF token');
  const pre = res.cookies.find((c) => c.name.endsWith('rampart_pre'));
  return { csrf, cookie: [cookie, pre ? `${pre.name}=${pre.value}` : ''].filter(Boolean).join('; ') };
}

/** Posts a form with the session's cookies and CSRF token. */
export function postForm(app: TestApp['app'], url: string, fields: Record<string, string>, session: FormSession) {
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie: session.cookie },
    payload: new URLSearchParams({ _csrf: session.csrf, ...fields }).toString(),
  });
}

/** The session cookie an answer sets, if any. */
export function sessionCookie(res: { cookies: { name: string; value: string }[] }) {
  return res.cookies.find((c) => c.name.endsWith('rampart_session') && c.value !== '');
}

/** Posts the sign-in form from a fresh browser. */
export async function signInForm(app: TestApp['app'], email: string, password: string, next?: string) {
  return postForm(app, '/sign-in', { email, password, ...(next !== undefined ? { next } : {}) }, await formSession(app));
}
