/**
 * The OS command injection check against the vulnerable test application: output-based on the
 * page that shows the command's output, time-based on the blind form, nothing on the twins that run
 * the same programs without a shell (one of them echoes the payload back) nor on the page whose
 * latency jitters.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECKS as CMDI } from '../src/engines/web/checks/cmdi.js';
import { startVulnApp } from './helpers/vuln-app/app.js';
import { draftsOn, field, formEndpoint, linkEndpoint, runChecks, startCheckRun } from './helpers/web-checks.js';

test('OS command injection: output- and time-based found, nothing on the twins or the jittering page', async (t) => {
  const app = await startVulnApp(t);
  const run = startCheckRun(t, app.url);
  await runChecks(run, CMDI, [
    linkEndpoint(app.url, '/cmdi?host=127.0.0.1'),
    linkEndpoint(app.url, '/safe/cmdi?host=127.0.0.1'),
    linkEndpoint(app.url, '/slow?id=1'),
    formEndpoint(app.url, '/cmdi/blind', [field('name', 'guest')]),
    formEndpoint(app.url, '/safe/cmdi/blind', [field('name', 'guest')]),
  ]);

  await t.test('output-based: the product a shell computed, twice, on the host parameter', () => {
    const drafts = draftsOn(run, '/cmdi');
    assert.equal(drafts.length, 1);
    const [draft] = drafts;
    assert.equal(draft!.name, 'OS command injection (output-based)');
    assert.equal(draft!.parameter, 'host');
    assert.equal(draft!.proof.length, 2);
    const [first, second] = draft!.proof;
    const sent = (exchange: typeof first): string => new URL(exchange!.request.url).searchParams.get('host')!;
    const [, a, b] = /\$\(\((\d+)\*(\d+)\)\)/.exec(sent(second))!;
    assert.ok(draft!.highlight!.endsWith(String(Number(a) * Number(b))));
    assert.ok(second!.body.includes(draft!.highlight!));
    assert.notEqual(sent(first), sent(second));
  });

  await t.test('time-based: the blind form delayed by two different sleeps', () => {
    const [draft, ...more] = draftsOn(run, '/cmdi/blind');
    assert.equal(more.length, 0);
    assert.equal(draft?.name, 'OS command injection (time-based)');
    assert.equal(draft.parameter, 'name');
    assert.equal(draft.method, 'POST');
    const bodies = draft.proof.map((exchange) => new URLSearchParams(exchange.request.body).get('name'));
    assert.deepEqual(bodies, ['guest;sleep 2', 'guest;sleep 4', 'guest;sleep 0']);
  });

  await t.test('nothing on the twins nor on the jittering page', () => {
    for (const path of ['/safe/cmdi', '/safe/cmdi/blind', '/slow']) assert.deepEqual(draftsOn(run, path), [], path);
  });
});
