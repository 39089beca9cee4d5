/**
 * What the HTTP check reads from one response's headers: missing security headers, product
 * versions given away, and cookies without Secure, HttpOnly or SameSite. Pure functions.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { checkFinding, type CheckFinding } from './check.js';
import { severityOf } from '../severity.js';

const OWASP_HEADERS = 'https://cheatsheetseries.owasp.org/cheatsheets/HTTP_Headers_Cheat_Sheet.html';
const MOZILLA_WEB = 'https://infosec.mozilla.org/guidelines/web_security';
const OWASP_COOKIES = 'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/06-Session_Management_Testing/02-Testing_for_Cookies_Attributes';
const RFC6265BIS = 'https://datatracker.ietf.org/doc/html/draft-ietf-httpbis-rfc6265bis';

/** The headers of a response as `name: value` lines for evidence, cookie values withheld. */
export function formatHeaders(status: number, headers: IncomingHttpHeaders): string {
  const lines = [`HTTP ${status}`];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const single of Array.isArray(value) ? value : [value]) {
      lines.push(`${name}: ${name === 'set-cookie' ? redactCookie(single) : single}`);
    }
  }
  return lines.join('\n');
}

/** One finding per cookie attribute that some cookies lack (Secure only matters over HTTPS). */
const COOKIE_RULES = [
  {
    attribute: 'secure',
    httpsOnly: true,
    finding: {
      ruleId: 'rampart:http-cookie-no-secure', name: 'Cookie without the Secure attribute', cwe: 'CWE-614',
      description: 'An HTTPS site sets cookies without Secure, so the browser also sends them over plain HTTP, where anyone in the path can read them.',
      solution: 'Set the Secure attribute on every cookie of an HTTPS site.',
    },
  },
  {
    attribute: 'httponly',
    httpsOnly: false,
    finding: {
      ruleId: 'rampart:http-cookie-no-httponly', name: 'Cookie without the HttpOnly attribute', cwe: 'CWE-1004',
      description: 'Cookies are readable from JavaScript, so a cross-site scripting flaw can steal them (session cookies in particular).',
      solution: 'Set HttpOnly on every cookie that scripts do not need to read (all session cookies).',
    },
  },
  {
    attribute: 'samesite',
    httpsOnly: false,
    finding: {
      ruleId: 'rampart:http-cookie-no-samesite', name: 'Cookie without the SameSite attribute', cwe: 'CWE-1275',
      description: 'Cookies do not say SameSite, so older browsers send them with cross-site requests, which helps cross-site request forgery.',
      solution: 'Set `SameSite=Lax` (or `Strict`) on cookies; use `SameSite=None; Secure` only for cookies meant for cross-site use.',
    },
  },
] as const;

/**
 * One finding per missing security header. CSP and anti-framing matter for documents only, so
 * they are judged on HTML responses; HSTS only over HTTPS (browsers ignore it over HTTP).
 */
export function missingHeaderFindings(status: number, headers: IncomingHttpHeaders, secure: boolean): CheckFinding[] {
  const evidence = formatHeaders(status, headers);
  const findings: CheckFinding[] = [];
  const type = String(headers['content-type'] ?? 'text/html').toLowerCase();
  const html = type.includes('html');
  const csp = String(headers['content-security-policy'] ?? '');

  if (secure && headers['strict-transport-security'] === undefined) {
    findings.push(checkFinding({
      ruleId: 'rampart:http-missing-hsts', name: 'Strict-Transport-Security header missing', ...severityOf('rampart:http-missing-hsts'), cwe: 'CWE-319',
      description: 'The HTTPS site does not send HSTS, so a browser may still reach it over plain HTTP first, where an attacker in the path can strip TLS (SSL stripping).',
      solution: 'Send `Strict-Transport-Security: max-age=63072000; includeSubDomains` on every HTTPS response.',
      evidence, references: ['https://www.rfc-editor.org/rfc/rfc6797', OWASP_HEADERS, MOZILLA_WEB],
    }));
  }
  if (html && csp === '') {
    findings.push(checkFinding({
      ruleId: 'rampart:http-missing-csp', name: 'Content-Security-Policy header missing', ...severityOf('rampart:http-missing-csp'), cwe: 'CWE-693',
      description: 'The page sets no Content Security Policy, the browser-side defence that limits what an injected script (XSS) can load and run.',
      solution: "Send a Content-Security-Policy restricting script sources (start from `default-src 'self'; frame-ancestors 'self'`).",
      evidence, references: ['https://www.w3.org/TR/CSP3/', OWASP_HEADERS, MOZILLA_WEB],
    }));
  }
  if (html && headers['x-frame-options'] === undefined && !/frame-ancestors/i.test(csp)) {
    findings.push(checkFinding({
      ruleId: 'rampart:http-missing-frame-options', name: 'Anti-clickjacking header missing', ...severityOf('rampart:http-missing-frame-options'), cwe: 'CWE-1021',
      description: 'Neither X-Frame-Options nor a CSP frame-ancestors directive forbids other sites to frame the page, which allows clickjacking.',
      solution: "Send `Content-Security-Policy: frame-ancestors 'self'` (and `X-Frame-Options: DENY` or `SAMEORIGIN` for old browsers).",
      evidence, references: ['https://www.rfc-editor.org/rfc/rfc7034', OWASP_HEADERS, MOZILLA_WEB],
    }));
  }
  if (String(headers['x-content-type-options'] ?? '').trim().toLowerCase() !== 'nosniff') {
    findings.push(checkFinding({
      ruleId: 'rampart:http-missing-content-type-options', name: 'X-Content-Type-Options: nosniff missing', ...severityOf('rampart:http-missing-content-type-options'), cwe: 'CWE-693',
      description: 'Without `X-Content-Type-Options: nosniff` browsers may guess a response\'s type, and run an uploaded file as script or style.',
      solution: 'Send `X-Content-Type-Options: nosniff` on every response.',
      evidence, references: ['https://fetch.spec.whatwg.org/#x-content-type-options-header', OWASP_HEADERS, MOZILLA_WEB],
    }));
  }
  return findings;
}

/** Headers that name the software; `server` only counts when it carries a version number. */
const DISCLOSING_HEADERS = ['server', 'x-powered-by', 'x-aspnet-version', 'x-aspnetmvc-version', 'x-generator', 'x-runtime-version'];

/** A finding when the headers give away products (and versions), or null. */
export function versionDisclosureFinding(headers: IncomingHttpHeaders): CheckFinding | null {
  const disclosed = DISCLOSING_HEADERS.flatMap((name) => {
    const value = headers[name];
    if (typeof value !== 'string' || value.trim() === '') return [];
    if (name === 'server' && !/\d/.test(value)) return [];
    return [`${name}: ${value}`];
  });
  if (disclosed.length === 0) return null;
  return checkFinding({
    ruleId: 'rampart:http-version-disclosure', name: 'Server software and version disclosed', ...severityOf('rampart:http-version-disclosure'), cwe: 'CWE-200',
    description: 'Response headers name the server software and its version, which lets an attacker pick known exploits for that exact version without probing.',
    solution: 'Hide versions (Apache `ServerTokens Prod`, nginx `server_tokens off`, PHP `expose_php = Off`, remove X-Powered-By and X-AspNet-Version), and keep the software patched.',
    evidence: disclosed.join('\n'),
    references: [
      'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/01-Information_Gathering/02-Fingerprint_Web_Server',
      OWASP_HEADERS,
    ],
  });
}

interface Cookie {
  name: string;
  attributes: Set<string>;
}

function parseCookie(header: string): Cookie {
  const [pair = '', ...attributes] = header.split(';');
  const name = pair.split('=')[0]?.trim() ?? '';
  return { name, attributes: new Set(attributes.map((attribute) => attribute.split('=')[0]?.trim().toLowerCase() ?? '')) };
}

function redactCookie(header: string): string {
  const cookie = parseCookie(header);
  const rest = header.includes(';') ? header.slice(header.indexOf(';')) : '';
  return `${cookie.name}=<withheld>${rest}`;
}

/** One finding per missing cookie attribute, listing the cookies that lack it. */
export function cookieFindings(headers: IncomingHttpHeaders, secure: boolean): CheckFinding[] {
  const cookies = (headers['set-cookie'] ?? []).map(parseCookie).filter((cookie) => cookie.name !== '');
  const lacking = (attribute: string): string[] =>
    [...new Set(cookies.filter((cookie) => !cookie.attributes.has(attribute)).map((cookie) => cookie.name))];
  const evidenceFor = (names: string[]): string =>
    `Cookies: ${names.join(', ')}\n${(headers['set-cookie'] ?? []).map((header) => `set-cookie: ${redactCookie(header)}`).join('\n')}`;
  const findings: CheckFinding[] = [];

  for (const rule of COOKIE_RULES) {
    if (rule.httpsOnly && !secure) continue;
    const names = lacking(rule.attribute);
    if (names.length > 0) findings.push(checkFinding({ ...rule.finding, ...severityOf(rule.finding.ruleId), evidence: evidenceFor(names), references: [OWASP_COOKIES, RFC6265BIS] }));
  }
  return findings;
}
