/**
 * What a page shows that it should not: an automatic directory index, and error pages with stack
 * traces or database errors. Signatures are specific to the software that writes them (a
 * directory index's title and layout, a stack frame's syntax, a DBMS's message), and a signature
 * the request itself contained is not counted, so an echoed payload never becomes a finding.
 * One finding per rule and URL (query left out).
 */
import type { CheckContext, WebCheck, WebResponse } from '../../contract.js';
import { isHtml } from '../html.js';
import { firstTime } from '../once.js';
import { SQL_ERROR_SIGNATURES } from '../sql-errors.js';
import { withoutQuery } from './response.js';

/** A named signature. */
interface Signature {
  what: string;
  pattern: RegExp;
}

const LISTINGS: Signature[] = [
  { what: 'Apache or nginx autoindex', pattern: /<title>\s*Index of \/[^<]*<\/title>[\s\S]{0,2000}?<h1>\s*Index of \//i },
  { what: 'IIS directory browsing', pattern: /\[To Parent Directory\]/ },
  { what: 'Python http.server', pattern: /<title>\s*Directory listing for \/[^<]*<\/title>/i },
  { what: 'Node serve-index', pattern: /<title>\s*listing directory \/[^<]*<\/title>/i },
  { what: 'Tomcat directory listing', pattern: /<title>\s*Directory Listing For \/[^<]*<\/title>/i },
  { what: 'lighttpd or Jetty directory index', pattern: /<h2>\s*Index of \/[^<]*<\/h2>|<title>\s*Directory: \/[^<]*<\/title>/i },
];

const STACK_TRACES: Signature[] = [
  { what: 'PHP error', pattern: /<b>(?:Fatal error|Warning|Parse error|Notice|Deprecated)<\/b>:\s[^\n]{1,400}? in <b>[^<]+\.php<\/b> on line <b>\d+<\/b>/ },
  { what: 'PHP error', pattern: /PHP (?:Fatal error|Warning|Parse error|Notice):\s[^\n]{1,400}? in \S+\.php(?: on line |:)\d+/ },
  { what: 'PHP stack trace', pattern: /Stack trace:\s*(?:<br \/>)?\s*#0 [^\n]{0,300}\.php\(\d+\)/ },
  { what: 'Java stack trace', pattern: /\b(?:java|javax|jakarta|org\.springframework|org\.apache)\.[\w.$]+(?:Exception|Error)\b[\s\S]{0,400}?\bat [\w$.]+\((?:[\w$]+\.java:\d+|Native Method|Unknown Source)\)/ },
  { what: 'Python traceback', pattern: /Traceback \(most recent call last\):[\s\S]{0,400}?File "[^"]+", line \d+/ },
  { what: 'Node.js stack trace', pattern: /\b(?:[A-Z]\w*Error|Error)\b[^\n]{0,300}(?:\n|<br>)(?:\s|&nbsp;)*at (?:[\w$.<>[\] ]+ \()?(?:file:\/\/)?(?:\/|[A-Za-z]:\\)[^\s()<>]+\.(?:js|mjs|cjs|ts):\d+:\d+\)?/ },
  { what: '.NET error', pattern: /Server Error in '[^']*' Application\.|\bat [\w.`<>]+\([^)\n]*\) in [A-Za-z]:\\[^\n]+:line \d+/ },
  { what: 'Ruby stack trace', pattern: /[\w/.-]+\.rb:\d+:in [`'][^'\n]+'/ },
];

/** The DBMS errors error-based SQL injection looks for (one list: checks/sql-errors.ts). */
const SQL_ERRORS: Signature[] = SQL_ERROR_SIGNATURES.map(({ dbms, pattern }) => ({ what: `${dbms} error`, pattern }));

/** The first signature the body shows and the request did not send. */
function match(signatures: Signature[], response: WebResponse): { what: string; text: string } | null {
  const sent = `${safeDecode(response.request.url)}\n${safeDecode(response.request.body)}`;
  for (const signature of signatures) {
    const found = signature.pattern.exec(response.body);
    if (found && !sent.includes(found[0])) return { what: signature.what, text: found[0] };
  }
  return null;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

function reportPage(ctx: CheckContext, response: WebResponse, ruleId: string, summary: string, highlight: string): void {
  const url = withoutQuery(response.url);
  if (!firstTime(ctx, `${ruleId} ${url}`)) return;
  ctx.report({ ruleId, url, method: response.request.method, parameter: null, proof: [response], summary, highlight: highlight.slice(0, 200) });
}

function inspectListing(response: WebResponse, ctx: CheckContext): void {
  if (response.status !== 200 || !isHtml(response)) return;
  const found = match(LISTINGS, response);
  if (found) reportPage(ctx, response, 'rampart:web-directory-listing', `The page is a directory index (${found.what}): the server lists the directory's files.`, found.text);
}

function inspectErrors(response: WebResponse, ctx: CheckContext): void {
  if (response.body.length === 0) return;
  const found = match(STACK_TRACES, response) ?? match(SQL_ERRORS, response);
  if (found) reportPage(ctx, response, 'rampart:web-error-disclosure', `The response (status ${response.status}) shows a ${found.what}: "${found.text.slice(0, 120)}".`, found.text);
}

export const DISCLOSURE_CHECKS: WebCheck[] = [
  { id: 'passive-directory-listing', kind: 'passive', inspect: inspectListing },
  { id: 'passive-errors', kind: 'passive', inspect: inspectErrors },
];
