/**
 * SQL injection on every query and form input, by three techniques tried in order, each with its
 * confirmation (the first that proves ends the input: one finding per input):
 * - error-based: a quote makes a database error appear that the baseline does not show, and the
 *   same quote doubled (balanced) makes it disappear again;
 * - boolean-based (sqli-boolean.ts): true and false conditions against a measured baseline, twice;
 * - time-based (timing.ts): a sleep of two different lengths and a zero-length control, tried only
 *   when neither of the others proved anything, since it is the slowest and the most fragile.
 */
import type { CheckContext, InputPoint, WebCheck, WebResponse, WebRule } from '../contract.js';
import { onInput, reportOn, sendWith } from './probe.js';
import { webRule } from './rule.js';
import { findSqlError, type Dbms } from './sql-errors.js';
import { proveBoolean } from './sqli-boolean.js';
import { proveDelayOnInput } from './timing.js';

export const SQL_INJECTION = 'rampart:web-sql-injection';

/**
 * Sleep payloads appended to the value, `N` the seconds; each sleeps once per query (MySQL's sleep
 * sits in a derived table so that it does not run once per row).
 */
const SLEEPS: Array<{ dbms: Dbms; numeric: boolean; payload: string }> = [
  { dbms: 'MySQL/MariaDB', numeric: false, payload: `'||(SELECT 1 FROM (SELECT SLEEP(N))x)||'` },
  { dbms: 'MySQL/MariaDB', numeric: false, payload: `"||(SELECT 1 FROM (SELECT SLEEP(N))x)||"` },
  { dbms: 'MySQL/MariaDB', numeric: true, payload: ` AND (SELECT 1 FROM (SELECT SLEEP(N))x)` },
  { dbms: 'PostgreSQL', numeric: false, payload: `'||(SELECT '' FROM pg_sleep(N))||'` },
  { dbms: 'PostgreSQL', numeric: true, payload: ` AND 1=(SELECT 1 FROM pg_sleep(N))` },
  { dbms: 'Microsoft SQL Server', numeric: false, payload: `';WAITFOR DELAY '0:0:N'--` },
  { dbms: 'Microsoft SQL Server', numeric: true, payload: `;WAITFOR DELAY '0:0:N'--` },
];

async function testInput(point: InputPoint, ctx: CheckContext): Promise<void> {
  await onInput(ctx, 'sqli', point, async () => {
    const report = (technique: string, proof: WebResponse[], summary: string, highlight?: string): void =>
      reportOn(ctx, point, { ruleId: SQL_INJECTION, name: `SQL injection (${technique})`, proof, summary, highlight });

    const first = await sendWith(ctx, point, point.value);
    const error = await proveError(ctx, point, first);
    if (error) return report(`${error.dbms}, error-based`, error.proof, error.summary, error.highlight);

    const second = await sendWith(ctx, point, point.value);
    const boolean = await proveBoolean(ctx, point, [first, second]);
    if (boolean) return report(`boolean-based, ${boolean.context}`, boolean.proof, boolean.summary);

    const numeric = /^-?\d+$/.test(point.value);
    const sleeps = SLEEPS.filter((sleep) => numeric || !sleep.numeric);
    const delay = await proveDelayOnInput(
      ctx,
      'sqli',
      point,
      sleeps.map(({ payload }) => ({ label: payload, value: (seconds) => point.value + payload.replace('N', String(seconds)) })),
    );
    if (!delay) return;
    const dbms = sleeps.find((sleep) => sleep.payload === delay.probe.label)!.dbms;
    report(`${dbms}, time-based`, [delay.short, delay.long, delay.control], `The payload \`${delay.probe.label}\` appended to the value delayed the response as asked. ${delay.summary}`);
  });
}

/** Error-based: a database error that a quote makes appear and the balanced quote makes disappear. */
async function proveError(ctx: CheckContext, point: InputPoint, baseline: WebResponse): Promise<{ dbms: Dbms; proof: WebResponse[]; summary: string; highlight: string } | null> {
  // A page that shows a database error already cannot tell us anything by showing one.
  if (findSqlError(baseline.body)) return null;
  for (const quote of [`'`, `"`]) {
    const broken = await sendWith(ctx, point, point.value + quote);
    const error = findSqlError(broken.body);
    if (!error) continue;
    for (const balanced of [quote + quote, `${quote}||${quote}`]) {
      const fixed = await sendWith(ctx, point, point.value + balanced);
      if (findSqlError(fixed.body)) continue;
      return {
        dbms: error.dbms,
        proof: [broken, fixed],
        highlight: error.match,
        summary: `Appending \`${quote}\` to the value made the page show a ${error.dbms} error ("${error.match.slice(0, 120)}"); appending \`${balanced}\` instead, which closes the quote again, made it disappear.`,
      };
    }
  }
  return null;
}

/** The sqli check(s). */
export const CHECKS: WebCheck[] = [{ id: 'sqli', kind: 'active', testInput }];

/** The rules its findings use (rows of the web severity table). */
export const RULES: WebRule[] = [
  webRule({
    ruleId: SQL_INJECTION,
    name: 'SQL injection',
    description:
      'A request parameter is built into an SQL query without being bound as a parameter: the database parses what the user sent as SQL. ' +
      'An attacker can read any data the application can read, change or delete it, and on some servers read files or run commands.',
    solution:
      'Use parameterised queries (prepared statements with bound parameters) for every value, or an ORM or query builder that binds them; never build SQL by ' +
      'concatenating request data. Where a value must choose an identifier (a column to sort by), map it through an allow-list. Give the application a database account ' +
      'with the least privileges it needs, and do not show database errors to users.',
    cwe: 'CWE-89',
    references: [
      'https://cheatsheetseries.owasp.org/cheatsheets/SQL_Injection_Prevention_Cheat_Sheet.html',
      'https://cheatsheetseries.owasp.org/cheatsheets/Query_Parameterization_Cheat_Sheet.html',
      'https://owasp.org/www-community/attacks/SQL_Injection',
      'https://cwe.mitre.org/data/definitions/89.html',
    ],
    threat: 'Critical',
    cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    reason:
      'Exploitable over the network with a single request, no privileges and no user interaction (on an authenticated scan the page may need a login, which an ' +
      'assessor may lower to PR:L, 8.8); the injected SQL runs with the application\'s database rights, so confidentiality, integrity and availability of its data are lost.',
  }),
];
