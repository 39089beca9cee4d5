/**
 * Error messages database servers and their drivers print when a query does not parse, by DBMS:
 * what error-based SQL injection looks for in a page, and the passive error-disclosure check
 * (passive/disclosure.ts) on every page. Each pattern is specific to a database's own wording so
 * that ordinary text never matches.
 */

/** The database families the signatures name. */
export type Dbms = 'MySQL/MariaDB' | 'PostgreSQL' | 'Microsoft SQL Server' | 'Oracle' | 'SQLite' | 'IBM Db2';

const SIGNATURES: Array<{ dbms: Dbms; patterns: RegExp[] }> = [
  {
    dbms: 'MySQL/MariaDB',
    patterns: [
      /You have an error in your SQL syntax[^<\n]{0,200}/i,
      /check the manual that (?:corresponds to|fits) your (?:MySQL|MariaDB) server version/i,
      /Warning:[^<\n]{0,40}\bmysqli?_[a-z_]+\(/i,
      /\bMySqlException\b|\bcom\.mysql\.jdbc\b|\bMySqlClient\./,
      /Unknown column '[^']{1,64}' in '[^']{1,32}'/,
      /\bSQLSTATE\[42000\]: Syntax error or access violation: 1064\b/,
    ],
  },
  {
    dbms: 'PostgreSQL',
    patterns: [
      /\bunterminated quoted string at or near "/i,
      /\bsyntax error at or near "[^"\n]{0,80}"/i,
      /\bpg_(?:query|exec|prepare)\(\)[^<\n]{0,40}:/i,
      /\borg\.postgresql\.util\.PSQLException\b|\bNpgsql\.(?:PostgresException|NpgsqlException)\b/,
      /\bPostgreSQL\b[^<\n]{0,40}\bERROR:/,
      /\bPG::[A-Z]\w+Error\b/,
    ],
  },
  {
    dbms: 'Microsoft SQL Server',
    patterns: [
      /Unclosed quotation mark (?:after|before) the character string/i,
      /\[Microsoft\]\[(?:ODBC )?(?:SQL Server|SQL Native Client|ODBC Driver \d+ for SQL Server)\]/i,
      /\bSystem\.Data\.SqlClient\.SqlException\b|\bMicrosoft\.Data\.SqlClient\.SqlException\b/,
      /\bMicrosoft OLE DB Provider for (?:SQL Server|ODBC Drivers)\b/i,
      /Incorrect syntax near '[^'\n]{0,80}'/,
    ],
  },
  {
    dbms: 'Oracle',
    patterns: [/\bORA-\d{5}\b[^<\n]{0,120}/, /\bquoted string not properly terminated\b/i, /\boracle\.jdbc\.driver\b/],
  },
  {
    dbms: 'SQLite',
    patterns: [
      /\bSQLite(?:3)?::(?:SQLException|Exception)\b|\bSystem\.Data\.SQLite\.SQLiteException\b|\bsqlite3\.OperationalError\b/,
      /\bSQLITE_ERROR\b/,
      /\bunrecognized token: "[^"\n]{0,80}"/,
      /\bnear "[^"\n]{0,80}": syntax error\b/,
    ],
  },
  { dbms: 'IBM Db2', patterns: [/\bDB2 SQL error: SQLCODE=-\d+/i, /\bSQLCODE=-\d+, SQLSTATE=\w+/] },
];

/** Every signature with its DBMS, in the order `findSqlError` tries them. */
export const SQL_ERROR_SIGNATURES: ReadonlyArray<{ dbms: Dbms; pattern: RegExp }> = SIGNATURES.flatMap(({ dbms, patterns }) => patterns.map((pattern) => ({ dbms, pattern })));

/** The first database error in `text`: the DBMS and the matched text; null when none. */
export function findSqlError(text: string): { dbms: Dbms; match: string } | null {
  for (const { dbms, pattern } of SQL_ERROR_SIGNATURES) {
    const found = pattern.exec(text);
    if (found) return { dbms, match: found[0] };
  }
  return null;
}
