import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECKS as CRLF_CHECKS } from '../src/engines/web/checks/crlf.js';
import { CHECKS as REDIRECT_CHECKS } from '../src/engines/web/checks/redirect.js';
import { CHECKS as SSTI_CHECKS } from '../src/engines/web/checks/ssti.js';
import { CHECKS, RULES } from '../src/engines/web/checks/xss.js';
import { startVulnApp } from './helpers/vuln-app/app.js';
import { guestbookToken } from './helpers/vuln-app/pages/xss.js';
import { field, formEndpoint, linkEndpoint, runChecks, startCheckRun, summarise } from './helpers/web-checks.js';

const XSS_RULES = new Set(['rampart:web-xss-reflected', 'rampart:web-xss-stored']);

test('xss: every vulnerable XSS page of the test app is found on its parameter, no safe twin is', async (t) => {
  const app = await startVulnApp(t);
  const run = startCheckRun(t, app.url);
  const endpoints = [
    ...['', '/safe'].flatMap((prefix) => [
      linkEndpoint(app.url, `${prefix}/xss/search?q=shoes`),
      linkEndpoint(app.url, `${prefix}/xss/attr?name=alice`),
      linkEndpoint(app.url, `${prefix}/xss/script?user=alice`),
      linkEndpoint(app.url, `${prefix}/xss/link?url=https://example.org/`),
      formEndpoint(app.url, `${prefix}/guestbook`, [field('csrf_token', guestbookToken(app.ctx), 'hidden'), field('author', 'visitor'), field('message', 'Hello', 'textarea'), field('', '', 'submit')]),
    ]),
  ];
  const pages = [app.url, `${app.url}guestbook`, `${app.url}safe/guestbook`];
  for (const page of pages) await run.visit(page);
  await runChecks(run, CHECKS, endpoints);
  const drafts = run.drafts;

  const expected = app.pages
    .filter((p) => p.expect && XSS_RULES.has(p.expect.ruleId))
    .map((p) => `${p.expect?.ruleId} ${p.expect?.method ?? 'GET'} ${p.path} ${p.expect?.parameter}`)
    .sort();
  assert.equal(expected.length, 5, 'the test app has four reflected pages and a guestbook');
  assert.deepEqual(summarise(drafts), expected);

  for (const draft of drafts) {
    assert.ok(draft.highlight, `${draft.url}: the code to highlight`);
    const last = draft.proof[draft.proof.length - 1];
    assert.ok(last?.body.includes(draft.highlight), `${draft.url}: the proving response carries the code`);
  }
  const stored = drafts.find((d) => d.ruleId === 'rampart:web-xss-stored');
  assert.equal(stored?.proof.length, 2, 'the submission and the page that runs it');
  assert.equal(stored?.proof[0]?.request.method, 'POST');
  assert.match(stored?.summary ?? '', /guestbook/);
  const attr = drafts.find((d) => d.parameter === 'name');
  assert.match(attr?.name ?? '', /value attribute of an <input> element/);
  const link = drafts.find((d) => d.parameter === 'url');
  assert.match(link?.summary ?? '', /javascript: URL in the href attribute of an <a> element/);
  const script = drafts.find((d) => d.parameter === 'user');
  assert.match(script?.name ?? '', /string literal in a script/);
});

test('xss: an input that is not reflected costs one request and reports nothing', async (t) => {
  const app = await startVulnApp(t);
  const run = startCheckRun(t, app.url);
  const endpoints = [linkEndpoint(app.url, '/xss/search?q=shoes&page=2')];
  const before = run.client.requestsSent;
  await runChecks(run, CHECKS, endpoints);
  const drafts = run.drafts;
  assert.deepEqual(summarise(drafts), [`rampart:web-xss-reflected GET /xss/search q`]);
  // q: its marker and the first payload (HTML text: an element with a handler); page: its marker only.
  assert.equal(run.client.requestsSent - before, 3);
});

test('xss: a spent request budget ends the checks quietly, with nothing half-proven reported', async (t) => {
  const app = await startVulnApp(t);
  // The marker of q fits in the budget, its first payload does not.
  const run = startCheckRun(t, app.url, { maxRequests: 1 });
  const endpoints = [linkEndpoint(app.url, '/xss/search?q=shoes')];
  await runChecks(run, [...CHECKS, ...SSTI_CHECKS, ...CRLF_CHECKS, ...REDIRECT_CHECKS], endpoints);
  const drafts = run.drafts;
  assert.deepEqual(drafts, []);
  assert.equal(run.client.requestsSent, 1);
});

test('xss: the rules are rated and explained', () => {
  assert.deepEqual(RULES.map((r) => r.ruleId).sort(), ['rampart:web-xss-reflected', 'rampart:web-xss-stored']);
  for (const rule of RULES) {
    assert.equal(rule.cwe, 'CWE-79');
    assert.ok(rule.solution.length > 50 && rule.reason.length > 50);
  }
  assert.equal(RULES.find((r) => r.ruleId === 'rampart:web-xss-reflected')?.cvssBase, 6.1);
  assert.equal(RULES.find((r) => r.ruleId === 'rampart:web-xss-stored')?.threat, 'High');
});

test('xss, ssti, crlf, open redirect together on every page of theirs: the expected findings, nothing on a twin', async (t) => {
  const app = await startVulnApp(t);
  const run = startCheckRun(t, app.url);
  const token = guestbookToken(app.ctx);
  const endpoints = app.pages
    .filter((p) => p.link && /^\/(?:safe\/)?(?:xss|hello|lang|go|guestbook)/.test(p.link))
    .map((p) => {
      const link = new URL(p.link ?? '', app.url);
      if (p.methods?.includes('POST')) return formEndpoint(app.url, link.pathname, [field('csrf_token', token, 'hidden'), field('author', 'visitor'), field('message', 'Hello', 'textarea')]);
      return linkEndpoint(app.url, link.pathname + link.search);
    });
  assert.equal(endpoints.length, 18, 'nine pages and their twins');
  const pages = [app.url, `${app.url}guestbook`, `${app.url}safe/guestbook`];
  const checks = [...CHECKS, ...SSTI_CHECKS, ...CRLF_CHECKS, ...REDIRECT_CHECKS];
  for (const page of pages) await run.visit(page);
  await runChecks(run, checks, endpoints);
  const drafts = run.drafts;

  const expected = endpoints.flatMap((e) => {
    const expect = app.pages.find((p) => new URL(p.path, app.url).href === e.url)?.expect;
    return expect ? [`${expect.ruleId} ${expect.method ?? 'GET'} ${new URL(e.url).pathname} ${expect.parameter}`] : [];
  });
  // The greeting is reflected XSS as well: its template output is not escaped.
  const alsoTrue = ['rampart:web-xss-reflected GET /hello name'];
  assert.deepEqual(summarise(drafts), [...expected, ...alsoTrue].sort());
  assert.ok(drafts.every((d) => !new URL(d.url).pathname.startsWith('/safe/')));
});
