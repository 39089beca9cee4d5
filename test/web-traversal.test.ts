/**
 * The path traversal check against the test application's document viewer, through a real web
 * client on loopback: the vulnerable viewer reads /etc/passwd and /etc/group (one finding, with
 * both exchanges as proof), its twin that keeps paths inside its directory yields nothing.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { CHECKS } from '../src/engines/web/checks/traversal.js';
import { inputsOf } from '../src/engines/web/inputs.js';
import { startVulnApp } from './helpers/vuln-app/app.js';
import { linkEndpoint, startCheckRun } from './helpers/web-checks.js';

const [check] = CHECKS;

test('path traversal: the document viewer is reported once on "file", with the file contents as proof; its safe twin is not', async (t) => {
  if (!existsSync('/etc/passwd') || !existsSync('/etc/group')) return t.skip('needs /etc/passwd and /etc/group (a Unix system)');
  const app = await startVulnApp(t);
  const run = startCheckRun(t, app.url);
  for (const link of ['/view?file=about.txt', '/safe/view?file=about.txt']) {
    for (const point of inputsOf(linkEndpoint(app.url, link))) await check!.testInput!(point, run.ctx);
  }
  assert.equal(run.drafts.length, 1, run.drafts.map((d) => d.url).join(', '));
  const [draft] = run.drafts;
  assert.equal(draft!.ruleId, 'rampart:web-path-traversal');
  assert.equal(draft!.url, `${app.url}view`);
  assert.equal(draft!.parameter, 'file');
  assert.equal(draft!.location, 'query');
  assert.match(draft!.proof[0]!.body, /root:[^:]*:0:0:/);
  assert.match(draft!.proof[1]!.body, /root:[^:]*:0:/);
  assert.match(draft!.proof[0]!.request.url, /file=(?:\.\.%2F)+etc%2Fpasswd/);
  assert.match(draft!.summary, /\/etc\/group/);
  // The twin was probed too, with every technique for both system families, and showed no system file.
  const twin = run.responses.filter((r) => r.request.url.includes('/safe/view'));
  assert.equal(twin.length, 9, 'the baseline, six Unix techniques and two Windows ones');
  assert.ok(twin.every((r) => !/root:/.test(r.body)));
});

test('path traversal: an input that is not a file name gets the cheap probes only, and nothing is reported where no file is read', async (t) => {
  const app = await startVulnApp(t);
  const run = startCheckRun(t, app.url);
  const [point] = inputsOf(linkEndpoint(app.url, '/passive/session?greeting=hello'));
  await check!.testInput!(point!, run.ctx);
  assert.deepEqual(run.drafts, []);
  assert.equal(run.responses.length, 3, 'a baseline and the two cheap probes');
});

test('path traversal in the URL path: the documents folder is reported once (raw "../" kept), its twin is not', async (t) => {
  if (!existsSync('/etc/passwd') || !existsSync('/etc/group')) return t.skip('needs /etc/passwd and /etc/group (a Unix system)');
  const app = await startVulnApp(t);
  const run = startCheckRun(t, app.url);
  for (const link of ['/docs/about.txt', '/docs/other.txt', '/safe/docs/about.txt', '/files/readme.txt']) await check!.testEndpoint!(linkEndpoint(app.url, link), run.ctx);
  assert.deepEqual(run.drafts.map((d) => [d.ruleId, d.url, d.parameter]), [['rampart:web-path-traversal', `${app.url}docs/`, null]]);
  assert.match(run.drafts[0]!.proof[0]!.body, /root:[^:]*:0:0:/);
  assert.match(run.drafts[0]!.proof[0]!.request.url, /\/docs\/(?:\.\.%2f){10}etc%2fpasswd$/);
  // The second link of the same folder was not probed again.
  assert.equal(run.responses.filter((r) => r.request.url.includes('other.txt')).length, 0);
});

test('path traversal: a spent request budget ends the check quietly, with nothing half-proven reported', async (t) => {
  const app = await startVulnApp(t);
  // The baseline and the first probe (which reads /etc/passwd) fit; the confirmation does not.
  const run = startCheckRun(t, app.url, { maxRequests: 2 });
  const [point] = inputsOf(linkEndpoint(app.url, '/view?file=about.txt'));
  await check!.testInput!(point!, run.ctx);
  assert.equal(run.responses.length, 2);
  assert.match(run.responses[1]!.body, /root:[^:]*:0:0:/);
  assert.deepEqual(run.drafts, []);
});
