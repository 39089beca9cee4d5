/**
 * SQL injection, one page per technique a scanner needs to find it, each with a parameterised twin:
 * - `/sqli/error?id=1`: a string-built query whose database error is shown (as PHP's mysqli_error);
 * - `/sqli/blind?id=1`: numeric context, only "User found" / "No such user", errors swallowed;
 * - `/sqli/time`: a form whose value is inserted with string-built SQL, the answer always the
 *   same: only a delay can show it.
 */
import type { RowDataPacket } from 'mysql2/promise';
import { escapeHtml, page, param, type VulnAppContext, type VulnPage } from '../app.js';

const RULE = 'rampart:web-sql-injection';

function database(ctx: VulnAppContext): NonNullable<VulnAppContext['db']> {
  if (!ctx.db) throw new Error('the SQL pages need MariaDB');
  return ctx.db;
}

const userList = (rows: RowDataPacket[]): string => `<ul>${rows.map((row) => `<li>${escapeHtml(String(row.name))} (${escapeHtml(String(row.email))})</li>`).join('')}</ul>`;

const visitForm = (action: string): string =>
  `<form method="post" action="${action}"><label>Page <input name="page" value="home"></label> <button type="submit">Record visit</button></form>`;

export const PAGES: VulnPage[] = [
  {
    path: '/sqli/error',
    link: '/sqli/error?id=1',
    title: 'User profile',
    needsDb: true,
    expect: { ruleId: RULE, parameter: 'id', method: 'GET' },
    async handle(request, reply, ctx) {
      try {
        const [rows] = await database(ctx).query<RowDataPacket[]>(`SELECT name, email FROM users WHERE id = '${param(request, 'id')}'`);
        return reply.type('text/html').send(page('User profile', userList(rows)));
      } catch (error) {
        return reply.type('text/html').send(page('User profile', `<p>Database error: ${escapeHtml((error as Error).message)}</p>`));
      }
    },
  },
  {
    path: '/safe/sqli/error',
    link: '/safe/sqli/error?id=1',
    title: 'User profile (safe)',
    needsDb: true,
    async handle(request, reply, ctx) {
      try {
        const [rows] = await database(ctx).query<RowDataPacket[]>('SELECT name, email FROM users WHERE id = ?', [param(request, 'id')]);
        return reply.type('text/html').send(page('User profile', userList(rows)));
      } catch {
        return reply.type('text/html').send(page('User profile', '<p>Something went wrong.</p>'));
      }
    },
  },
  {
    path: '/sqli/blind',
    link: '/sqli/blind?id=1',
    title: 'User lookup',
    needsDb: true,
    expect: { ruleId: RULE, parameter: 'id', method: 'GET' },
    async handle(request, reply, ctx) {
      let found = false;
      try {
        const [rows] = await database(ctx).query<RowDataPacket[]>(`SELECT id FROM users WHERE id = ${param(request, 'id')}`);
        found = rows.length > 0;
      } catch {
        // Errors swallowed: the page only ever says yes or no.
      }
      return reply.type('text/html').send(page('User lookup', found ? '<p>User found.</p>' : '<p>No such user.</p>'));
    },
  },
  {
    path: '/safe/sqli/blind',
    link: '/safe/sqli/blind?id=1',
    title: 'User lookup (safe)',
    needsDb: true,
    async handle(request, reply, ctx) {
      let found = false;
      try {
        const [rows] = await database(ctx).query<RowDataPacket[]>('SELECT id FROM users WHERE id = ?', [param(request, 'id')]);
        found = rows.length > 0;
      } catch {
        // As the vulnerable page.
      }
      return reply.type('text/html').send(page('User lookup', found ? '<p>User found.</p>' : '<p>No such user.</p>'));
    },
  },
  {
    path: '/sqli/time',
    methods: ['GET', 'POST'],
    link: '/sqli/time',
    title: 'Visit log',
    needsDb: true,
    expect: { ruleId: RULE, parameter: 'page', method: 'POST' },
    async handle(request, reply, ctx) {
      if (request.method === 'GET') return reply.type('text/html').send(page('Visit log', visitForm('/sqli/time')));
      try {
        await database(ctx).query(`INSERT INTO visits (page) VALUES ('${param(request, 'page')}')`);
      } catch {
        // Errors swallowed: the answer never changes.
      }
      return reply.type('text/html').send(page('Visit log', '<p>Thanks.</p>'));
    },
  },
  {
    path: '/safe/sqli/time',
    methods: ['GET', 'POST'],
    link: '/safe/sqli/time',
    title: 'Visit log (safe)',
    needsDb: true,
    async handle(request, reply, ctx) {
      if (request.method === 'GET') return reply.type('text/html').send(page('Visit log', visitForm('/safe/sqli/time')));
      try {
        await database(ctx).query('INSERT INTO visits (page) VALUES (?)', [param(request, 'page')]);
      } catch {
        // As the vulnerable page.
      }
      return reply.type('text/html').send(page('Visit log', '<p>Thanks.</p>'));
    },
  },
];
