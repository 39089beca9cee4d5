import { randomBytes } from 'node:crypto';
import { escapeHtml, page, param, type VulnAppContext, type VulnPage } from '../app.js';

/** Guestbook entries kept per app and per page (vulnerable and safe apart); old ones drop off. */
const MAX_ENTRIES = 200;

function entries(ctx: VulnAppContext, key: string): Array<{ author: string; message: string }> {
  let list = ctx.state.get(key) as Array<{ author: string; message: string }> | undefined;
  if (!list) {
    list = [];
    ctx.state.set(key, list);
  }
  return list;
}

/**
 * The guestbook's anti-forgery token (one per app): the form carries it and a POST without it is
 * refused, so that the guestbooks are not CSRF findings; stored XSS is what they are about.
 */
export function guestbookToken(ctx: VulnAppContext): string {
  let token = ctx.state.get('guestbook-csrf') as string | undefined;
  if (!token) {
    token = randomBytes(16).toString('hex');
    ctx.state.set('guestbook-csrf', token);
  }
  return token;
}

/** A guestbook: POST stores an entry and redirects to the list; `show` writes the message out (escaped or not). */
function guestbook(route: string, show: (message: string) => string): VulnPage['handle'] {
  return (request, reply, ctx) => {
    const list = entries(ctx, route);
    if (request.method === 'POST') {
      if (param(request, 'csrf_token') !== guestbookToken(ctx)) return reply.code(403).type('text/html').send(page('Guestbook', '<p>The form expired; please sign again.</p>'));
      list.push({ author: param(request, 'author'), message: param(request, 'message') });
      if (list.length > MAX_ENTRIES) list.shift();
      return reply.redirect(route, 303);
    }
    const shown = list.map((e) => `<li><b>${escapeHtml(e.author)}</b>: ${show(e.message)}</li>`).join('\n');
    const form = `<form method="post" action="${route}"><input type="hidden" name="csrf_token" value="${guestbookToken(ctx)}"><input name="author" value="visitor"> <textarea name="message">Hello</textarea> <button type="submit">Sign</button></form>`;
    return reply.type('text/html').send(page('Guestbook', `${form}\n<ul>\n${shown}\n</ul>`));
  };
}

/** Only http(s) URLs, HTML-escaped: the link twin's defence. */
function safeUrl(url: string): string {
  return /^https?:\/\//i.test(url) ? escapeHtml(url) : '#';
}

/** A JavaScript string literal that cannot end the string nor the script. */
function jsString(text: string): string {
  return JSON.stringify(text).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
}

/**
 * Cross-site scripting: input in HTML text, in a quoted attribute value, in a script's string
 * literal and in a link's href (HTML-escaped, but `javascript:` accepted), and a guestbook that
 * stores its message and shows it unescaped (its author is escaped: one finding, on `message`).
 * The twins escape for each context, accept only http(s) links, and escape the guestbook on output.
 */
export const PAGES: VulnPage[] = [
  {
    path: '/xss/search',
    link: '/xss/search?q=shoes',
    title: 'XSS: search',
    expect: { ruleId: 'rampart:web-xss-reflected', parameter: 'q' },
    handle: (request, reply) => reply.type('text/html').send(page('Search', `<p>Results for ${param(request, 'q')}: none.</p>`)),
  },
  {
    path: '/safe/xss/search',
    link: '/safe/xss/search?q=shoes',
    title: 'Safe: search',
    handle: (request, reply) => reply.type('text/html').send(page('Search', `<p>Results for ${escapeHtml(param(request, 'q'))}: none.</p>`)),
  },
  {
    path: '/xss/attr',
    link: '/xss/attr?name=alice',
    title: 'XSS: attribute',
    expect: { ruleId: 'rampart:web-xss-reflected', parameter: 'name' },
    handle: (request, reply) => reply.type('text/html').send(page('Profile', `<form><input name="name" value="${param(request, 'name')}"><button>Save</button></form>`)),
  },
  {
    path: '/safe/xss/attr',
    link: '/safe/xss/attr?name=alice',
    title: 'Safe: attribute',
    handle: (request, reply) => reply.type('text/html').send(page('Profile', `<form><input name="name" value="${escapeHtml(param(request, 'name'))}"><button>Save</button></form>`)),
  },
  {
    path: '/xss/script',
    link: '/xss/script?user=alice',
    title: 'XSS: script',
    expect: { ruleId: 'rampart:web-xss-reflected', parameter: 'user' },
    handle: (request, reply) => reply.type('text/html').send(page('Welcome', `<script>var user = '${param(request, 'user')}'; document.title = 'Hi ' + user;</script>`)),
  },
  {
    path: '/safe/xss/script',
    link: '/safe/xss/script?user=alice',
    title: 'Safe: script',
    handle: (request, reply) => reply.type('text/html').send(page('Welcome', `<script>var user = ${jsString(param(request, 'user'))}; document.title = 'Hi ' + user;</script>`)),
  },
  {
    path: '/xss/link',
    link: '/xss/link?url=https%3A%2F%2Fexample.org%2F',
    title: 'XSS: link',
    expect: { ruleId: 'rampart:web-xss-reflected', parameter: 'url' },
    handle: (request, reply) => reply.type('text/html').send(page('Your site', `<p><a href="${escapeHtml(param(request, 'url'))}">Your web site</a></p>`)),
  },
  {
    path: '/safe/xss/link',
    link: '/safe/xss/link?url=https%3A%2F%2Fexample.org%2F',
    title: 'Safe: link',
    handle: (request, reply) => reply.type('text/html').send(page('Your site', `<p><a href="${safeUrl(param(request, 'url'))}">Your web site</a></p>`)),
  },
  {
    path: '/guestbook',
    methods: ['GET', 'POST'],
    link: '/guestbook',
    title: 'XSS: guestbook',
    expect: { ruleId: 'rampart:web-xss-stored', parameter: 'message', method: 'POST' },
    handle: guestbook('/guestbook', (message) => message),
  },
  {
    path: '/safe/guestbook',
    methods: ['GET', 'POST'],
    link: '/safe/guestbook',
    title: 'Safe: guestbook',
    handle: guestbook('/safe/guestbook', escapeHtml),
  },
];
