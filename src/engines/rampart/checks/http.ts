/**
 * The HTTP check: security headers, version disclosure, cookies, TRACE, plain HTTP without a
 * redirect to HTTPS, exposed files (.git, .env, backups), status and info pages (Apache
 * mod_status and mod_info, nginx stub_status, PHP-FPM status and ping, Tomcat Manager, Spring
 * Boot actuator), and directory listings with the sensitive files they show. Requests per port:
 * `GET /`, one same-origin redirect followed, a random path to detect catch-all answers, the 18
 * fixed probes, `TRACE /`, then the crawl (http-crawl.ts: links within the site, depth 2, at most
 * 100 requests), three at a time, no keep-alive, bodies capped at 64 KiB; GET only, nothing is
 * written, no credentials are sent. Every page is judged on its content, never on a status alone,
 * and an answer like the catch-all page's proves nothing.
 *
 * Threats come from the severity table (`../severity.ts`, docs/SEVERITY.md); a rule id never changes:
 *
 * | Rule id                                  | Threat     | CWE      | Why                                       |
 * |------------------------------------------|------------|----------|-------------------------------------------|
 * | rampart:http-missing-hsts                | Low        | CWE-319  | SSL stripping on first visit (HTTPS only) |
 * | rampart:http-missing-csp                 | Low        | CWE-693  | defence in depth against XSS (HTML only)  |
 * | rampart:http-missing-frame-options       | Low        | CWE-1021 | clickjacking needs user interaction       |
 * | rampart:http-missing-content-type-options| Low        | CWE-693  | MIME sniffing, defence in depth           |
 * | rampart:http-version-disclosure          | Low        | CWE-200  | eases choosing exploits                   |
 * | rampart:http-cookie-no-secure            | Low        | CWE-614  | cookie sent over HTTP too (HTTPS only)    |
 * | rampart:http-cookie-no-httponly          | Low        | CWE-1004 | readable by XSS                           |
 * | rampart:http-cookie-no-samesite          | Low        | CWE-1275 | CSRF on older browsers                    |
 * | rampart:http-trace-enabled               | Low        | CWE-693  | cross-site tracing (XST), modern browsers block it |
 * | rampart:http-no-https-redirect           | Medium     | CWE-319  | all traffic in clear text                 |
 * | rampart:http-directory-listing           | Medium     | CWE-548  | file names for anyone                     |
 * | rampart:http-listing-sensitive-files     | Medium     | CWE-538  | a listing shows dumps, backups, keys, config by name |
 * | rampart:http-status-page-exposed         | Medium/Low | CWE-200  | Apache/PHP-FPM: URLs and clients; nginx stub, FPM ping: counters (Low) |
 * | rampart:http-server-info-exposed         | Medium     | CWE-200  | Apache mod_info: the whole configuration  |
 * | rampart:http-tomcat-manager-exposed      | Medium/Critical | CWE-1188 | login reachable: a password from code execution; open (200): Critical |
 * | rampart:http-actuator-exposed            | High/Medium | CWE-200 | env, heapdump, loggers...: secrets and control (High); others Medium; health/info alone nothing |
 * | rampart:http-ds-store-exposed            | Low        | CWE-538  | file names of a directory                 |
 * | rampart:http-backup-exposed              | High       | CWE-530  | source, data or credentials               |
 * | rampart:http-git-exposed                 | High       | CWE-538  | whole source history and its secrets      |
 * | rampart:http-env-exposed                 | High       | CWE-538  | application secrets                       |
 */
import { randomBytes } from 'node:crypto';
import type { Check, CheckFinding, Endpoint, ServiceInfo } from './check.js';
import { crawlSite, forEachLimited } from './http-crawl.js';
import { EXPOSURE_PROBES, exposureFindings, exposureHit, LISTING_PROBES, type ExposureHit } from './http-exposures.js';
import { cookieFindings, formatHeaders, missingHeaderFindings, versionDisclosureFinding } from './http-headers.js';
import { hostHeader, sendHttpRequest, type HttpResponse } from './http-request.js';
import { severityOf } from '../severity.js';

/** Requests in flight at once against one port. */
const PARALLEL_REQUESTS = 3;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Checks every HTTP service, over TLS when the service speaks it. */
export const httpCheck: Check = {
  id: 'http',
  appliesTo: (service: ServiceInfo) => service.name === 'http',
  run: (endpoint: Endpoint, service: ServiceInfo) => runHttpCheck(endpoint, service.tls),
};

async function runHttpCheck(endpoint: Endpoint, secure: boolean): Promise<CheckFinding[]> {
  // One request per path: the crawl reuses what the fixed probes already fetched.
  const asked = new Map<string, Promise<HttpResponse | null>>();
  const get = (path: string): Promise<HttpResponse | null> => {
    let response = asked.get(path);
    if (response === undefined) {
      response = sendHttpRequest(endpoint, secure, { path });
      asked.set(path, response);
    }
    return response;
  };
  const origin = `${secure ? 'https' : 'http'}://${hostHeader(endpoint, secure)}`;

  const root = await get('/');
  if (root === null) return [];
  const location = redirectTarget(root, origin);
  const toHttps = location?.protocol === 'https:';
  // Judge the page a browser would land on: follow one redirect that stays on this origin.
  let page = root;
  let pagePath = '/';
  if (location !== null && location.origin === origin) {
    pagePath = `${location.pathname}${location.search}`;
    page = (await get(pagePath)) ?? root;
  }

  const findings: CheckFinding[] = [];
  if (!secure && !toHttps) findings.push(noRedirectFinding(root));
  // A plain-HTTP port that sends everyone to HTTPS serves no content worth headers.
  if (secure || !toHttps) findings.push(...missingHeaderFindings(page.status, page.headers, secure));
  const disclosure = versionDisclosureFinding(root.headers) ?? versionDisclosureFinding(page.headers);
  if (disclosure !== null) findings.push(disclosure);
  const setCookies = [root, page === root ? null : page].flatMap((response) => response?.headers['set-cookie'] ?? []);
  findings.push(...cookieFindings({ 'set-cookie': setCookies }, secure));

  // An answer for a path that cannot exist shows the catch-all: a page like it proves nothing.
  const random = await get(`/rampart-${randomBytes(8).toString('hex')}`);
  const known = [root.body, page.body, ...(random?.status === 200 ? [random.body] : [])];
  const likeCatchAll = (response: HttpResponse): boolean =>
    known.some((body) => body.equals(response.body)) || (random !== null && random.status === response.status && random.body.equals(response.body));
  const proves = (response: HttpResponse | null, statuses: readonly number[] = [200]): response is HttpResponse =>
    response !== null && statuses.includes(response.status) && response.body.length > 0 && !likeCatchAll(response);

  const hits: ExposureHit[] = [];
  await forEachLimited(EXPOSURE_PROBES, PARALLEL_REQUESTS, async (probe) => {
    const response = await get(probe.path);
    const recognised = proves(response, probe.statuses) ? probe.recognise(response) : null;
    if (recognised !== null) hits.push(exposureHit(probe.kind, probe.path, recognised, response?.status));
  });
  // Probes finish in any order; keep evidence in the fixed probe order.
  const order = (path: string): number => EXPOSURE_PROBES.findIndex((probe) => probe.path === path);
  hits.sort((a, b) => order(a.path) - order(b.path));

  const start = page.status === 200 ? { path: pagePath, response: page, catchAll: random?.status === 200 && random.body.equals(page.body) } : null;
  const crawl = await crawlSite({ origin, get, proves: (response) => proves(response), limits: endpoint.limits, signal: endpoint.signal, bucket: endpoint.bucket }, start, LISTING_PROBES);
  // A page both probed and crawled (a linked /server-status) is reported once.
  const reported = new Set(hits.map((hit) => `${hit.kind} ${hit.path}`));
  hits.push(...crawl.hits.filter((hit) => !reported.has(`${hit.kind} ${hit.path}`)));
  findings.push(...exposureFindings(hits));

  const trace = await traceFinding(endpoint, secure);
  if (trace !== null) findings.push(trace);
  return endpoint.signal.aborted ? [] : findings;
}

/** Where a redirect points, resolved against the origin; null when the response is no redirect. */
function redirectTarget(response: HttpResponse, origin: string): URL | null {
  const location = response.headers.location;
  if (!REDIRECT_STATUSES.has(response.status) || location === undefined) return null;
  try {
    return new URL(location, `${origin}/`);
  } catch {
    return null;
  }
}

function noRedirectFinding(root: HttpResponse): CheckFinding {
  const location = root.headers.location;
  return {
    ruleId: 'rampart:http-no-https-redirect',
    name: 'Plain HTTP without a redirect to HTTPS',
    description: 'The service answers over unencrypted HTTP and does not send visitors to HTTPS, so pages, credentials and cookies cross the network in clear text, readable and alterable by anyone in the path.',
    solution: 'Serve the site over HTTPS and answer every plain-HTTP request with a 301/308 redirect to its https:// URL (then add HSTS).',
    ...severityOf('rampart:http-no-https-redirect'),
    cve: [],
    cwe: 'CWE-319',
    evidence: `GET / -> ${root.status}${location === undefined ? ' (no redirect)' : `, Location: ${location} (not https)`}`,
    references: ['https://cheatsheetseries.owasp.org/cheatsheets/Transport_Layer_Security_Cheat_Sheet.html', 'https://infosec.mozilla.org/guidelines/web_security#http-redirections'],
  };
}

/** `TRACE /` with a marker header: a 200 echoing the request back means TRACE is enabled. */
async function traceFinding(endpoint: Endpoint, secure: boolean): Promise<CheckFinding | null> {
  const marker = randomBytes(8).toString('hex');
  const response = await sendHttpRequest(endpoint, secure, { method: 'TRACE', path: '/', headers: { 'x-rampart-trace': marker } });
  if (response === null || response.status !== 200) return null;
  const echo = response.body.toString('latin1');
  if (!/^TRACE \/ HTTP\/1\.[01]/.test(echo) || !echo.includes(marker)) return null;
  return {
    ruleId: 'rampart:http-trace-enabled',
    name: 'HTTP TRACE method enabled',
    description: 'The server answers TRACE by echoing the request, headers included. With another flaw this can reveal cookies or headers added by proxies (cross-site tracing); it serves no purpose in production.',
    solution: 'Disable TRACE (Apache `TraceEnable off`; in other servers, reject the method).',
    ...severityOf('rampart:http-trace-enabled'),
    cve: [],
    cwe: 'CWE-693',
    evidence: `TRACE / -> 200, ${response.headers['content-type'] ?? 'no content type'}, body echoes the request:\n${echo.slice(0, 300)}\n\n${formatHeaders(response.status, response.headers)}`,
    references: [
      'https://www.rfc-editor.org/rfc/rfc9110#name-trace',
      'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/02-Configuration_and_Deployment_Management_Testing/06-Test_HTTP_Methods',
    ],
  };
}
