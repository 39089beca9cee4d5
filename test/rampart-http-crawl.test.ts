/**
 * The HTTP check's crawl and its status and info pages, against Node HTTP servers on loopback
 * that serve what Apache, nginx, PHP-FPM, Tomcat and Spring Boot really send (autoindex pages,
 * mod_status, mod_info, stub_status, the manager's 401 and 403, the actuator index), and safe
 * twins: catch-all sites answering every path with one page that carries every marker, and the
 * default (locked) Tomcat and Spring answers. Nothing leaves 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type net from 'node:net';
import { test, type TestContext } from 'node:test';
import type { CheckFinding, Endpoint, ServiceInfo } from '../src/engines/rampart/checks/check.js';
import { httpCheck } from '../src/engines/rampart/checks/http.js';
import { linkedPaths, listingNames, MAX_CRAWL_REQUESTS } from '../src/engines/rampart/checks/http-crawl.js';
import { EXPOSURE_PROBES } from '../src/engines/rampart/checks/http-exposures.js';
import { LOOPBACK_EGRESS } from './helpers/egress.js';

type Page = { status?: number; type?: string; headers?: Record<string, string>; body: string };

/** A server answering from `pages` (by path with query), `fallback` elsewhere; records every `METHOD path`. */
async function startSite(t: TestContext, pages: (path: string) => Page | undefined, fallback: Page = { status: 404, type: 'text/html', body: '<h1>Not Found</h1>' }): Promise<{ port: number; requests: string[] }> {
  const requests: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const page = (request.method === 'GET' ? pages(request.url ?? '/') : undefined) ?? fallback;
    response.writeHead(page.status ?? 200, { 'content-type': page.type ?? 'text/html', ...page.headers }).end(page.body);
  });
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: (server.address() as net.AddressInfo).port, requests };
}

function endpoint(port: number): Endpoint {
  return {
    hostname: 'localhost',
    address: '127.0.0.1',
    port,
    limits: { connectTimeoutMs: 5000, readTimeoutMs: 5000, maxConcurrency: 4, ratePerSecond: 0 },
    signal: new AbortController().signal,
    egress: LOOPBACK_EGRESS,
  };
}

const HTTP: ServiceInfo = { name: 'http', product: null, version: null, cpe: null, tls: false, banner: null, details: {} };
const find = (findings: CheckFinding[], rule: string): CheckFinding | undefined => findings.find((finding) => finding.ruleId === `rampart:${rule}`);
/** Findings other than the header/redirect ones every plain test site has. */
const exposures = (findings: CheckFinding[]): string[] =>
  findings.map((finding) => finding.ruleId).filter((rule) => !/missing|no-https-redirect|version-disclosure/.test(rule));

// ---------------------------------------------------------------------------------------------
// What the servers really send

/** Apache 2.4 mod_autoindex (FancyIndexing), as Debian's apache2 serves it. */
const apacheIndex = (path: string, files: string[]): string => `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<html>
 <head>
  <title>Index of ${path.replace(/\/$/, '')}</title>
 </head>
 <body>
<h1>Index of ${path.replace(/\/$/, '')}</h1>
  <table>
   <tr><th valign="top"><img src="/icons/blank.gif" alt="[ICO]"></th><th><a href="?C=N;O=D">Name</a></th><th><a href="?C=M;O=A">Last modified</a></th><th><a href="?C=S;O=A">Size</a></th><th><a href="?C=D;O=A">Description</a></th></tr>
   <tr><th colspan="5"><hr></th></tr>
<tr><td valign="top"><img src="/icons/back.gif" alt="[PARENTDIR]"></td><td><a href="/">Parent Directory</a></td><td>&nbsp;</td><td align="right">  - </td><td>&nbsp;</td></tr>
${files.map((file) => `<tr><td valign="top"><img src="/icons/unknown.gif" alt="[   ]"></td><td><a href="${encodeURI(file)}">${file}</a></td><td align="right">2026-11-27 14:00  </td><td align="right">1.2K</td><td>&nbsp;</td></tr>`).join('\n')}
   <tr><th colspan="5"><hr></th></tr>
</table>
<address>Apache/2.4.62 (Debian) Server at localhost Port 80</address>
</body></html>
`;

/** nginx autoindex. */
const nginxIndex = (path: string, files: string[]): string =>
  `<html>\r\n<head><title>Index of ${path}</title></head>\r\n<body>\r\n<h1>Index of ${path}</h1><hr><pre><a href="../">../</a>\r\n${files
    .map((file) => `<a href="${encodeURI(file)}">${file}</a>${' '.repeat(20)}27-Nov-2026 14:00     1234\r\n`)
    .join('')}</pre><hr></body>\r\n</html>\r\n`;

const APACHE_STATUS = `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<html><head>
<title>Apache Status</title>
</head><body>
<h1>Apache Server Status for localhost (via 127.0.0.1)</h1>
<dl><dt>Server Version: Apache/2.4.62 (Debian)</dt>
<dt>Server uptime:  3 days 2 hours</dt>
<dt>Total accesses: 1234 - Total Traffic: 5.6 MB</dt></dl>
<table border="0"><tr><th>Srv</th><th>PID</th><th>Client</th><th>VHost</th><th>Request</th></tr>
<tr><td><b>0-0</b></td><td>1234</td><td>203.0.113.9</td><td>localhost</td><td nowrap>GET /account?token=abc HTTP/1.1</td></tr></table>
</body></html>`;

const APACHE_INFO = `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<html><head>
<title>Server Information</title>
</head>
<body><h1 style="text-align: center">Apache Server Information</h1>
<dl><dt><tt>Subpages:<br /><a href="?config">Configuration Files</a>, <a href="?server">Server Settings</a>, <a href="?list">Module List</a></tt></dt></dl><hr />
<h2><a name="server">Server Settings</a></h2><dl><dt><strong>Server Version:</strong> <font size="+1"><tt>Apache/2.4.62 (Debian) OpenSSL/3.0.15</tt></font></dt>
<dt><strong>Server Built:</strong> <font size="+1"><tt>2024-07-19T12:34:56</tt></font></dt></dl>
<h2><a name="mod_alias.c">Module Name: </a> <font size="+1"><tt><a href="?mod_alias.c">mod_alias.c</a></tt></font></h2>
</body></html>`;

const NGINX_STUB = 'Active connections: 2 \nserver accepts handled requests\n 16 16 31 \nReading: 0 Writing: 1 Waiting: 1 \n';

const TOMCAT_401: Page = {
  status: 401,
  type: 'text/html;charset=ISO-8859-1',
  headers: { 'www-authenticate': 'Basic realm="Tomcat Manager Application"' },
  body: '<!doctype html><html lang="en"><head><title>401 Unauthorized</title></head><body><h1>401 Unauthorized</h1><p>You are not authorized to view this page. If you have not changed any configuration files, please examine the file <tt>conf/tomcat-users.xml</tt> in your installation.</p><p>For example, to add the <tt>manager-gui</tt> role to a user named <tt>tomcat</tt> ...</p></body></html>',
};
const TOMCAT_403: Page = {
  status: 403,
  type: 'text/html;charset=ISO-8859-1',
  body: '<!doctype html><html lang="en"><head><title>403 Access Denied</title></head><body><h1>403 Access Denied</h1><p>You are not authorized to view this page.</p><p>By default the Manager is only accessible from a browser running on the same machine as Tomcat. If you wish to modify this restriction, you\'ll need to edit the Manager\'s <tt>context.xml</tt> file.</p></body></html>',
};

const actuator = (names: string[]): Page => ({
  type: 'application/vnd.spring-boot.actuator.v3+json',
  body: JSON.stringify({
    _links: Object.fromEntries(
      ['self', ...names].map((name) => [name, { href: `http://localhost:8080/actuator${name === 'self' ? '' : `/${name}`}`, templated: false }]).concat([
        ['health-path', { href: 'http://localhost:8080/actuator/health/{*path}', templated: true }],
      ]),
    ),
  }),
});

// ---------------------------------------------------------------------------------------------

test('the crawl finds listings, their sensitive files and a linked dump the fixed list misses; status and info pages by content', async (t) => {
  const home = `<!doctype html><html><head><title>Acme</title><link rel="stylesheet" href="/static/css/site.css"></head><body>
    <a href="/docs/guide.html">Guide</a> <a href="downloads/report.pdf">Report</a> <a href="/logout">Log out</a>
    <a href="mailto:ops@example.com">Mail</a> <a href="http://other.example/x/">Elsewhere</a> <a href="#top">Top</a>
    <img src='/static/img/logo.png'></body></html>`;
  const pages: Record<string, Page> = {
    '/': { body: home },
    '/docs/guide.html': { body: '<html><body><a href="old/">Old docs</a> <a href="/deep/page.html">Deep</a></body></html>' },
    '/deep/page.html': { body: '<html><body><a href="/deeper/">Too deep</a></body></html>' },
    '/docs/old/': { body: apacheIndex('/docs/old/', ['manual.txt']) },
    '/downloads/': { body: apacheIndex('/downloads/', ['backup.sql', 'site.tar.gz', 'readme.txt', 'archive 2024/']) },
    '/downloads/backup.sql': { type: 'application/sql', body: '-- MariaDB dump 10.19\nCREATE TABLE users (id int);\n' },
    '/static/': { body: nginxIndex('/static/', ['css/', 'img/', 'config.php.bak']) },
    '/server-status': { body: APACHE_STATUS },
    '/server-info': { body: APACHE_INFO },
    '/basic_status': { type: 'text/plain', body: NGINX_STUB },
    '/ping': { type: 'text/plain', body: 'pong' },
    '/manager/html': TOMCAT_401,
    '/actuator': actuator(['health', 'info', 'env', 'heapdump', 'metrics']),
  };
  const site = await startSite(t, (path) => pages[path]);
  const findings = await httpCheck.run(endpoint(site.port), HTTP);

  const listing = find(findings, 'http-directory-listing');
  assert.equal(listing?.threat, 'Medium');
  assert.equal(
    listing.evidence,
    [
      'GET /docs/old/ -> 200: index page titled "Index of /docs/old"; lists 1 entry: manual.txt',
      'GET /downloads/ -> 200: index page titled "Index of /downloads"; lists 4 entries: backup.sql, site.tar.gz, readme.txt, archive 2024/',
      'GET /static/ -> 200: index page titled "Index of /static/"; lists 3 entries: css/, img/, config.php.bak',
    ].join('; '),
  );
  const sensitive = find(findings, 'http-listing-sensitive-files');
  assert.equal(sensitive?.threat, 'Medium');
  assert.equal(sensitive.evidence, 'GET /downloads/ -> 200: backup.sql (database dump), site.tar.gz (archive); GET /static/ -> 200: config.php.bak (backup or old copy)');
  // The dump was linked from a listing, not on the fixed list: its content proved it.
  assert.equal(find(findings, 'http-backup-exposed')?.evidence, 'GET /downloads/backup.sql -> 200: SQL dump (contains "-- MariaDB dump")');

  const status = find(findings, 'http-status-page-exposed');
  assert.equal(status?.threat, 'Medium');
  assert.equal(status.evidence, 'GET /server-status -> 200: Apache mod_status page; GET /basic_status -> 200: nginx stub_status page; GET /ping -> 200: PHP-FPM ping page');
  assert.equal(find(findings, 'http-server-info-exposed')?.evidence, 'GET /server-info -> 200: Apache mod_info page (Server Version: Apache/2.4.62 (Debian) OpenSSL/3.0.15)');
  const tomcat = find(findings, 'http-tomcat-manager-exposed');
  assert.equal(tomcat?.threat, 'Medium');
  assert.match(tomcat.evidence, /^GET \/manager\/html -> 401: login of the Tomcat Manager/);
  const spring = find(findings, 'http-actuator-exposed');
  assert.equal(spring?.threat, 'High');
  assert.equal(spring.evidence, 'GET /actuator -> 200: Spring Boot actuator exposing env, heapdump, metrics (sensitive: env, heapdump)');

  // Within the site, depth 2, GET only; nothing unsafe, foreign or deeper; assets never fetched.
  const asked = site.requests;
  for (const path of ['/docs/guide.html', '/deep/page.html', '/docs/old/', '/downloads/', '/static/', '/static/css/', '/static/img/', '/downloads/backup.sql']) {
    assert.ok(asked.includes(`GET ${path}`), `${path} was crawled`);
  }
  for (const path of ['/logout', '/deeper/', '/static/css/site.css', '/static/img/logo.png', '/downloads/report.pdf', '/downloads/readme.txt', '/x/']) {
    assert.ok(!asked.includes(`GET ${path}`), `${path} was not requested`);
  }
  assert.ok(asked.every((request) => /^(GET|TRACE) \//.test(request)), asked.join(', '));
  assert.equal(new Set(asked).size, asked.length, 'no path asked twice');
});

test('safe twins: a catch-all answering every marker on every path, a locked Tomcat and a default actuator give no exposure', async (t) => {
  const everything = [apacheIndex('/', ['backup.sql']), APACHE_STATUS, APACHE_INFO, NGINX_STUB, 'pong', '<a href="/docs/">docs</a>'].join('\n');
  const catchAll = await startSite(t, () => ({ body: everything }));
  assert.deepEqual(exposures(await httpCheck.run(endpoint(catchAll.port), HTTP)), []);

  // Every path challenged for the Tomcat realm: the challenge is the catch-all, not the manager.
  const allLocked = await startSite(t, () => TOMCAT_401);
  assert.deepEqual(exposures(await httpCheck.run(endpoint(allLocked.port), HTTP)), []);

  const defaultPages: Record<string, Page> = {
    '/': { body: '<html><body><a href="/app/">App</a></body></html>' },
    '/manager/html': TOMCAT_403,
    '/actuator': actuator(['health', 'info']),
  };
  const defaults = await startSite(t, (path) => defaultPages[path]);
  assert.deepEqual(exposures(await httpCheck.run(endpoint(defaults.port), HTTP)), []);
  assert.ok(defaults.requests.includes('GET /app/'));
});

test('a status page found by a link is judged like a probed one: nginx counters are Low', async (t) => {
  const pages: Record<string, Page> = {
    '/': { body: '<html><body><a href="/monitor/nginx">Monitoring</a></body></html>' },
    '/monitor/nginx': { type: 'text/plain', body: NGINX_STUB },
  };
  const site = await startSite(t, (path) => pages[path]);
  const findings = await httpCheck.run(endpoint(site.port), HTTP);
  assert.deepEqual(exposures(findings), ['rampart:http-status-page-exposed']);
  assert.equal(find(findings, 'http-status-page-exposed')?.threat, 'Low');
  assert.equal(find(findings, 'http-status-page-exposed')?.evidence, 'GET /monitor/nginx -> 200: nginx stub_status page');
});

test('the crawl stops at its request bound on a site of endless links', async (t) => {
  // Every page links to 20 new pages: far more than the bound at depth 2.
  const endless = (path: string): Page | undefined => {
    if (path !== '/' && !path.startsWith('/p/')) return undefined;
    const links = Array.from({ length: 20 }, (_, i) => `<a href="${path === '/' ? '/p/' : path}${i}/">p</a>`);
    return { body: `<html><body>${links.join(' ')}</body></html>` };
  };
  const site = await startSite(t, endless);
  await httpCheck.run(endpoint(site.port), HTTP);
  const fixed = new Set(['/', ...EXPOSURE_PROBES.map((probe) => probe.path)]);
  const crawled = site.requests.filter((request) => request.startsWith('GET ') && !fixed.has(request.slice(4)) && !request.startsWith('GET /rampart-'));
  // 20 + 400 pages linked within depth 2: the bound, not the site, ends the crawl.
  assert.equal(crawled.length, MAX_CRAWL_REQUESTS, crawled.join(', '));
  assert.ok(crawled.includes('GET /p/0/3/'), 'the second level was reached');
  assert.ok(!crawled.some((request) => /^GET \/p\/\d+\/\d+\/\d+\//.test(request)), 'nothing past depth 2');
});

test('listing entries and links: IIS absolute paths, sort links and parents skipped; only same-site, safe paths', () => {
  const iis = Buffer.from('<pre><A HREF="/">[To Parent Directory]</A><br><br> 11/27/2026  2:00 PM        1234 <A HREF="/files/db.bak">db.bak</A><br> <A HREF="/files/sub/">sub</A></pre>');
  assert.deepEqual(listingNames(iis, '/files/'), ['db.bak', 'sub/']);
  const page = Buffer.from('<a href="a.html">a</a><a href="https://localhost:8443/b/">b</a><a href="http://localhost:8080/c/d.png">c</a><a href=/e/delete?id=1>x</a><a href="f.sql">f</a>');
  assert.deepEqual(linkedPaths(page, '/x/', 'http://localhost:8080'), ['/x/a.html', '/x/', '/c/', '/x/f.sql']);
});
