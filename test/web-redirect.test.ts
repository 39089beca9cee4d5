import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECKS as CRLF_CHECKS, CRLF_RULE_ID } from '../src/engines/web/checks/crlf.js';
import { CHECKS as REDIRECT_CHECKS, OPEN_REDIRECT_RULE_ID, redirectTargets } from '../src/engines/web/checks/redirect.js';
import type { WebResponse } from '../src/engines/web/contract.js';
import { startVulnApp } from './helpers/vuln-app/app.js';
import { CANARY_HOST, linkEndpoint, runChecks, startCheckRun, summarise } from './helpers/web-checks.js';

/** The pages' expectations for one rule, as `summarise` writes findings. */
function expectedFor(pages: Awaited<ReturnType<typeof startVulnApp>>['pages'], ruleId: string): string[] {
  return pages.filter((p) => p.expect?.ruleId === ruleId).map((p) => `${ruleId} GET ${p.path} ${p.expect?.parameter}`).sort();
}

test('open redirect: the Location and script redirects are found, never followed; the twins are not', async (t) => {
  const app = await startVulnApp(t);
  const run = startCheckRun(t, app.url);
  const endpoints = ['', '/safe'].flatMap((prefix) => [linkEndpoint(app.url, `${prefix}/go?next=/`), linkEndpoint(app.url, `${prefix}/go/js?to=/`)]);
  await runChecks(run, REDIRECT_CHECKS, endpoints);
  const drafts = run.drafts;
  assert.equal(expectedFor(app.pages, OPEN_REDIRECT_RULE_ID).length, 2);
  assert.deepEqual(summarise(drafts), expectedFor(app.pages, OPEN_REDIRECT_RULE_ID));
  for (const draft of drafts) {
    const proof = draft.proof[0];
    assert.equal(proof?.redirects.length, 0, 'not followed');
    assert.equal(new URL(proof?.url ?? '').host, new URL(app.url).host);
    assert.ok(draft.highlight?.includes(CANARY_HOST));
  }
  assert.match(drafts.find((d) => d.parameter === 'to')?.summary ?? '', /script assigning location/);
});

test('open redirect: a parameter that is not a destination costs its marker only', async (t) => {
  const app = await startVulnApp(t);
  const run = startCheckRun(t, app.url);
  const before = run.client.requestsSent;
  await runChecks(run, REDIRECT_CHECKS, [linkEndpoint(app.url, '/xss/search?q=shoes')]);
  const drafts = run.drafts;
  assert.deepEqual(drafts, []);
  assert.equal(run.client.requestsSent - before, 1);
});

test('redirectTargets: headers, meta refresh and script assignments, not strings or comments', () => {
  const response = (status: number, headers: Record<string, string>, body = ''): WebResponse => ({
    request: { method: 'GET', url: 'http://127.0.0.1/', headers: {}, body: '' },
    url: 'http://127.0.0.1/',
    status,
    headers: { 'content-type': 'text/html', ...headers },
    body,
    truncated: false,
    redirects: [],
    timeMs: 1,
  });
  const targets = (r: WebResponse): string[] => redirectTargets(r).map((t) => `${t.via}: ${t.target}`);
  assert.deepEqual(targets(response(302, { location: '//a.test/' })), ['Location header: //a.test/']);
  assert.deepEqual(targets(response(200, { location: '//a.test/' })), [], 'a Location on a 200 sends no browser anywhere');
  assert.deepEqual(targets(response(304, { location: '//a.test/' })), [], 'nor on a 304');
  assert.deepEqual(targets(response(200, { refresh: '0; url=https://b.test/' })), ['Refresh header: https://b.test/']);
  assert.deepEqual(targets(response(200, {}, `<meta http-equiv="Refresh" content="3;URL='https://c.test/'">`)), ['meta refresh: https://c.test/']);
  assert.deepEqual(targets(response(200, {}, `<script>top.location.href = "https:\\/\\/d.test/";</script>`)), ['script assigning location: https://d.test/']);
  assert.deepEqual(targets(response(200, {}, `<script>location.replace('https://e.test/')</script>`)), ['script assigning location: https://e.test/']);
  assert.deepEqual(targets(response(200, {}, `<script>var s = "location = 'https://f.test/'"; // location = "https://g.test/"\n</script>`)), []);
  assert.deepEqual(targets(response(200, {}, `<p>location = "https://h.test/"</p>`)), []);
});

// The twin shows the injected line in its body and its (encoded) cookie: text is not a header.
test('crlf: the cookie page lets a header through, its encoding twin does not', async (t) => {
  const app = await startVulnApp(t);
  const run = startCheckRun(t, app.url);
  const endpoints = [linkEndpoint(app.url, '/lang?l=en'), linkEndpoint(app.url, '/safe/lang?l=en'), linkEndpoint(app.url, '/go?next=/')];
  await runChecks(run, CRLF_CHECKS, endpoints);
  const drafts = run.drafts;
  assert.equal(expectedFor(app.pages, CRLF_RULE_ID).length, 1);
  assert.deepEqual(summarise(drafts), expectedFor(app.pages, CRLF_RULE_ID));
  const [draft] = drafts;
  const header = draft?.highlight?.toLowerCase() ?? '';
  assert.match(header, /^x-rampart-[a-z0-9]{8}$/);
  assert.match(draft?.proof[0]?.headers[header] ?? '', /^1\b/, 'a real header of the response');
});
