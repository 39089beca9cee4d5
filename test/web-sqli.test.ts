/**
 * The SQL injection check against the vulnerable test application on a real MariaDB: each
 * technique finds the page only it can find (error-based, boolean-based, time-based), with the
 * right parameter and proof, and nothing is reported on the parameterised twins, on the command
 * pages, nor on the page whose latency jitters. The command injection check runs in the same scan,
 * so that each check is also seen not to fire on the other's pages.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECKS as CMDI, COMMAND_INJECTION } from '../src/engines/web/checks/cmdi.js';
import { CHECKS as SQLI, SQL_INJECTION } from '../src/engines/web/checks/sqli.js';
import { startVulnApp } from './helpers/vuln-app/app.js';
import { startVulnDatabase } from './helpers/vuln-app/database.js';
import { checkContext, draftsOn, formEndpoint, linkEndpoint, runInputChecks } from './helpers/web-checks.js';

test('SQL injection: error-, boolean- and time-based found on their pages, nothing on the twins or the jittering page', async (t) => {
  const db = await startVulnDatabase(t);
  if (!db) return;
  const app = await startVulnApp(t, { db });
  const run = checkContext(t, app.url);
  const endpoints = [
    ...['/sqli/error?id=1', '/safe/sqli/error?id=1', '/sqli/blind?id=1', '/safe/sqli/blind?id=1', '/cmdi?host=127.0.0.1', '/safe/cmdi?host=127.0.0.1', '/slow?id=1'].map((link) =>
      linkEndpoint(app.url, link),
    ),
    formEndpoint(app.url, '/sqli/time', [['page', 'home']]),
    formEndpoint(app.url, '/safe/sqli/time', [['page', 'home']]),
    formEndpoint(app.url, '/cmdi/blind', [['name', 'guest']]),
    formEndpoint(app.url, '/safe/cmdi/blind', [['name', 'guest']]),
  ];
  await runInputChecks(run, [...SQLI, ...CMDI], endpoints);

  await t.test('every tested page has exactly the findings its page definition expects', () => {
    const tested = new Set(endpoints.map((endpoint) => new URL(endpoint.url).pathname));
    for (const path of tested) {
      const expected = app.pages.find((p) => p.path === path)?.expect;
      const found = draftsOn(run, path).map((draft) => `${draft.ruleId} ${draft.method} ${draft.parameter}`);
      assert.deepEqual(found, expected ? [`${expected.ruleId} ${expected.method ?? 'GET'} ${expected.parameter}`] : [], `findings on ${path}; the checks' log:\n${run.logs.join('\n')}`);
    }
    assert.ok(app.pages.some((p) => p.expect?.ruleId === SQL_INJECTION) && app.pages.some((p) => p.expect?.ruleId === COMMAND_INJECTION));
  });

  await t.test('error-based: the MariaDB error the quote caused, and the balanced quote without it', () => {
    const [draft] = draftsOn(run, '/sqli/error');
    assert.equal(draft?.name, 'SQL injection (MySQL/MariaDB, error-based)');
    assert.equal(draft.location, 'query');
    assert.match(draft.highlight ?? '', /^You have an error in your SQL syntax/);
    const [broken, balanced] = draft.proof;
    assert.equal(new URL(broken!.request.url).searchParams.get('id'), "1'");
    assert.ok(broken!.body.includes(draft.highlight!));
    assert.equal(new URL(balanced!.request.url).searchParams.get('id'), "1''");
    assert.doesNotMatch(balanced!.body, /error in your SQL syntax/);
    assert.match(balanced!.body, /alice/);
  });

  await t.test('boolean-based: numeric context, true gives the user and false does not, twice', () => {
    const [draft] = draftsOn(run, '/sqli/blind');
    assert.equal(draft?.name, 'SQL injection (boolean-based, numeric)');
    assert.equal(draft.proof.length, 4);
    const ids = draft.proof.map((exchange) => new URL(exchange.request.url).searchParams.get('id'));
    assert.match(ids[0]!, /^1 AND (\d+)=\1$/);
    assert.match(ids[1]!, /^1 AND (\d+)=(?!\1$)\d+$/);
    assert.notEqual(ids[0], ids[2]);
    assert.deepEqual(
      draft.proof.map((exchange) => /User found|No such user/.exec(exchange.body)?.[0]),
      ['User found', 'No such user', 'User found', 'No such user'],
    );
  });

  await t.test('time-based: the form field delayed by two different sleeps, the zero sleep fast', () => {
    const [draft] = draftsOn(run, '/sqli/time');
    assert.equal(draft?.name, 'SQL injection (MySQL/MariaDB, time-based)');
    assert.equal(draft.location, 'body');
    const [short, long, control] = draft.proof;
    assert.match(short!.request.body, /SLEEP%282%29/);
    assert.match(long!.request.body, /SLEEP%284%29/);
    assert.match(control!.request.body, /SLEEP%280%29/);
    assert.ok(short!.timeMs >= 1900 && long!.timeMs >= 3900, `${short!.timeMs} ms and ${long!.timeMs} ms`);
    assert.ok(control!.timeMs < short!.timeMs);
  });
});
