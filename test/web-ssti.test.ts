import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECKS, RULES, SSTI_RULE_ID } from '../src/engines/web/checks/ssti.js';
import { startVulnApp } from './helpers/vuln-app/app.js';
import { endpointAt, runChecks, summarise, testWebClient } from './helpers/web-checks.js';

test('ssti: the Nunjucks greeting is found, named and proven to run code; its twin and a plain echo are not', async (t) => {
  const app = await startVulnApp(t);
  const client = testWebClient(t, app.url);
  const endpoints = [
    endpointAt(app.url, '/hello', [['name', 'visitor']]),
    endpointAt(app.url, '/safe/hello', [['name', 'visitor']]),
    // Reflected raw, but never evaluated: every syntax comes back as sent.
    endpointAt(app.url, '/xss/search', [['q', 'shoes']]),
  ];
  const drafts = await runChecks(client, CHECKS, { start: app.url, endpoints });
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
  const client = testWebClient(t, app.url);
  const before = client.requestsSent;
  const drafts = await runChecks(client, CHECKS, { start: app.url, endpoints: [endpointAt(app.url, '/safe/lang', [['l', 'en'], ['unused', 'x']])] });
  assert.deepEqual(drafts, []);
  // l is reflected (escaped): its marker and the seven syntaxes; unused: its marker only.
  assert.equal(client.requestsSent - before, 1 + 7 + 1);
});

test('ssti: the rule is Critical only because evaluation is proven, and says so', () => {
  const [rule] = RULES;
  assert.equal(rule?.cwe, 'CWE-1336');
  assert.equal(rule?.cvssBase, 9.8);
  assert.match(rule?.reason ?? '', /only once evaluation is proven/);
});
