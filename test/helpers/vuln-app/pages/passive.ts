import { randomBytes } from 'node:crypto';
import type { VulnPage } from '../app.js';
import { page } from '../app.js';

/** The files the directory listings show (and serve). */
const FILES: Record<string, string> = { 'readme.txt': 'Files of the Rampart test application.\n', 'backup-2019.sql.txt': '-- nothing here\n' };

/** An Apache 2.4 `mod_autoindex` page, as Apache writes it. */
function apacheIndex(dir: string): string {
  const rows = Object.keys(FILES).map((name) => `<tr><td valign="top">&nbsp;</td><td><a href="${name}">${name}</a></td><td align="right">2024-01-15 10:21  </td><td align="right"> 42 </td><td>&nbsp;</td></tr>`);
  return `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">\n<html>\n <head>\n  <title>Index of ${dir}</title>\n </head>\n <body>\n<h1>Index of ${dir}</h1>\n  <table>\n   <tr><th valign="top">&nbsp;</th><th><a href="?C=N;O=D">Name</a></th><th><a href="?C=M;O=A">Last modified</a></th><th><a href="?C=S;O=A">Size</a></th><th><a href="?C=D;O=A">Description</a></th></tr>\n   <tr><th colspan="5"><hr></th></tr>\n<tr><td valign="top">&nbsp;</td><td><a href="/">Parent Directory</a></td><td>&nbsp;</td><td align="right">  - </td><td>&nbsp;</td></tr>\n${rows.join('\n')}\n   <tr><th colspan="5"><hr></th></tr>\n</table>\n<address>Apache/2.4.62 (Debian) Server at 127.0.0.1 Port 80</address>\n</body></html>\n`;
}

/** What PHP 5.6 prints with display_errors on when a mysqli query fails, then an uncaught exception. */
const PHP_ERROR = `<br />
<b>Warning</b>:  mysqli_fetch_assoc() expects parameter 1 to be mysqli_result, boolean given in <b>/var/www/html/report.php</b> on line <b>27</b><br />
You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near 'ORDER BY total DESC' at line 1<br />
<b>Fatal error</b>:  Uncaught Exception: report query failed in /var/www/html/report.php:31
Stack trace:
#0 /var/www/html/index.php(12): build_report(NULL)
#1 {main}
  thrown in <b>/var/www/html/report.php</b> on line <b>31</b><br />`;

/** The passive pages (headers, cookies, listings, error pages, secrets in links) and their safe twins. */
export const PAGES: VulnPage[] = [
  {
    path: '/passive/session',
    link: '/passive/session',
    title: 'Session status',
    expect: { ruleId: 'rampart:web-cookie-no-httponly', parameter: 'PHPSESSID' },
    // A session cookie with no flags at all (HttpOnly, SameSite).
    handle: (_request, reply) => reply.header('set-cookie', `PHPSESSID=${randomBytes(13).toString('hex')}; path=/`).type('text/html').send(page('Session status', '<p>You have a session.</p>')),
  },
  {
    path: '/safe/passive/session',
    link: '/safe/passive/session',
    title: 'Session status (safe)',
    handle: (_request, reply) =>
      reply.header('set-cookie', `SAFESESSID=${randomBytes(13).toString('hex')}; Path=/safe/; HttpOnly; SameSite=Lax`).type('text/html').send(page('Session status', '<p>You have a session.</p>')),
  },
  {
    path: '/passive/about',
    link: '/passive/about',
    title: 'About (PHP)',
    expect: { ruleId: 'rampart:web-version-disclosure', parameter: null },
    handle: (_request, reply) => reply.header('x-powered-by', 'PHP/5.6.40').type('text/html').send(page('About', '<p>Powered by PHP.</p>')),
  },
  {
    path: '/safe/passive/about',
    link: '/safe/passive/about',
    title: 'About (safe)',
    handle: (_request, reply) => reply.header('x-powered-by', 'PHP').type('text/html').send(page('About', '<p>Powered by PHP.</p>')),
  },
  {
    path: '/files/',
    link: '/files/',
    title: 'Files',
    expect: { ruleId: 'rampart:web-directory-listing', parameter: null },
    handle: (_request, reply) => reply.type('text/html').send(apacheIndex('/files')),
  },
  {
    path: '/files/:name',
    title: 'A listed file',
    handle: (request, reply) => {
      const text = FILES[(request.params as { name: string }).name];
      return text === undefined ? reply.code(404).type('text/plain').send('Not found\n') : reply.type('text/plain').send(text);
    },
  },
  {
    path: '/safe/files/',
    link: '/safe/files/',
    title: 'Files (safe)',
    handle: (_request, reply) => reply.code(403).type('text/html').send(page('Forbidden', '<p>You do not have permission to list this directory.</p>')),
  },
  {
    path: '/passive/report',
    link: '/passive/report',
    title: 'Sales report',
    expect: { ruleId: 'rampart:web-error-disclosure', parameter: null },
    handle: (_request, reply) => reply.code(500).type('text/html').send(`<html><body>${PHP_ERROR}</body></html>\n`),
  },
  {
    path: '/safe/passive/report',
    link: '/safe/passive/report',
    title: 'Sales report (safe)',
    handle: (_request, reply) => reply.code(500).type('text/html').send(page('Error', '<p>Something went wrong. The error was logged with reference 7f3a2c.</p>')),
  },
  {
    path: '/passive/newsletter',
    link: '/passive/newsletter',
    title: 'Newsletter',
    expect: { ruleId: 'rampart:web-sensitive-url', parameter: 'token' },
    // The unsubscribe link carries the account's secret token in its query.
    handle: (_request, reply) =>
      reply.type('text/html').send(page('Newsletter', '<p><a href="/passive/unsubscribe?email=alice%40example.test&amp;token=6f1ed002ab5595859014ebf0951522d9">Unsubscribe</a></p>')),
  },
  {
    path: '/passive/unsubscribe',
    title: 'Unsubscribe',
    handle: (_request, reply) => reply.type('text/html').send(page('Unsubscribe', '<p>You are unsubscribed.</p>')),
  },
  {
    path: '/safe/passive/newsletter',
    link: '/safe/passive/newsletter',
    title: 'Newsletter (safe)',
    handle: (_request, reply) =>
      reply.type('text/html').send(page('Newsletter', '<p>Unsubscribe from your <a href="/safe/passive/session">account page</a>, after signing in.</p>')),
  },
];
