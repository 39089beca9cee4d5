import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECKS, RULES, SSTI_RULE_ID } from '../src/engines/web/checks/ssti.js';
import { startVulnApp } from './helpers/vuln-app/app.js';
import { linkEndpoint, runChecks, startCheckRun, summarise } from './helpers/web-checks.js';

test('ssti: the Nunjucks greeting is found, named and proven to run code; its twin and a plain echo are not', async (t) => {
  const app = await startVulnApp(t);
  const run = startCheckRun(t, app.url);
  const endpoints = [
    linkEndpoint(app.url, '/hello?name=visitor'),
    linkEndpoint(app.url, '/safe/hello?name=visitor'),
    // Reflected raw, but never evaluated: every syntax comes back as sent.
    linkEndpoint(app.url, '/xss/search?q=shoes'),
  ];
  await runChecks(run, CHECKS, endpoints);
  const drafts = run.drafts;
  const expected = app.pages.filter((p) => p.expect?.ruleId === SSTI_RULE_ID).map((p) => `${SSTI_RULE_ID} GET ${p.path} ${p.expect?.parameter}`);
  assert.deepEqual(expected, [`${SSTI_RULE_ID} GET /hello name`]);
  assert.deepEqual(summarise(drafts), expected);
  const [draft] = drafts;
  assert.match(draft?.name ?? '', /Nunjucks: JavaScript, code execution proven/);
  assert.ok(draft?.highlight && draft.proof[0]?.body.includes(draft.highlight), 'the first proof shows the product');
  assert.match(draft?.proof[1]?.request.url ?? '', /range\.constructor/);
  assert.match(draft?.summary ?? '', /without the delimiters was not computed/);
});

test('ssti: an input that is not reflected costs one request', async (t) => {
  const app = await startVulnApp(t);
  const run = startCheckRun(t, app.url);
  const before = run.client.requestsSent;
  await runChecks(run, CHECKS, [linkEndpoint(app.url, '/safe/lang?l=en&unused=x')]);
  const drafts = run.drafts;
  assert.deepEqual(drafts, []);
  // l is reflected (escaped): its marker and the seven syntaxes; unused: its marker only.
  assert.equal(run.client.requestsSent - before, 1 + 7 + 1);
});

test('ssti: the rule is Critical only because evaluation is proven, and says so', () => {
  const [rule] = RULES;
  assert.equal(rule?.cwe, 'CWE-1336');
  assert.equal(rule?.cvssBase, 9.8);
  assert.match(rule?.reason ?? '', /only once evaluation is proven/);
});
