/**
 * The passive checks: against the test application through a real web client on loopback (every
 * vulnerable page's expected finding, nothing on its safe twin, site-wide findings once), and on
 * synthetic responses for what the application cannot show (HTTPS, other stacks' error pages and
 * directory indexes, mixed content).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECKS } from '../src/engines/web/checks/passive.js';
import type { CheckContext, WebFindingDraft, WebResponse } from '../src/engines/web/contract.js';
import { startVulnApp } from './helpers/vuln-app/app.js';
import { PAGES } from './helpers/vuln-app/pages/passive.js';
import { startCheckRun } from './helpers/web-checks.js';

const pathOf = (url: string): string => new URL(url).pathname;

test('passive checks find every passive page of the test application once, and nothing on the safe twins', async (t) => {
  const app = await startVulnApp(t);
  const run = startCheckRun(t, app.url, { passive: CHECKS });
  // Every linked page of the application (the twins of other areas too: no passive finding may land under /safe/).
  for (const page of app.pages.filter((p) => p.link)) {
    await run.visit(page.link!);
    await run.visit(page.link!); // a second visit must not report again
  }
  await run.visit('/passive/unsubscribe?email=alice%40example.test&token=6f1ed002ab5595859014ebf0951522d9');
  await run.visit('/files/readme.txt');

  for (const page of PAGES.filter((p) => p.expect)) {
    const matching = run.drafts.filter((d) => d.ruleId === page.expect!.ruleId && pathOf(d.url) === page.path && d.parameter === page.expect!.parameter);
    assert.equal(matching.length, 1, `${page.path}: one ${page.expect!.ruleId} finding`);
  }
  assert.deepEqual(
    run.drafts.filter((d) => pathOf(d.url).startsWith('/safe/')).map((d) => `${d.ruleId} ${d.url}`),
    [],
  );
  // Site-wide header findings: once for the origin, at its root; no HSTS finding over plain HTTP.
  for (const ruleId of ['rampart:web-missing-csp', 'rampart:web-clickjacking', 'rampart:web-missing-nosniff']) {
    assert.deepEqual(run.drafts.filter((d) => d.ruleId === ruleId).map((d) => [d.url, d.parameter]), [[app.url, null]], ruleId);
  }
  assert.equal(run.drafts.filter((d) => d.ruleId === 'rampart:web-missing-hsts').length, 0);
  // The unflagged session cookie: no SameSite either, but no Secure finding over plain HTTP.
  assert.deepEqual(
    run.drafts.filter((d) => d.parameter === 'PHPSESSID').map((d) => d.ruleId).sort(),
    ['rampart:web-cookie-no-httponly', 'rampart:web-cookie-no-samesite'],
  );
  const error = run.drafts.find((d) => d.ruleId === 'rampart:web-error-disclosure')!;
  assert.match(error.summary, /PHP error/);
  assert.equal(error.proof[0]!.status, 500);
  // The link and the request to its target are one weakness, reported where the link was found.
  assert.deepEqual(run.drafts.filter((d) => d.ruleId === 'rampart:web-sensitive-url').map((d) => pathOf(d.url)), ['/passive/newsletter']);
});

/** A synthetic exchange. */
function response(url: string, fields: { status?: number; headers?: Record<string, string>; body?: string; requestUrl?: string; requestBody?: string } = {}): WebResponse {
  return {
    request: { method: 'GET', url: fields.requestUrl ?? url, headers: {}, body: fields.requestBody ?? '' },
    url,
    status: fields.status ?? 200,
    headers: { 'content-type': 'text/html; charset=utf-8', ...fields.headers },
    body: fields.body ?? '<!doctype html><html><head><title>x</title></head><body><p>Hello</p></body></html>',
    truncated: false,
    redirects: [],
    timeMs: 1,
  };
}

/** Every draft the passive checks make of these responses, in one scan. */
function inspect(...responses: WebResponse[]): WebFindingDraft[] {
  const drafts: WebFindingDraft[] = [];
  const ctx = { report: (draft: WebFindingDraft) => drafts.push(draft) } as unknown as CheckContext;
  for (const r of responses) for (const check of CHECKS) check.inspect?.(r, ctx);
  return drafts;
}

const rules = (drafts: WebFindingDraft[]): string[] => drafts.map((d) => d.ruleId.replace('rampart:web-', '')).sort();

const HARDENED = {
  'content-security-policy': "default-src 'self'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000',
  'x-content-type-options': 'nosniff',
};

test('security headers: HSTS only over HTTPS, frame-ancestors or X-Frame-Options prevent framing, a hardened page has no finding', () => {
  assert.deepEqual(rules(inspect(response('https://shop.example/a', { headers: HARDENED }))), []);
  assert.deepEqual(rules(inspect(response('https://shop.example/a', { headers: { ...HARDENED, 'strict-transport-security': 'max-age=0' } }))), ['missing-hsts']);
  assert.deepEqual(rules(inspect(response('https://shop.example/a'))), ['clickjacking', 'missing-csp', 'missing-hsts', 'missing-nosniff']);
  assert.deepEqual(rules(inspect(response('http://shop.example/a', { headers: { 'x-frame-options': 'SAMEORIGIN', 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'self'" } }))), []);
  // Only HTML pages, only successful ones.
  assert.deepEqual(rules(inspect(response('https://shop.example/a.json', { headers: { ...HARDENED, 'content-type': 'application/json' } }))), []);
  assert.deepEqual(rules(inspect(response('https://shop.example/missing', { status: 404, headers: { 'content-type': 'text/html' } }))), []);
  // Two pages of one origin: one finding per rule, at the origin's root.
  const drafts = inspect(response('https://shop.example/a'), response('https://shop.example/b?x=1'));
  assert.equal(drafts.length, 4);
  assert.ok(drafts.every((d) => d.url === 'https://shop.example/' && d.parameter === null));
});

test('cookie flags: session cookies without HttpOnly, Secure over HTTPS, SameSite; deletions and anti-forgery cookies left alone', () => {
  const setCookie = ['JSESSIONID=0A1B2C3D4E5F; Path=/', 'prefs=dark; Path=/; Secure; SameSite=Lax', 'XSRF-TOKEN=abcdef123456; Path=/; Secure; SameSite=Strict', 'sid=; Max-Age=0', 'auth=x1; Secure; HttpOnly; SameSite=None'].join('\n');
  const drafts = inspect(response('https://shop.example/login', { headers: { ...HARDENED, 'set-cookie': setCookie } }));
  assert.deepEqual(drafts.map((d) => `${d.ruleId.replace('rampart:web-', '')} ${d.parameter}`).sort(), ['cookie-no-httponly JSESSIONID', 'cookie-no-samesite JSESSIONID', 'cookie-no-secure JSESSIONID']);
  assert.ok(drafts.every((d) => d.location === 'cookie' && d.url === 'https://shop.example/login'));
  const none = inspect(response('https://shop.example/', { headers: { ...HARDENED, 'set-cookie': 'track=1234; Secure; SameSite=None\nlang=en; SameSite=None' } }));
  assert.deepEqual(none.map((d) => `${d.ruleId.replace('rampart:web-', '')} ${d.parameter}`), ['cookie-no-secure lang', 'cookie-no-samesite lang']);
});

test('version disclosure: a header with a version number, once per value', () => {
  const drafts = inspect(
    response('http://shop.example/', { headers: { server: 'Apache/2.4.41 (Ubuntu)', 'x-aspnet-version': '4.0.30319' } }),
    response('http://shop.example/b', { headers: { server: 'Apache/2.4.41 (Ubuntu)' } }),
    response('http://shop.example/c', { headers: { server: 'nginx', 'x-powered-by': 'Express' } }),
  ).filter((d) => d.ruleId === 'rampart:web-version-disclosure');
  assert.deepEqual(drafts.map((d) => d.highlight), ['Apache/2.4.41 (Ubuntu)', '4.0.30319']);
});

test('directory listings of common servers are recognised; an ordinary page mentioning one is not', () => {
  const bodies = [
    '<html><head><title>Index of /backup/</title></head><body><h1>Index of /backup/</h1><hr><pre><a href="../">../</a>\n<a href="db.sql">db.sql</a></pre></body></html>',
    '<html><head><title>127.0.0.1 - /data/</title></head><body><H1>127.0.0.1 - /data/</H1><hr><pre><A HREF="/">[To Parent Directory]</A><br></pre></body></html>',
    '<!DOCTYPE HTML><html><head><title>Directory listing for /tmp/</title></head><body><h1>Directory listing for /tmp/</h1></body></html>',
    '<!DOCTYPE html><html><head><title>listing directory /pub/</title></head><body></body></html>',
  ];
  for (const body of bodies) assert.deepEqual(rules(inspect(response('http://shop.example/d/', { headers: { ...HARDENED, 'x-frame-options': 'DENY' }, body }))), ['directory-listing'], body);
  assert.deepEqual(rules(inspect(response('http://shop.example/help', { headers: HARDENED, body: '<p>Our guide explains what "Index of /" pages are.</p>' }))), []);
});

test('error pages of common stacks and DBMS are recognised, unless the request itself sent the text', () => {
  const pages: Array<[string, string]> = [
    ['Java', 'java.lang.NullPointerException: null\n\tat com.shop.web.CartController.view(CartController.java:42)\n\tat java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)'],
    ['Python', 'Traceback (most recent call last):\n  File "/srv/app/views.py", line 12, in cart\n    raise KeyError(item)'],
    ['Node.js', 'TypeError: Cannot read properties of undefined (reading \'id\')<br> &nbsp; &nbsp;at getCart (/srv/app/routes/cart.js:17:21)'],
    ['.NET', "<title>Runtime Error</title><h1>Server Error in '/' Application.</h1>"],
    ['Ruby', "app/controllers/cart_controller.rb:12:in `show'"],
    ['PostgreSQL', 'ERROR:  unterminated quoted string at or near "\'1" LINE 1: SELECT * FROM items WHERE id = \'1'],
    ['Microsoft SQL Server', "Unclosed quotation mark after the character string '1'."],
    ['Oracle', 'ORA-01756: quoted string not properly terminated'],
    ['SQLite', 'sqlite3.OperationalError: unrecognized token: "\'"'],
  ];
  for (const [stack, body] of pages) {
    const drafts = inspect(response('http://shop.example/cart?id=1', { status: 500, headers: HARDENED, body: `<html><body><pre>${body}</pre></body></html>` }));
    assert.deepEqual(rules(drafts), ['error-disclosure'], stack);
    assert.equal(drafts[0]!.url, 'http://shop.example/cart');
  }
  // A page echoing the request (escaped or not) does not disclose anything by echoing it.
  const echoed = 'You have an error in your SQL syntax';
  assert.deepEqual(rules(inspect(response('http://shop.example/search', { headers: HARDENED, requestUrl: `http://shop.example/search?q=${encodeURIComponent(echoed)}`, body: `<p>No results for ${echoed}</p>` }))), []);
  assert.deepEqual(rules(inspect(response('http://shop.example/comment', { headers: HARDENED, requestBody: `text=${encodeURIComponent(echoed)}`, body: `<p>${echoed}</p>` }))), []);
});

test('mixed content: an HTTPS page loading a script, style, frame or image over http:, not links nor HTTPS resources', () => {
  for (const tag of ['<script src="http://cdn.example/app.js"></script>', '<link rel="stylesheet" href="http://cdn.example/a.css">', '<iframe src="http://ads.example/"></iframe>', '<img src="HTTP://img.example/a.png">']) {
    const drafts = inspect(response('https://shop.example/p', { headers: HARDENED, body: `<html><body>${tag}</body></html>` }));
    assert.deepEqual(rules(drafts), ['mixed-content'], tag);
  }
  const fine = '<a href="http://other.example/">other</a><script src="https://cdn.example/app.js"></script><img src="//img.example/a.png">';
  assert.deepEqual(rules(inspect(response('https://shop.example/p', { headers: HARDENED, body: fine }))), []);
  assert.deepEqual(rules(inspect(response('http://shop.example/p', { headers: { ...HARDENED, 'strict-transport-security': '' }, body: '<script src="http://cdn.example/app.js"></script>' }))), []);
});

test('sensitive URLs: passwords with any value, tokens and keys with secret-looking values, in redirects and links; never in a request URL, which may be a probe', () => {
  const redirected = inspect(response('http://shop.example/login', { headers: { ...HARDENED, location: '/welcome?user=alice&password=hunter2' } }));
  assert.deepEqual(redirected.map((d) => [d.ruleId, d.url, d.parameter]), [['rampart:web-sensitive-url', 'http://shop.example/login', 'password']]);
  const probe = inspect(response('http://shop.example/talks', { headers: HARDENED, requestUrl: "http://shop.example/talks?session=2024' AND '1234'='1234" }));
  assert.deepEqual(probe, [], 'an active check\'s payload in a parameter named like a secret is not the site\'s doing');
  const shortToken = inspect(response('http://shop.example/list', { headers: { ...HARDENED, location: '/list?token=1&session=spring' } }));
  assert.deepEqual(shortToken, []);
  const link = inspect(response('http://shop.example/mail', { headers: HARDENED, body: '<a href="https://api.example/v1/items?api_key=AKIAEXAMPLE1234567">items</a><a href="/p?page=2">next</a>' }));
  assert.deepEqual(link.map((d) => [d.url, d.parameter]), [['http://shop.example/mail', 'api_key']]);
});
