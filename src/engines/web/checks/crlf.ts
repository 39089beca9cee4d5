/**
 * CRLF injection / HTTP response splitting (CWE-113): an input copied into a response header
 * (Location, Set-Cookie...) without removing line breaks lets a request add headers of its own, or
 * a whole body. Only inputs whose marker shows in a response header are tried; a finding needs
 * the injected header to come back as a real header (the HTTP parser's, not text in the body),
 * twice, with two different names.
 */
import type { CheckContext, InputPoint, WebCheck, WebResponse, WebRule } from '../contract.js';
import { describeInput, locationOf, probeInput, whileBudgetLasts } from './probe.js';
import { webRule } from './rule.js';

export const CRLF_RULE_ID = 'rampart:web-crlf-injection';

/** Line breaks as servers let them through: raw CR LF, LF, CR, UTF-8 characters whose low bytes are LF and CR (servers writing headers as latin1), and a second decoding. */
const BREAKS = ['\r\n', '\n', '\r', '\u560d\u560a', '%0d%0a'];

/** The header a probe adds: `X-Rampart-<token>`. */
function headerName(token: string): string {
  return `X-Rampart-${token}`;
}

/** Whether `marker` is in a response header's value. */
function inHeaders(headers: Record<string, string>, marker: string): boolean {
  return Object.values(headers).some((value) => value.includes(marker));
}

async function injectHeader(ctx: CheckContext, point: InputPoint, prefix: string, lineBreak: string): Promise<{ response: WebResponse; value: string; header: string } | null> {
  const header = headerName(ctx.token());
  const value = `${prefix}${lineBreak}${header}: 1`;
  const response = await probeInput(ctx, point, value);
  if (!response || response.headers[header.toLowerCase()] === undefined) return null;
  return { response, value, header };
}

async function testCrlf(point: InputPoint, ctx: CheckContext): Promise<void> {
  const marker = ctx.token();
  const first = await probeInput(ctx, point, marker);
  if (!first || !inHeaders(first.headers, marker)) return;
  for (const lineBreak of BREAKS) {
    const injected = await injectHeader(ctx, point, marker, lineBreak);
    if (!injected) continue;
    // Confirmation: a second, different header name through the same break.
    const again = await injectHeader(ctx, point, marker, lineBreak);
    if (!again) continue;
    ctx.report({
      ruleId: CRLF_RULE_ID,
      ...locationOf(point),
      proof: [again.response],
      summary: `The ${describeInput(point)} is copied into a response header. Sent ${JSON.stringify(injected.value)}: the response came back with a header ${injected.header} of its own; a second probe added ${again.header} the same way.`,
      highlight: again.header,
    });
    return;
  }
}

/** CRLF injection: every query and form input whose value shows in a response header. */
export const CRLF_CHECK: WebCheck = {
  id: 'crlf-injection',
  kind: 'active',
  testInput: (point, ctx) => whileBudgetLasts(ctx, () => testCrlf(point, ctx)),
};

export const CHECKS: WebCheck[] = [CRLF_CHECK];

export const RULES: WebRule[] = [
  webRule({
    ruleId: CRLF_RULE_ID,
    name: 'CRLF injection (HTTP response splitting)',
    description:
      'The server copies a request parameter into a response header without removing carriage returns and line feeds, so a link can add headers of its own to the response (setting or overwriting cookies, a Location, a Content-Security-Policy) or end the headers and write the page body: session fixation, cross-site scripting and cache poisoning.',
    solution:
      'Remove or reject CR and LF (and other control characters) in every value written to a header, or percent-encode it (a cookie value, a redirect target); use the framework\'s header functions, which refuse line breaks, rather than writing the response by hand, and keep the server up to date.',
    cwe: 'CWE-113',
    references: [
      'https://cwe.mitre.org/data/definitions/113.html',
      'https://owasp.org/www-community/vulnerabilities/CRLF_Injection',
      'https://owasp.org/www-community/attacks/HTTP_Response_Splitting',
    ],
    threat: 'Medium',
    cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
    reason:
      "Rated as reflected XSS, what it most often leads to: a victim must open a crafted link (UI:R), the injected headers or body act in the victim's browser, another scope (S:C), on what the victim can read and do (C:L/I:L). Cache poisoning would raise it; the scan does not prove that.",
  }),
];
