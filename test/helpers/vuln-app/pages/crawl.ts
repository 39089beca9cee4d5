/**
 * Pages for the crawler's tests (test/web-engine.test.ts), nothing vulnerable: links of every
 * kind (anchors with one query shape twice, an iframe, a redirect, URLs in an inline script and
 * an event handler), a form with every kind of field, a GET search form, pages reachable only
 * through robots.txt or sitemap.xml, and destructive or session-ending links and forms the
 * crawler must leave alone. Every request to a page the crawler must never fetch is recorded in
 * `ctx.state` under `DESTRUCTIVE_HITS`; every page fetched, under `CRAWL_HITS`.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { escapeHtml, page, param, type VulnAppContext, type VulnPage } from '../app.js';

/** `ctx.state` key: the paths of destructive pages that were requested (the crawler must leave them alone). */
export const DESTRUCTIVE_HITS = 'crawl:destructive-hits';
/** `ctx.state` key: every path of these pages that was requested, with its query. */
export const CRAWL_HITS = 'crawl:hits';
const TOKENS = 'crawl:form-tokens';

function list(ctx: VulnAppContext, key: string): string[] {
  let found = ctx.state.get(key) as string[] | undefined;
  if (!found) ctx.state.set(key, (found = []));
  return found;
}

function hit(request: FastifyRequest, ctx: VulnAppContext): void {
  list(ctx, CRAWL_HITS).push(request.url);
}

const START = `
<p><a href="/crawl/linked?ref=a">First</a> <a href="/crawl/linked?ref=b#top">Same page, other value</a>
<a href="/crawl/redirect">Moved</a> <a href="https://example.com/elsewhere">Out of scope</a> <a href="mailto:ops@example.com">Mail</a></p>
<iframe src="/crawl/framed"></iframe>
<button onclick="location.href='/crawl/from-handler'">Go</button>
<script>
  var next = '/crawl/from-script?x=1';
  fetch("/crawl/api/items").then(function (r) { return r.json(); });
  var notAUrl = 'hello world', pattern = "/";
</script>
<p><a href="/crawl/delete?id=3">Remove item 3</a> <a href="/crawl/signout">Sign out</a> <a href="/crawl/archive">Delete everything</a></p>
<form method="get" action="/crawl/search"><input name="q"><button>Search</button></form>
<form method="post" action="/crawl/reset"><input type="hidden" name="all" value="1"><input type="submit" value="Reset all settings"></form>
`;

function profileForm(token: string): string {
  return `<form method="post" action="/crawl/profile">
<input type="hidden" name="csrf_token" value="${token}">
<input name="nickname"> <input type="email" name="contact"> <input type="number" name="age"> <input type="url" name="homepage">
<input type="date" name="born"> <input type="tel" name="phone"> <input type="password" name="secret"> <input type="search" name="find">
<select name="country"><option value="fr">France</option><option value="de" selected>Germany</option></select>
<textarea name="bio"></textarea>
<input type="checkbox" name="newsletter" value="yes">
<input type="radio" name="plan" value="free"><input type="radio" name="plan" value="pro" checked>
<input type="reset"> <button type="submit" name="action" value="save">Save</button>
</form>`;
}

/** A page that only records the request. */
function plain(path: string, title: string, extra: Partial<VulnPage> = {}): VulnPage {
  return {
    path,
    title,
    ...extra,
    handle(request, reply, ctx) {
      hit(request, ctx);
      return reply.type('text/html').send(page(title, '<p>Nothing to see.</p>'));
    },
  };
}

/** A page the crawler must never request. */
function destructive(path: string, methods: Array<'GET' | 'POST'> = ['GET']): VulnPage {
  return {
    path,
    methods,
    title: `Destructive ${path}`,
    handle(request, reply, ctx) {
      list(ctx, DESTRUCTIVE_HITS).push(path);
      return reply.type('text/html').send(page('Done', '<p>Done.</p>'));
    },
  };
}

export const PAGES: VulnPage[] = [
  {
    path: '/crawl/',
    link: '/crawl/',
    title: 'Crawler test pages',
    handle(request, reply, ctx) {
      hit(request, ctx);
      const token = randomBytes(12).toString('hex');
      list(ctx, TOKENS).push(token);
      return reply.type('text/html').send(page('Crawler test pages', `${START}\n${profileForm(token)}`));
    },
  },
  plain('/crawl/linked', 'Linked page'),
  plain('/crawl/framed', 'Framed page'),
  plain('/crawl/from-script', 'Page named in a script'),
  plain('/crawl/from-handler', 'Page named in an event handler'),
  plain('/crawl/landed', 'Redirect target'),
  plain('/crawl/hidden-by-robots', 'Page named in robots.txt only'),
  plain('/crawl/only-in-sitemap', 'Page named in sitemap.xml only'),
  {
    path: '/crawl/redirect',
    title: 'Redirect',
    handle: (request, reply, ctx) => (hit(request, ctx), reply.redirect('/crawl/landed', 302)),
  },
  {
    path: '/crawl/api/items',
    title: 'Items (JSON)',
    handle: (request, reply, ctx) => (hit(request, ctx), reply.type('application/json').send({ items: [1, 2, 3] })),
  },
  {
    path: '/crawl/search',
    title: 'Search',
    handle(request, reply, ctx) {
      hit(request, ctx);
      return reply.type('text/html').send(page('Search', `<p>No results for ${escapeHtml(param(request, 'q'))}.</p>`));
    },
  },
  {
    path: '/crawl/profile',
    methods: ['POST'],
    title: 'Profile',
    // A state-changing form with a real anti-forgery token: refused without one the page issued.
    handle(request, reply, ctx) {
      hit(request, ctx);
      if (!list(ctx, TOKENS).includes(param(request, 'csrf_token'))) return reply.code(403).type('text/html').send(page('Refused', '<p>Bad token.</p>'));
      return reply.type('text/html').send(page('Profile', '<p>Saved.</p>'));
    },
  },
  {
    path: '/robots.txt',
    title: 'robots.txt',
    handle: (request, reply) =>
      reply.type('text/plain').send(`User-agent: *\nDisallow: /crawl/hidden-by-robots\nDisallow: /*.bak$\nSitemap: http://${request.headers.host}/sitemap.xml\n`),
  },
  {
    path: '/sitemap.xml',
    title: 'sitemap.xml',
    handle: (request, reply) =>
      reply
        .type('application/xml')
        .send(`<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://${request.headers.host}/crawl/only-in-sitemap</loc></url></urlset>\n`),
  },
  destructive('/crawl/delete'),
  destructive('/crawl/signout'),
  destructive('/crawl/archive'),
  destructive('/crawl/reset', ['POST']),
];
