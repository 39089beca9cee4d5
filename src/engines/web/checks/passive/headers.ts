/**
 * Security headers of HTML pages and version disclosure in response headers. A missing header is a
 * property of the site's configuration, so it is reported once per origin (url = origin + '/');
 * the first page seen without it is the proof.
 */
import type { CheckContext, WebCheck, WebResponse } from '../../contract.js';
import { firstTime } from '../once.js';
import { isHtmlPage, isHttps, originOf, withoutQuery } from './response.js';

/** A site-wide header finding, once per origin. */
function reportSiteWide(ctx: CheckContext, response: WebResponse, ruleId: string, summary: string, highlight?: string): void {
  const origin = originOf(response.url);
  if (origin === null || !firstTime(ctx, `${ruleId} ${origin}`)) return;
  ctx.report({ ruleId, url: `${origin}/`, method: response.request.method, parameter: null, proof: [response], summary, ...(highlight ? { highlight } : {}) });
}

/** Whether the page declares a CSP in a `<meta http-equiv>` (it applies like the header, frame-ancestors aside). */
const META_CSP = /<meta[^>]+http-equiv\s*=\s*["']?content-security-policy/i;

function inspectSecurityHeaders(response: WebResponse, ctx: CheckContext): void {
  if (!isHtmlPage(response)) return;
  const h = response.headers;
  const csp = h['content-security-policy'];
  const where = `${response.request.method} ${response.url} answered ${response.status}`;
  if (csp === undefined && !META_CSP.test(response.body)) {
    reportSiteWide(ctx, response, 'rampart:web-missing-csp', `${where} without a Content-Security-Policy header (nor a meta policy); reported once for the site.`);
  }
  if (isHttps(response.url) && !/max-age\s*=\s*"?[1-9]/i.test(h['strict-transport-security'] ?? '')) {
    const state = h['strict-transport-security'] === undefined ? 'without Strict-Transport-Security' : `with Strict-Transport-Security "${h['strict-transport-security']}" (no lasting max-age)`;
    reportSiteWide(ctx, response, 'rampart:web-missing-hsts', `${where} over HTTPS ${state}; reported once for the site.`);
  }
  const frameOptions = (h['x-frame-options'] ?? '').trim().toLowerCase();
  if (frameOptions !== 'deny' && frameOptions !== 'sameorigin' && !/(?:^|[;,])\s*frame-ancestors\s/i.test(csp ?? '')) {
    reportSiteWide(ctx, response, 'rampart:web-clickjacking', `${where} with neither X-Frame-Options (DENY or SAMEORIGIN) nor a CSP frame-ancestors directive; reported once for the site.`);
  }
  if ((h['x-content-type-options'] ?? '').trim().toLowerCase() !== 'nosniff') {
    reportSiteWide(ctx, response, 'rampart:web-missing-nosniff', `${where} without X-Content-Type-Options: nosniff; reported once for the site.`);
  }
}

/** Headers that name server software; a value counts when it carries a version number. */
const VERSION_HEADERS = ['server', 'x-powered-by', 'x-aspnet-version', 'x-aspnetmvc-version', 'x-generator'];
const VERSION = /\d+\.\d+/;

function inspectVersionHeaders(response: WebResponse, ctx: CheckContext): void {
  for (const name of VERSION_HEADERS) {
    const value = response.headers[name]?.split('\n')[0]?.trim();
    if (!value || !VERSION.test(value)) continue;
    // Once per origin and disclosed value: the same banner on every page is one finding, at the first page it was seen on.
    if (!firstTime(ctx, `version ${originOf(response.url)} ${name} ${value}`)) continue;
    ctx.report({
      ruleId: 'rampart:web-version-disclosure',
      url: withoutQuery(response.url),
      method: response.request.method,
      parameter: null,
      proof: [response],
      summary: `The response header "${name}: ${value}" names the software and its version.`,
      highlight: value,
    });
  }
}

export const HEADER_CHECKS: WebCheck[] = [
  { id: 'passive-headers', kind: 'passive', inspect: inspectSecurityHeaders },
  { id: 'passive-version', kind: 'passive', inspect: inspectVersionHeaders },
];
