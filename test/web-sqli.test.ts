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
import { unreflect } from '../src/engines/web/checks/probe.js';
import { findSqlError } from '../src/engines/web/checks/sql-errors.js';
import { CHECKS as SQLI, SQL_INJECTION } from '../src/engines/web/checks/sqli.js';
import { startVulnApp } from './helpers/vuln-app/app.js';
import { startVulnDatabase } from './helpers/vuln-app/database.js';
import { draftsOn, field, formEndpoint, linkEndpoint, runChecks, startCheckRun } from './helpers/web-checks.js';

test('database error signatures: each DBMS by its own wording, ordinary text by none', () => {
  const errors: Array<[string, string]> = [
    ["You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near '''' at line 1", 'MySQL/MariaDB'],
    ['Warning: mysqli_fetch_assoc() expects parameter 1 to be mysqli_result', 'MySQL/MariaDB'],
    ['ERROR:  unterminated quoted string at or near "\'" LINE 1: SELECT', 'PostgreSQL'],
    ['org.postgresql.util.PSQLException: ERROR: syntax error at or near "x"', 'PostgreSQL'],
    ["Unclosed quotation mark after the character string '1'.", 'Microsoft SQL Server'],
    ['ORA-01756: quoted string not properly terminated', 'Oracle'],
    ['sqlite3.OperationalError: unrecognized token: "\'1\'\'"', 'SQLite'],
    ['DB2 SQL error: SQLCODE=-104, SQLSTATE=42601', 'IBM Db2'],
  ];
  for (const [text, dbms] of errors) assert.equal(findSqlError(`<p>${text}</p>`)?.dbms, dbms, text);
  for (const text of ['Incorrect password', 'Our SQL course: syntax errors explained', 'ERROR: page not found', 'Order ORA-12 shipped']) {
    assert.equal(findSqlError(text), null, text);
  }
});

test('a page echoing the probe reads as the baseline once the echo is turned back, raw, HTML-escaped or URL-encoded', () => {
  const probe = `1' AND '7'='7`;
  assert.equal(unreflect(`<p>Results for 1&#39; AND &#39;7&#39;=&#39;7: none</p>`, probe, '1'), '<p>Results for 1: none</p>');
  assert.equal(unreflect(`<a href="?q=${encodeURIComponent(probe)}">${probe}</a>`, probe, '1'), '<a href="?q=1">1</a>');
  assert.equal(unreflect('<p>1 AND 7=8</p>', '1 AND 7=8', '1'), '<p>1</p>');
  assert.equal(unreflect('<p>User found</p>', '1 AND 7=8', '1'), '<p>User found</p>');
});

test('SQL injection: error-, boolean- and time-based found on their pages, nothing on the twins or the jittering page', async (t) => {
  const db = await startVulnDatabase(t);
  if (!db) return;
  const app = await startVulnApp(t, { db });
  const run = startCheckRun(t, app.url);
  const endpoints = [
    ...['/sqli/error?id=1', '/safe/sqli/error?id=1', '/sqli/blind?id=1', '/safe/sqli/blind?id=1', '/cmdi?host=127.0.0.1', '/safe/cmdi?host=127.0.0.1', '/slow?id=1'].map((link) =>
      linkEndpoint(app.url, link),
    ),
    formEndpoint(app.url, '/sqli/time', [field('page', 'home')]),
    formEndpoint(app.url, '/safe/sqli/time', [field('page', 'home')]),
    formEndpoint(app.url, '/cmdi/blind', [field('name', 'guest')]),
    formEndpoint(app.url, '/safe/cmdi/blind', [field('name', 'guest')]),
  ];
  await runChecks(run, [...SQLI, ...CMDI], endpoints);

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
