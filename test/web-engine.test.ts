/**
 * The web scanner (issue 16): the crawler against the test application (links of every kind,
 * forms, robots.txt, sitemap.xml, script URLs, scope, limits, destructive links left alone), the
 * engine (targets, login and lost sessions, options), findings and their evidence, the rule table
 * in docs/WEB-SCANNER.md, and a ZAP scan through the API that must find every vulnerable page of
 * the test application and nothing on its safe twins.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ALL_RULES } from '../src/engines/web/checks/index.js';
import { BudgetExhausted, type SiteMap, type WebCheck, type WebFindingDraft, type WebResponse, type WebRule } from '../src/engines/web/contract.js';
import { crawl, type CrawlOptions } from '../src/engines/web/crawl/crawl.js';
import { looksDestructive } from '../src/engines/web/crawl/destructive.js';
import { createSessionKeeper } from '../src/engines/web/crawl/session.js';
import { createFindingSink, evidenceOf } from '../src/engines/web/findings.js';
import { createWebClient } from '../src/engines/web/http/client.js';
import { applyWebOptions, webOptionsSchema } from '../src/engines/web/options.js';
import { renderWebRuleTable, webRuleProblem } from '../src/engines/web/severity.js';
import { createWebEngine } from '../src/engines/web/web.engine.js';
import type { EngineEvent, EngineJob } from '../src/engines/engine.js';
import { EngineError } from '../src/engines/engine.js';
import { LOOPBACK_EGRESS } from './helpers/egress.js';
import { CREDENTIALS, startVulnApp, type VulnApp } from './helpers/vuln-app/app.js';
import { CRAWL_HITS, DESTRUCTIVE_HITS } from './helpers/vuln-app/pages/crawl.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function clientFor(url: string, extra: Partial<Parameters<typeof createWebClient>[0]> = {}) {
  return createWebClient({
    egress: LOOPBACK_EGRESS,
    start: url,
    signal: AbortSignal.timeout(60_000),
    ratePerSecond: 0,
    maxConcurrency: 8,
    timeoutMs: 5_000,
    maxRequests: 5_000,
    deadline: Date.now() + 60_000,
    ...extra,
  });
}

async function crawlApp(start: string, options: Partial<CrawlOptions> = {}) {
  const client = options.client ?? clientFor(start);
  const site: SiteMap = { start, pages: [], endpoints: [] };
  const logs: string[] = [];
  const outcome = await crawl({
    client,
    start,
    site,
    signal: AbortSignal.timeout(60_000),
    maxPages: 500,
    maxDepth: 10,
    concurrency: 4,
    allowDestructive: false,
    session: createSessionKeeper(undefined, 0),
    log: (_level, message) => void logs.push(message),
    ...options,
  });
  const paths = site.pages.flatMap((p) => [...new Set([p.url, p.response.url])].map((url) => new URL(url).pathname));
  return { site, outcome, paths, client };
}

const hits = (app: VulnApp, key: string): string[] => (app.ctx.state.get(key) as string[] | undefined) ?? [];

test('the crawler finds every linked page, forms with all their fields, robots.txt, sitemap.xml and script URLs, and leaves destructive links alone', async (t) => {
  const app = await startVulnApp(t);
  const { site, outcome, paths } = await crawlApp(app.url);

  // Every page the index links (whatever pages the application has), and each crawl page reached its own way.
  for (const p of app.pages.filter((p) => p.link)) assert.ok(paths.includes(new URL(p.link!, app.url).pathname), `${p.link} was crawled`);
  for (const p of ['/crawl/linked', '/crawl/framed', '/crawl/from-script', '/crawl/from-handler', '/crawl/api/items', '/crawl/landed', '/crawl/hidden-by-robots', '/crawl/only-in-sitemap', '/crawl/search']) {
    assert.ok(paths.includes(p), `${p} was crawled (crawled: ${paths.join(' ')})`);
  }
  // One query shape, one fetch: /crawl/linked?ref=a and ?ref=b are one endpoint.
  assert.equal(hits(app, CRAWL_HITS).filter((url) => url.startsWith('/crawl/linked')).length, 1);
  assert.equal(site.endpoints.filter((e) => e.url.endsWith('/crawl/linked')).length, 1);
  assert.deepEqual(new Set(site.endpoints.map((e) => e.key)).size, site.endpoints.length, 'endpoints are unique by key');
  // Sources are said.
  const source = (suffix: string) => site.endpoints.find((e) => e.url.endsWith(suffix))?.source;
  assert.equal(source('/crawl/from-script'), 'script');
  assert.equal(source('/crawl/hidden-by-robots'), 'robots');
  assert.equal(source('/crawl/only-in-sitemap'), 'sitemap');
  assert.equal(source('/crawl/landed'), 'redirect');
  assert.ok(!site.endpoints.some((e) => e.url.includes('example.com')), 'nothing out of scope is recorded');

  // The profile form: every field, plausible values in the empty ones, the first submit button, radios as one field.
  const form = site.endpoints.find((e) => e.method === 'POST' && e.url.endsWith('/crawl/profile'));
  assert.ok(form?.body, 'the POST form is an endpoint');
  assert.equal(form.body.encoding, 'urlencoded');
  const values = Object.fromEntries(form.body.fields.map((f) => [f.name, f.value]));
  assert.deepEqual(Object.keys(values).sort(), ['action', 'age', 'bio', 'born', 'contact', 'country', 'csrf_token', 'find', 'homepage', 'newsletter', 'nickname', 'phone', 'plan', 'secret'].sort());
  assert.equal(values.contact, 'rampart@example.com');
  assert.equal(values.age, '1');
  assert.equal(values.homepage, 'https://example.com/');
  assert.equal(values.born, '2024-01-01');
  assert.equal(values.country, 'de', 'the selected option');
  assert.equal(values.plan, 'pro', 'the checked radio');
  assert.equal(values.newsletter, 'yes');
  assert.match(values.csrf_token!, /^[0-9a-f]{24}$/, 'hidden fields keep their value');
  assert.deepEqual(form.body.fields.find((f) => f.name === 'country')?.options, ['fr', 'de']);
  assert.equal(form.body.fields.find((f) => f.name === 'action')?.type, 'submit');
  assert.equal(hits(app, CRAWL_HITS).filter((url) => url.startsWith('/crawl/profile')).length, 0, 'POST forms are not submitted by the crawl');
  // The GET form was fetched as a page with its field.
  assert.ok(site.endpoints.some((e) => e.method === 'GET' && e.url.endsWith('/crawl/search') && e.query.some(([name]) => name === 'q')));

  // Destructive and session-ending links and forms: never requested, never recorded, said.
  assert.deepEqual(hits(app, DESTRUCTIVE_HITS), []);
  for (const p of ['/crawl/delete', '/crawl/signout', '/crawl/archive', '/crawl/reset']) {
    assert.ok(!site.endpoints.some((e) => e.url.endsWith(p)), `${p} is not an endpoint`);
    assert.ok(outcome.destructiveSkipped.some((s) => s.includes(p)), `${p} is named as left alone`);
  }
  assert.equal(outcome.stoppedBy, null);
});

test('allow_destructive lets the crawler follow destructive links', async (t) => {
  const app = await startVulnApp(t);
  await crawlApp(`${app.url}crawl/`, { allowDestructive: true });
  assert.deepEqual(hits(app, DESTRUCTIVE_HITS).sort(), ['/crawl/archive', '/crawl/delete', '/crawl/signout']);
});

test('the crawler stays within the start path, and stops at the page limit and the request budget', async (t) => {
  const app = await startVulnApp(t);
  const scoped = await crawlApp(`${app.url}crawl/`);
  assert.ok(scoped.paths.length > 3);
  assert.ok(scoped.paths.every((p) => p.startsWith('/crawl/')), scoped.paths.join(' '));
  assert.ok(scoped.paths.includes('/crawl/hidden-by-robots'), 'robots.txt at the origin is read for a sub-path scope');
  assert.ok(!hits(app, CRAWL_HITS).includes('/'), 'the index, out of scope, was not fetched');

  const capped = await crawlApp(app.url, { maxPages: 3 });
  assert.equal(capped.outcome.stoppedBy, 'pages');
  assert.equal(capped.site.pages.length, 3);

  const shallow = await crawlApp(app.url, { maxDepth: 0 });
  assert.equal(shallow.site.pages.length, 1, 'depth 0: the start page only');
  assert.ok(shallow.site.endpoints.length > 1, 'its links are still recorded');

  const budget = await crawlApp(app.url, { client: clientFor(app.url, { maxRequests: 4 }) });
  assert.equal(budget.outcome.stoppedBy, 'budget');
  assert.equal(budget.client.requestsSent, 4);
});

test('destructive words: in paths, queries, link texts and labels, not inside harmless words', () => {
  for (const text of ['/user/delete/3', '/delete_user.php', '/item?action=remove', 'Sign out', 'Log Out', '/logout', 'deleteUser', '/setup.php', '/install/', 'Reset all settings', 'DROP TABLE']) {
    assert.ok(looksDestructive(text), text);
  }
  for (const text of ['/dropdown', '/settings', '/products?id=3', 'Sign in', '/undeleted', '/model/list', '/delivery', '/login']) assert.ok(!looksDestructive(text), text);
});
