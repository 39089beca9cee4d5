/**
 * The team's own deliberately vulnerable web application (issue 16), on loopback: each weakness
 * class on a page of its own, and for each a safe twin under `/safe/` that escapes or validates
 * the same input, so that a finding on a twin is a false positive the tests fail on. A page whose
 * latency jitters proves that timing checks do not fire on lag.
 *
 * Real weaknesses, not imitations: the SQL pages query a private MariaDB with string-built SQL,
 * the command page runs a shell, the traversal page reads files, the template page renders a
 * template built from the input. Nothing here is reachable beyond 127.0.0.1.
 *
 * With `login: true` every page but `/`, `/login` and static files needs a session (the
 * authenticated variant): without one it redirects to `/login`; `/logout` ends the session.
 *
 * Pages come from `pages/*.ts` (one module per area, `VulnPage[]`), listed in `pages/index.ts`;
 * the index page links every page with its sample query, so a crawler finds them all.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { Pool } from 'mysql2/promise';
import { ALL_PAGES } from './pages/index.js';

/** What a page's handler may use. */
export interface VulnAppContext {
  /** A MariaDB pool with the `users` and `visits` tables (see `seedDatabase`); null without MariaDB. */
  db: Pool | null;
  /** A private directory for files the pages read or store (uploads, documents). */
  dir: string;
  /** Shared in-memory state pages may keep (e.g. guestbook entries), per app. */
  state: Map<string, unknown>;
}

/** A file field's value in `request.body` (multipart forms). */
export interface UploadedFile {
  filename: string;
  mimetype: string;
  content: Buffer;
}

/** One page of the application. */
export interface VulnPage {
  /** The route, e.g. `/sqli/error`; twins under `/safe/`, e.g. `/safe/sqli/error`. */
  path: string;
  /** The methods the route answers; default GET. */
  methods?: Array<'GET' | 'POST'>;
  /** The link on the index page (path and sample query), e.g. `/sqli/error?id=1`; absent: not linked there (reached another way). */
  link?: string;
  title: string;
  /**
   * What the scan must report on this page: the rule id and the parameter (null for page-level
   * findings such as CSRF on a form). Absent on safe twins and on pages with nothing to find.
   */
  expect?: { ruleId: string; parameter: string | null; method?: 'GET' | 'POST' };
  /** Needs MariaDB (the page is left out without it). */
  needsDb?: boolean;
  handle(request: FastifyRequest, reply: FastifyReply, ctx: VulnAppContext): Promise<unknown> | unknown;
}

export interface VulnApp {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  port: number;
  pages: VulnPage[];
  /** The account of the authenticated variant. */
  credentials: { username: string; password: string };
  /** Sessions created so far (the authenticated variant): a test sees the login happen. */
  logins: () => number;
  /** Requests for `/logout` so far, with or without a session (the authenticated variant): a scan must not end its own session. */
  logouts: () => number;
  ctx: VulnAppContext;
  app: FastifyInstance;
}

export const CREDENTIALS = { username: 'admin', password: 'correct horse battery' };

/** An HTML page in the application's layout. */
export function page(title: string, body: string): string {
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>${title}</title></head>\n<body><h1>${title}</h1>\n${body}\n<p><a href="/">Home</a></p></body></html>\n`;
}

/** Escapes text for HTML (the safe twins' defence). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A value of the query or the form body, as a string ('' when absent). */
export function param(request: FastifyRequest, name: string): string {
  const from = (source: unknown): unknown => (source && typeof source === 'object' ? (source as Record<string, unknown>)[name] : undefined);
  const value = from(request.body) ?? from(request.query);
  return Array.isArray(value) ? String(value[0] ?? '') : value === undefined ? '' : String(value);
}

/** Creates the tables the SQL pages query and fills them. */
export async function seedDatabase(db: Pool): Promise<void> {
  await db.query('CREATE TABLE users (id INT PRIMARY KEY, name VARCHAR(64), email VARCHAR(128))');
  await db.query("INSERT INTO users VALUES (1, 'alice', 'alice@example.test'), (2, 'bob', 'bob@example.test'), (3, 'carol', 'carol@example.test')");
  await db.query('CREATE TABLE visits (id INT AUTO_INCREMENT PRIMARY KEY, page VARCHAR(255), at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)');
}

/**
 * Starts the application on 127.0.0.1 (closed when the test ends). `db` is a pool on a database
 * the caller made (test/helpers/vuln-app/database.ts `startVulnDatabase`); without it the pages
 * that need MariaDB are left out.
 */
export async function startVulnApp(t: TestContext, options: { db?: Pool | null; login?: boolean } = {}): Promise<VulnApp> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rampart-vulnapp-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const ctx: VulnAppContext = { db: options.db ?? null, dir, state: new Map() };
  const pages = ALL_PAGES.filter((p) => !p.needsDb || ctx.db);
  const sessions = new Set<string>();
  let logins = 0;
  let logouts = 0;

  const app = Fastify({ logger: false });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: 1024 * 1024 },
    // A file field's value keeps the name the client gave (the upload page stores it under that name).
    onFile: async (part) => {
      const file: UploadedFile = { filename: part.filename, mimetype: part.mimetype, content: await part.toBuffer() };
      (part as unknown as { value: UploadedFile }).value = file;
    },
  });

  const loggedIn = (request: FastifyRequest): boolean => {
    const sid = /(?:^|;\s*)sid=([a-f0-9]+)/.exec(request.headers.cookie ?? '')?.[1];
    return sid !== undefined && sessions.has(sid);
  };
  if (options.login) {
    app.addHook('onRequest', async (request, reply) => {
      const route = request.url.replace(/\?.*$/, '');
      if (route === '/logout') logouts++;
      if (route === '/' || route === '/login' || route === '/robots.txt' || loggedIn(request)) return;
      await reply.redirect('/login', 302);
    });
    app.get('/login', async (_request, reply) =>
      reply
        .type('text/html')
        .send(page('Sign in', '<form method="post" action="/login"><label>User <input id="username" name="username"></label> <label>Password <input id="password" type="password" name="password"></label> <button id="signin" type="submit">Sign in</button></form>')),
    );
    app.post('/login', async (request, reply) => {
      if (param(request, 'username') !== CREDENTIALS.username || param(request, 'password') !== CREDENTIALS.password) {
        return reply.code(401).type('text/html').send(page('Sign in', '<p>Wrong user name or password.</p><p><a href="/login">Try again</a></p>'));
      }
      const sid = randomBytes(16).toString('hex');
      sessions.add(sid);
      logins++;
      return reply.header('set-cookie', `sid=${sid}; Path=/; HttpOnly; SameSite=Lax`).redirect('/', 302);
    });
    app.get('/logout', async (request, reply) => {
      const sid = /(?:^|;\s*)sid=([a-f0-9]+)/.exec(request.headers.cookie ?? '')?.[1];
      if (sid) sessions.delete(sid);
      return reply.redirect('/login', 302);
    });
  }

  app.get('/', async (request, reply) => {
    const links = pages.filter((p) => p.link).map((p) => `<li><a href="${p.link}">${escapeHtml(p.title)}</a></li>`);
    const account = options.login ? (loggedIn(request) ? '<p>Signed in. <a href="/logout">Sign out</a></p>' : '<p><a href="/login">Sign in</a></p>') : '';
    return reply.type('text/html').send(page('Rampart test application', `${account}<ul>\n${links.join('\n')}\n</ul>`));
  });
  for (const p of pages) {
    app.route({ method: p.methods ?? ['GET'], url: p.path, handler: (request, reply) => p.handle(request, reply, ctx) });
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  t.after(() => app.close());
  const port = (app.server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/`, port, pages, credentials: CREDENTIALS, logins: () => logins, logouts: () => logouts, ctx, app };
}
