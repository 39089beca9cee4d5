/**
 * The web scanner (issue 16): the crawler against the test application (links of every kind,
 * forms, robots.txt, sitemap.xml, script URLs, scope, limits, destructive links left alone), the
 * engine (targets, login and lost sessions, options), findings and their evidence, the rule table
 * in docs/WEB-SCANNER.md, and ZAP scans through the API that must find every vulnerable page of
 * the test application and nothing on its safe twins: one of the open application, one of its
 * authenticated variant signed in by a Selenium login script (skipped without python3-selenium,
 * chromium and chromium-driver), and one whose login script fails.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startBackground } from '../src/runs/background.js';
import { ALL_RULES } from '../src/engines/web/checks/index.js';
import { RULES as PASSIVE_RULES } from '../src/engines/web/checks/passive.js';
import { BudgetExhausted, type SiteMap, type WebCheck, type WebFindingDraft, type WebResponse, type WebRule } from '../src/engines/web/contract.js';
import { crawl, type CrawlOptions } from '../src/engines/web/crawl/crawl.js';
import { looksDestructive } from '../src/engines/web/crawl/destructive.js';
import { createSessionKeeper } from '../src/engines/web/crawl/session.js';
import { createFindingSink, evidenceOf } from '../src/engines/web/findings.js';
import { createWebClient } from '../src/engines/web/http/client.js';
import { loginScriptSupport } from '../src/engines/web/login/support.js';
import { applyWebOptions, webOptionsSchema } from '../src/engines/web/options.js';
import { renderWebRuleTable, webRuleProblem } from '../src/engines/web/severity.js';
import { createWebEngine } from '../src/engines/web/web.engine.js';
import type { EngineEvent, EngineJob } from '../src/engines/engine.js';
import { EngineError } from '../src/engines/engine.js';
import { buildTestApp, signUp, STORE_KIND } from './helpers/app.js';
import { LOOPBACK_EGRESS } from './helpers/egress.js';
import { waitFor } from './helpers/servers.js';
import { startVulnDatabase } from './helpers/vuln-app/database.js';
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

/** A rule for the test checks (the real ones come from checks/index.ts). */
const TEST_RULE: WebRule = {
  ruleId: 'rampart:web-test-echo',
  name: 'Input echoed',
  description: 'The input comes back in the page.',
  solution: 'Nothing: a test rule.',
  cwe: 'CWE-79',
  references: ['https://example.com/echo'],
  threat: 'Medium',
  cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
  cvssBase: 6.1,
  reason: 'A test rating with its CVSS vector, long enough.',
};
const PASSIVE_RULE: WebRule = { ...TEST_RULE, ruleId: 'rampart:web-test-passive', name: 'Page seen', threat: 'Informational', cvssVector: null, cvssBase: null, cwe: 'CWE-200' };

/** An active check that sends a token in each query input and reports it when it comes back (twice: one finding). */
const echoCheck: WebCheck = {
  id: 'test-echo',
  kind: 'active',
  appliesTo: (point) => point.location === 'query',
  async testInput(point, ctx) {
    const { requestFor } = await import('../src/engines/web/inputs.js');
    const token = ctx.token();
    assert.match(token, /^[a-z0-9]{8}$/);
    const response = await ctx.client.send(requestFor(point.endpoint, { point, value: token }));
    if (!response.body.includes(token)) return;
    const draft: WebFindingDraft = { ruleId: TEST_RULE.ruleId, url: point.endpoint.url, method: point.endpoint.method, parameter: point.name, location: point.location, proof: [response], summary: `The token ${token} came back.`, highlight: token };
    ctx.report(draft);
    ctx.report({ ...draft, summary: 'again' });
  },
};
/** A passive check reporting every HTML page once (a page-level finding). */
const passiveCheck: WebCheck = {
  id: 'test-passive',
  kind: 'passive',
  inspect(response, ctx) {
    if (/html/.test(response.headers['content-type'] ?? '') && new URL(response.url).pathname === '/crawl/framed') {
      ctx.report({ ruleId: PASSIVE_RULE.ruleId, url: response.url, method: response.request.method, parameter: null, proof: [response], summary: 'Seen.' });
    }
  },
};
/** A check with a bug. */
const brokenCheck: WebCheck = {
  id: 'test-broken',
  kind: 'active',
  async testEndpoint() {
    throw new Error('a bug');
  },
};

function jobFor(targets: EngineJob['targets'], extra: Partial<EngineJob> = {}): EngineJob {
  return {
    targets,
    ports: 'default',
    limits: { connectTimeoutMs: 5000, readTimeoutMs: 5000, maxConcurrency: 16, ratePerSecond: 0 },
    guard: LOOPBACK_EGRESS.guard,
    egress: LOOPBACK_EGRESS,
    signal: AbortSignal.timeout(90_000),
    ...extra,
  };
}

async function collect(events: AsyncIterable<EngineEvent>): Promise<EngineEvent[]> {
  const out: EngineEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

test('the engine refuses targets other than URLs, and login scripts without a runner, as config errors', async () => {
  const engine = createWebEngine();
  await assert.rejects(collect(engine.run(jobFor([{ kind: 'ip', value: '127.0.0.1' }]))), (error: unknown) => error instanceof EngineError && error.kind === 'config' && /URL targets/.test(error.message));
  await assert.rejects(
    collect(engine.run(jobFor([{ kind: 'url', value: 'http://127.0.0.1:9/' }], { loginScript: 'print(1)' }))),
    (error: unknown) => error instanceof EngineError && error.kind === 'config' && /Authenticated scans need the login script runner/.test(error.message),
  );
});

test('a budget spent by the checks (not the crawl) makes the run incomplete, and the units left are not started', async (t) => {
  const server = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<a href="/a?x=1">a</a> <a href="/b?y=1">b</a>'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const start = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  let started = 0;
  // A check that probes until the budget stops it, returning quietly as the contract asks.
  const greedy: WebCheck = {
    id: 'greedy',
    kind: 'active',
    async testInput(point, ctx) {
      started++;
      try {
        for (let i = 0; i < 100; i++) await ctx.client.send({ method: 'GET', url: `${point.endpoint.url}?${point.name}=${i}` });
      } catch (error) {
        if (!(error instanceof BudgetExhausted)) throw error;
      }
    },
  };
  const events = await collect(createWebEngine({ checks: [greedy], rules: [] }).run(jobFor([{ kind: 'url', value: start }], { options: { max_requests: 30, concurrency: 1 } })));
  const incomplete = events.flatMap((e) => (e.type === 'incomplete' ? [e.message] : []));
  assert.ok(incomplete.some((m) => /ran out of its request budget/.test(m)), JSON.stringify(incomplete));
  assert.equal(started, 1, 'the second input was not started once the budget was spent');
});

test('a start URL that redirects out of the scope makes the run incomplete, saying where it went', async (t) => {
  const server = http.createServer((_request, response) => response.writeHead(301, { location: 'https://127.0.0.1:9/' }).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const start = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  const events = await collect(createWebEngine({ checks: [echoCheck], rules: [TEST_RULE] }).run(jobFor([{ kind: 'url', value: start }])));
  const incomplete = events.flatMap((e) => (e.type === 'incomplete' ? [e.message] : []));
  assert.ok(incomplete.some((m) => m.includes(`${start} redirects to https://127.0.0.1:9/`)), JSON.stringify(incomplete));
});

test('a run: identity, crawl, passive and active checks, one finding per weakness with its location and evidence, failures logged, progress to 100', async (t) => {
  const app = await startVulnApp(t);
  const engine = createWebEngine({ checks: [echoCheck, passiveCheck, brokenCheck], rules: [TEST_RULE, PASSIVE_RULE] });
  const events = await collect(engine.run(jobFor([{ kind: 'url', value: `${app.url}crawl/` }])));
  assert.deepEqual(events[0], { type: 'engine', name: 'rampart-web', version: '0.1.0', detail: '3 checks' });
  assert.ok(events.some((e) => e.type === 'host' && e.state === 'up' && e.address === '127.0.0.1'));
  const progress = events.flatMap((e) => (e.type === 'progress' ? [e.percent] : []));
  assert.deepEqual(progress, [...progress].sort((a, b) => a - b), 'progress never goes back');
  assert.equal(progress.at(-1), 100);
  assert.ok(!events.some((e) => e.type === 'incomplete'), JSON.stringify(events.filter((e) => e.type === 'incomplete')));

  const findings = events.flatMap((e) => (e.type === 'finding' ? [e.finding] : []));
  const echo = findings.filter((f) => f.ruleId === TEST_RULE.ruleId);
  assert.deepEqual(echo.map((f) => `${new URL(f.url!).pathname} ${f.method} ${f.parameter}`).sort(), ['/crawl/search GET q'], 'the one input that echoes, once');
  const found = echo[0]!;
  assert.equal(found.hostname, '127.0.0.1');
  assert.equal(found.hostIp, '127.0.0.1');
  assert.equal(found.port, app.port);
  assert.equal(found.service, 'http');
  assert.equal(found.protocol, 'tcp');
  assert.equal(found.cwe, 'CWE-79');
  assert.equal(found.threat, 'Medium');
  assert.equal(found.cvssBase, 6.1);
  assert.match(found.description, /Severity: rated Medium by its CVSS v3\.1 base score 6\.1/);
  assert.match(found.evidence, /^The token [a-z0-9]{8} came back\./);
  assert.match(found.evidence, /--- Request ---\nGET \/crawl\/search\?q=[a-z0-9]{8} HTTP\/1\.1\nhost: 127\.0\.0\.1:\d+/);
  assert.match(found.evidence, /--- Response ---\nHTTP\/1\.1 200\ncontent-type: text\/html/);
  assert.match(found.evidence, /No results for [a-z0-9]{8}/);
  assert.equal(findings.filter((f) => f.ruleId === PASSIVE_RULE.ruleId).length, 1, 'the passive finding once, however often the page was seen');
  const logs = events.flatMap((e) => (e.type === 'log' ? [e.message] : []));
  assert.ok(logs.some((m) => /The test-broken check failed on GET http:\/\/127\.0\.0\.1:\d+\/crawl\/.*: a bug/.test(m)), logs.join('\n'));
  assert.ok(logs.some((m) => /^Crawled \d+ pages of /.test(m)));
  assert.ok(logs.some((m) => /Left alone .*\/crawl\/delete/.test(m)));
  assert.deepEqual(hits(app, DESTRUCTIVE_HITS), []);
});

test('a check of a whole form runs alone on it: the checks of its inputs do not submit the form meanwhile, and submit it together', async (t) => {
  const app = await startVulnApp(t);
  const { requestFor } = await import('../src/engines/web/inputs.js');
  const isProfile = (url: string): boolean => new URL(url).pathname === '/crawl/profile';
  let inputsInFlight = 0;
  let mostInputsAtOnce = 0;
  const seenByFormCheck: number[] = [];
  const inputCheck: WebCheck = {
    id: 'test-input-submits',
    kind: 'active',
    appliesTo: (point) => point.location === 'body' && isProfile(point.endpoint.url),
    async testInput(point, ctx) {
      mostInputsAtOnce = Math.max(mostInputsAtOnce, ++inputsInFlight);
      try {
        for (let i = 0; i < 3; i++) await ctx.client.send(requestFor(point.endpoint, { point, value: ctx.token() }));
      } finally {
        inputsInFlight--;
      }
    },
  };
  const formCheck: WebCheck = {
    id: 'test-form-state',
    kind: 'active',
    async testEndpoint(endpoint, ctx) {
      if (endpoint.method !== 'POST' || !isProfile(endpoint.url)) return;
      seenByFormCheck.push(inputsInFlight);
      await ctx.client.send(requestFor(endpoint, {}));
      seenByFormCheck.push(inputsInFlight);
    },
  };
  const engine = createWebEngine({ checks: [inputCheck, formCheck], rules: [] });
  await collect(engine.run(jobFor([{ kind: 'url', value: `${app.url}crawl/` }])));
  assert.deepEqual(seenByFormCheck, [0, 0], 'no input check was submitting the form while the form check ran');
  assert.ok(mostInputsAtOnce > 1, 'the input checks on the form still ran side by side');
});

test('the options: checks and exclude_checks choose the checks, max_requests makes the run incomplete, rates are capped by the deployment', async (t) => {
  const app = await startVulnApp(t);
  const engine = createWebEngine({ checks: [echoCheck, passiveCheck], rules: [TEST_RULE, PASSIVE_RULE] });
  const only = await collect(engine.run(jobFor([{ kind: 'url', value: `${app.url}crawl/` }], { options: { exclude_checks: ['test-echo'] } })));
  assert.equal((only[0] as { detail: string }).detail, '1 checks');
  assert.ok(!only.some((e) => e.type === 'finding' && e.finding.ruleId === TEST_RULE.ruleId));
  const capped = await collect(engine.run(jobFor([{ kind: 'url', value: `${app.url}crawl/` }], { options: { max_requests: 3 } })));
  assert.ok(capped.some((e) => e.type === 'incomplete' && /request budget/.test(e.message)), JSON.stringify(capped.filter((e) => e.type !== 'progress')));

  const applied = applyWebOptions({ options: { rate_per_second: 500, concurrency: 64, checks: ['sqli'] }, limits: { ratePerSecond: 100, maxConcurrency: 16, connectTimeoutMs: 1, readTimeoutMs: 1 } });
  assert.equal(applied.ratePerSecond, 100);
  assert.equal(applied.concurrency, 16);
  assert.ok(applied.runsCheck('sqli') && !applied.runsCheck('xss'));
  const defaults = applyWebOptions({ options: {}, limits: { ratePerSecond: 0, maxConcurrency: 100, connectTimeoutMs: 1, readTimeoutMs: 1 } });
  assert.deepEqual([defaults.maxPages, defaults.maxDepth, defaults.maxRequests, defaults.maxDurationMs, defaults.ratePerSecond, defaults.concurrency, defaults.requestTimeoutMs, defaults.allowDestructive], [500, 10, 20_000, 30 * 60_000, 50, 8, 10_000, false]);
  const schema = webOptionsSchema({ ratePerSecond: 100, maxConcurrency: 16 }, ['sqli', 'xss-reflected']) as unknown as { properties: Record<string, { maximum?: number; items?: { enum?: string[] } }> };
  assert.deepEqual(schema.properties.checks!.items!.enum, ['sqli', 'xss-reflected'], 'only the engine\'s check ids');
  assert.equal(schema.properties.rate_per_second!.maximum, 100);
  assert.equal(schema.properties.concurrency!.maximum, 16);
});

test('an authenticated run logs in first, and logs in again when the session is lost', async (t) => {
  const app = await startVulnApp(t, { login: true });
  let calls = 0;
  const engine = createWebEngine({
    checks: [],
    rules: [],
    // The first session is already dead (as if it expired at once); the second is real.
    async login({ script, startUrl }) {
      calls++;
      assert.equal(script, 'print("login")');
      assert.equal(startUrl, app.url);
      if (calls === 1) return { cookies: [{ name: 'sid', value: 'deadbeef' }], storage: { local: {}, session: {} }, headers: {} };
      const response = await fetch(`${app.url}login`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(CREDENTIALS).toString() });
      const sid = /sid=([a-f0-9]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
      assert.ok(sid, 'the test login worked');
      return { cookies: [{ name: 'sid', value: sid, path: '/' }], storage: { local: {}, session: {} }, headers: {} };
    },
  });
  const events = await collect(engine.run(jobFor([{ kind: 'url', value: app.url }], { loginScript: 'print("login")' })));
  assert.equal(calls, 2, 'logged in, then again when the first page showed the login');
  assert.equal(app.logins(), 1);
  assert.ok(hits(app, CRAWL_HITS).includes('/crawl/framed'), 'pages behind the login were crawled');
  const logs = events.flatMap((e) => (e.type === 'log' ? [e.message] : []));
  assert.ok(logs.some((m) => /session was lost and restored 1 time/.test(m)), logs.join('\n'));
});

test('a stopped run ends promptly without an error', async (t) => {
  const app = await startVulnApp(t);
  const controller = new AbortController();
  const stopper: WebCheck = { id: 'test-stop', kind: 'active', async testEndpoint() { controller.abort(); } };
  const engine = createWebEngine({ checks: [stopper], rules: [] });
  const events = await collect(engine.run(jobFor([{ kind: 'url', value: `${app.url}crawl/` }], { signal: controller.signal })));
  assert.ok(controller.signal.aborted);
  assert.ok(!events.some((e) => e.type === 'progress' && e.percent === 100), 'the run did not pretend to finish');
});

test('findings: evidence excerpts around the highlight with secrets masked, one finding per rule, url, method and parameter, unknown rules are bugs', () => {
  const body = `${'x'.repeat(5000)}<p>SQL syntax error near 'abc'</p>${'y'.repeat(5000)}`;
  const exchange: WebResponse = {
    request: { method: 'POST', url: 'https://shop.example/a/b?id=1', headers: { 'user-agent': 'ua', cookie: 'session=s3cr3t-value', 'content-type': 'application/x-www-form-urlencoded' }, body: "name=abc'&password=hunter2" },
    url: 'https://shop.example/a/b?id=1',
    status: 500,
    headers: { 'content-type': 'text/html', 'set-cookie': 'session=abc123; HttpOnly\nother=1' },
    body,
    truncated: false,
    redirects: [],
    timeMs: 12,
  };
  const draft: WebFindingDraft = { ruleId: TEST_RULE.ruleId, url: 'https://shop.example/a/b#frag', method: 'post', parameter: 'name', location: 'body', proof: [exchange], summary: 'An error came back.', highlight: 'SQL syntax error' };
  const evidence = evidenceOf(draft);
  assert.match(evidence, /^An error came back\.\n\nParameter: name \(body\)/);
  assert.match(evidence, /POST \/a\/b\?id=1 HTTP\/1\.1\nhost: shop\.example\n/);
  assert.ok(!evidence.includes('user-agent'), 'routine headers are left out');
  assert.ok(!evidence.includes('s3cr3t') && !evidence.includes('hunter2') && !evidence.includes('abc123'), 'secrets are masked');
  assert.match(evidence, /HTTP\/1\.1 500\ncontent-type: text\/html\nset-cookie: session=.*HttpOnly\nset-cookie: other=/);
  assert.match(evidence, /…x+<p>SQL syntax error near 'abc'<\/p>y+…/);
  assert.ok(evidence.length < 4000, 'the body is a window, not the page');

  const sink = createFindingSink({ hostname: 'shop.example', hostIp: '203.0.113.7' }, (id) => {
    if (id !== TEST_RULE.ruleId) throw new Error(`no rule ${id}`);
    return TEST_RULE;
  });
  const finding = sink.add(draft)!;
  assert.deepEqual([finding.url, finding.method, finding.parameter, finding.port, finding.service, finding.hostIp], ['https://shop.example/a/b', 'POST', 'name', 443, 'https', '203.0.113.7']);
  assert.equal(sink.add({ ...draft, summary: 'another payload' }), undefined, 'one weakness on one parameter is one finding');
  assert.ok(sink.add({ ...draft, parameter: 'other' }), 'another parameter is another finding');
  assert.throws(() => sink.add({ ...draft, ruleId: 'rampart:web-nope' }), /no rule rampart:web-nope/);
  assert.throws(() => createFindingSink({ hostname: 'a', hostIp: 'b' }).add({ ...draft, ruleId: 'rampart:web-nope' }), /The web scanner has no rule rampart:web-nope/);
});

test('docs/WEB-SCANNER.md holds the rule table as the code renders it, and every rule is consistent', () => {
  assert.deepEqual(ALL_RULES.map(webRuleProblem).filter((problem) => problem !== null), []);
  assert.equal(new Set(ALL_RULES.map((rule) => rule.ruleId)).size, ALL_RULES.length, 'rule ids are unique');
  assert.match(webRuleProblem({ ...TEST_RULE, threat: 'High' }) ?? '', /scores 6\.1 \(Medium\), the rule says High/, 'the consistency check can fail');
  const doc = fs.readFileSync(path.join(ROOT, 'docs/WEB-SCANNER.md'), 'utf8');
  const table = /<!-- web-rules:begin -->\n([\s\S]*?)\n<!-- web-rules:end -->/.exec(doc)?.[1];
  assert.ok(table !== undefined, 'docs/WEB-SCANNER.md has the table markers');
  assert.equal(table, renderWebRuleTable(), 'docs/WEB-SCANNER.md is out of date: replace the table between the markers with renderWebRuleTable() (src/engines/web/severity.ts)');
  assert.match(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'), /WEB-SCANNER\.md/, 'the README links the web scanner document');
});

/** Rampart's API with a worker (the scans' runs), and an account that may scan loopback. */
async function startScanService(t: TestContext) {
  const ctx = await buildTestApp(t, { env: { RAMPART_ALLOW_TARGETS: '127.0.0.0/8', RAMPART_WORKER_POLL_MS: '50', RAMPART_RATE_LIMITS: 'pro=100000' } });
  const user = await signUp(ctx, { role: 'pro' });
  const silent = { info() {}, warn() {}, error() {} };
  const background = startBackground({ db: ctx.store.db, config: ctx.config, guard: ctx.app.ctx.guard, queue: ctx.app.ctx.queue, log: silent, worker: true, scheduler: false });
  t.after(() => background.stop());
  return { ctx, user };
}

/** Creates a one-time ZAP scan of `target` through POST /api/new-scan and waits for its run to complete. */
async function runZapScan({ ctx, user }: Awaited<ReturnType<typeof startScanService>>, target: string, extra: Record<string, unknown>) {
  const created = await ctx.app.inject({
    method: 'POST',
    url: '/api/new-scan',
    headers: user.auth,
    payload: { scan_name: 'web', scan_type: 'ZAP', scan_frequency: 'One-time', scan_time_zone: 'UTC', scan_email: 'ops@example.com', scan_target: target, ...extra },
  });
  assert.equal(created.statusCode, 200, created.body);
  const uuid = created.json().uuid as string;
  return waitFor(
    'the ZAP scan to complete',
    async () => {
      const runs = (await ctx.app.inject({ method: 'GET', url: `/api/scans/${uuid}/runs`, headers: user.auth })).json().runs;
      return runs[0]?.status === 'completed' ? runs[0] : undefined;
    },
    280_000,
  );
}

/**
 * What every scan of the test application must show: a finding for each page with `expect` (its
 * rule, parameter and method), evidence with the request, a CWE and a solution on each finding,
 * and no active check's finding on a safe twin (each would be a false positive).
 */
async function assertEveryVulnerablePageFound({ ctx, user }: Awaited<ReturnType<typeof startScanService>>, app: VulnApp): Promise<void> {
  const findings = await ctx.store.db.selectFrom('findings').selectAll().where('user_id', '=', user.userId).execute();
  const described = findings.map((f) => `${f.rule_id} ${f.method} ${f.url} ${f.parameter}`);
  for (const p of app.pages.filter((p) => p.expect)) {
    const { ruleId, parameter, method } = p.expect!;
    const found = findings.some((f) => f.rule_id === ruleId && f.url !== null && new URL(f.url).pathname === p.path && f.parameter === parameter && (method === undefined || f.method === method));
    assert.ok(found, `${p.path}: a ${ruleId} finding on ${parameter ?? 'the page'} (found: ${described.join('; ')})`);
  }
  const passive = new Set(PASSIVE_RULES.map((rule) => rule.ruleId));
  const onTwins = findings.filter((f) => f.url !== null && new URL(f.url).pathname.startsWith('/safe/') && !passive.has(f.rule_id));
  assert.deepEqual(onTwins.map((f) => `${f.rule_id} ${f.url} ${f.parameter}`), [], 'false positives on safe twins');
  for (const f of findings) {
    assert.ok(f.evidence.includes('--- Request'), `${f.rule_id} on ${f.url}: the evidence holds the request`);
    assert.ok(f.cwe, `${f.rule_id} has a CWE`);
    assert.ok(f.solution, `${f.rule_id} has a solution`);
  }
}

/** The test application's database, or null (the SQL pages left out) without MariaDB. */
async function startDatabaseOrSay(t: TestContext) {
  const db = await startVulnDatabase(t);
  if (!db) t.diagnostic('MariaDB is not installed (Debian package mariadb-server): the SQL pages were left out');
  return db;
}

test(`a ZAP scan through the API: the web scanner finds every vulnerable page of the test application and nothing on its safe twins (${STORE_KIND})`, { timeout: 300_000 }, async (t) => {
  const app = await startVulnApp(t, { db: await startDatabaseOrSay(t) });
  const service = await startScanService(t);
  const run = await runZapScan(service, app.url, { engine_options: { rate_per_second: 200 } });
  assert.equal(run.outcome, 'succeeded', run.error);
  assert.equal(run.engine, 'rampart-web');
  assert.equal(run.engine_version, '0.1.0');

  // The crawl ran through the API's worker: it reached a page only the sitemap names, and left destructive pages alone.
  assert.ok(hits(app, CRAWL_HITS).includes('/crawl/only-in-sitemap'));
  assert.deepEqual(hits(app, DESTRUCTIVE_HITS), []);
  await assertEveryVulnerablePageFound(service, app);
});

const loginFixture = (name: string): string => fs.readFileSync(path.join(ROOT, 'test/fixtures/login', name)).toString('base64');

test(`an authenticated ZAP scan through the API: the Selenium login script signs in, and every vulnerable page behind the login is found, nothing on the safe twins (${STORE_KIND})`, { timeout: 300_000 }, async (t) => {
  const support = loginScriptSupport();
  if (!support.ok) return t.skip(support.reason);
  const app = await startVulnApp(t, { db: await startDatabaseOrSay(t), login: true });
  const service = await startScanService(t);
  const run = await runZapScan(service, app.url, { engine_options: { rate_per_second: 200 }, zap_authenticated: true, zap_login_script: loginFixture('global-driver.py') });
  assert.equal(run.outcome, 'succeeded', run.error);
  assert.ok(app.logins() >= 1, 'the login script signed in to the application');
  assert.equal(app.logouts(), 0, 'the crawler never requested /logout');
  assert.deepEqual(hits(app, DESTRUCTIVE_HITS), []);
  await assertEveryVulnerablePageFound(service, app);
});

test(`an authenticated ZAP scan whose login script fails fails its run with the script's own error output (${STORE_KIND})`, { timeout: 120_000 }, async (t) => {
  const support = loginScriptSupport();
  if (!support.ok) return t.skip(support.reason);
  const app = await startVulnApp(t, { login: true });
  const run = await runZapScan(await startScanService(t), app.url, { zap_authenticated: true, zap_login_script: loginFixture('failing.py') });
  assert.equal(run.outcome, 'failed');
  assert.equal(run.error_kind, 'config');
  assert.match(run.error, /The login script failed:\nTraceback \(most recent call last\):\n/, "the script's own error output");
  assert.match(run.error, /driver\.find_element\(By\.ID, "user-name"\)/, 'the line that failed');
  assert.match(run.error, /NoSuchElementException/);
  assert.equal(app.logins(), 0);
});
