import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VulnAppContext, VulnPage } from '../app.js';
import { escapeHtml, page, param } from '../app.js';

/** One account's session: its email, and (the safe twin) its anti-forgery token. */
interface Account {
  email: string;
  token: string;
}

/** The accounts of one page, by session cookie value, kept in the app's state. */
function accounts(ctx: VulnAppContext, key: string): Map<string, Account> {
  let map = ctx.state.get(key) as Map<string, Account> | undefined;
  if (!map) ctx.state.set(key, (map = new Map()));
  return map;
}

function cookie(request: FastifyRequest, name: string): string | undefined {
  return new RegExp(`(?:^|;\\s*)${name}=([a-f0-9]+)`).exec(request.headers.cookie ?? '')?.[1];
}

/** The account of the request's session; a new session (and cookie) when it has none. */
function session(request: FastifyRequest, reply: FastifyReply, ctx: VulnAppContext, name: string, attributes: string): Account {
  const all = accounts(ctx, name);
  const id = cookie(request, name);
  const known = id === undefined ? undefined : all.get(id);
  if (known) return known;
  const fresh = randomBytes(12).toString('hex');
  const account = { email: 'alice@example.test', token: randomBytes(16).toString('hex') };
  all.set(fresh, account);
  void reply.header('set-cookie', `${name}=${fresh}; ${attributes}`);
  return account;
}

const form = (action: string, account: Account, token: string | null): string =>
  `<p>Current email: <b>${escapeHtml(account.email)}</b></p>\n<form method="post" action="${action}">${token === null ? '' : `<input type="hidden" name="csrf_token" value="${token}">`}<label>New email <input type="email" name="email" value=""></label> <button type="submit">Change email</button></form>`;

/** The CSRF pages and their safe twins. */
export const PAGES: VulnPage[] = [
  {
    path: '/account/email',
    methods: ['GET', 'POST'],
    link: '/account/email',
    title: 'Change email',
    expect: { ruleId: 'rampart:web-csrf', parameter: null, method: 'POST' },
    // Vulnerable: the change needs the session cookie, which a browser sends with another site's form too, and no token.
    handle: (request, reply, ctx) => {
      if (request.method === 'GET') return reply.type('text/html').send(page('Change email', form('/account/email', session(request, reply, ctx, 'acct', 'Path=/; HttpOnly'), null)));
      const id = cookie(request, 'acct');
      const account = id === undefined ? undefined : accounts(ctx, 'acct').get(id);
      if (!account) return reply.code(401).type('text/html').send(page('Change email', '<p>Sign in first.</p>'));
      account.email = param(request, 'email');
      return reply.redirect('/account/email', 303);
    },
  },
  {
    path: '/safe/account/email',
    methods: ['GET', 'POST'],
    link: '/safe/account/email',
    title: 'Change email (safe)',
    // Safe: a per-session token in the form, refused when missing or wrong.
    handle: (request, reply, ctx) => {
      if (request.method === 'GET') {
        const account = session(request, reply, ctx, 'safeacct', 'Path=/safe/; HttpOnly; SameSite=Lax');
        return reply.type('text/html').send(page('Change email', form('/safe/account/email', account, account.token)));
      }
      const id = cookie(request, 'safeacct');
      const account = id === undefined ? undefined : accounts(ctx, 'safeacct').get(id);
      if (!account) return reply.code(401).type('text/html').send(page('Change email', '<p>Sign in first.</p>'));
      if (param(request, 'csrf_token') !== account.token) return reply.code(403).type('text/html').send(page('Change email', '<p>Invalid or missing anti-forgery token.</p>'));
      account.email = param(request, 'email');
      return reply.redirect('/safe/account/email', 303);
    },
  },
];
