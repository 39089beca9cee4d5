/**
 * The contract between the parts of Rampart's web application scanner (the built-in engine of ZAP
 * scans): the HTTP client every part sends through, what the crawler finds (endpoints and their
 * inputs), and the checks that test them. The crawler, the engine and each check are written
 * against these types only, so that each can be built and tested on its own.
 *
 * Glossary:
 * - *exchange*: one request sent and the response to it (`WebResponse` carries both);
 * - *endpoint*: one request shape the crawler found, a link with its query or a form with its
 *   fields; two links with the same method, path and parameter names are one endpoint;
 * - *input*: one named value of an endpoint a check may change (a query or form parameter, a
 *   header, a cookie), `InputPoint`;
 * - *baseline*: the endpoint sent with its own values, what a check compares its probes against;
 * - *proof*: the request and response excerpt that show a weakness, kept as the finding's evidence.
 *
 * Rules every check keeps:
 * - Report only what was proven, after a confirmation step; one weakness on one input of one
 *   endpoint is one finding however many payloads worked (the engine also de-duplicates on
 *   rule id + url + method + parameter).
 * - Every request goes through `ctx.client` (scope, rate, timeouts, cookies, the request budget);
 *   a check never opens a socket.
 * - Payloads are harmless: they read, echo, compute or sleep; they never write, delete or change
 *   anything beyond the value the form itself stores (a comment, a harmless uploaded text file).
 * - Stop promptly when `ctx.signal` aborts or the client throws `BudgetExhausted`: return, do not
 *   report half-proven findings.
 */
import type { Threat } from '../engine.js';
import type { Egress } from '../../shared/egress.js';

/** The HTTP methods the scanner sends. */
export type HttpMethod = 'GET' | 'POST' | 'HEAD' | 'OPTIONS';

export interface WebRequest {
  method: HttpMethod;
  /** Absolute URL, query included. Must be in scope (the client refuses others with `OutOfScope`). */
  url: string;
  /** Extra headers; the client adds Host, User-Agent, Accept, Cookie (from its jar) and Content-Length. */
  headers?: Record<string, string>;
  /** Request body (form-encoded or multipart, already encoded; set the content-type header with it). */
  body?: string | Uint8Array;
}

export interface SendOptions {
  /** Follow redirects within scope (default false: a check usually wants the 3xx itself). */
  followRedirects?: boolean;
  /** Deadline of this exchange; default the scan's request timeout. */
  timeoutMs?: number;
  /** Do not send the jar's cookies nor store the response's (e.g. a CSRF or session probe). */
  withoutCookies?: boolean;
  /** Allowed out of scope host for this one request (never used to follow). Default: scope only. */
  allowOutOfScope?: boolean;
  /** Written as is in the request line instead of the URL's normalised path and query (`/a/../../etc/passwd`). */
  rawTarget?: string;
}

/** One exchange: the response and the request that produced it, as sent. */
export interface WebResponse {
  request: {
    method: HttpMethod;
    url: string;
    /** The headers sent, Cookie included. */
    headers: Record<string, string>;
    /** The body sent, as text (binary bodies as latin1). */
    body: string;
  };
  /** The URL that answered (after redirects when followed). */
  url: string;
  status: number;
  /** Response headers, names lower-case; repeated headers (set-cookie) joined with '\n'. */
  headers: Record<string, string>;
  /** The body decoded as text (charset from content-type, default utf-8), capped (see `truncated`). */
  body: string;
  truncated: boolean;
  /** URLs redirected to, in order (when followed). */
  redirects: string[];
  /** Milliseconds from sending the request to the end of the body: what timing checks measure. */
  timeMs: number;
}

/** Thrown by `WebClient.send` once the scan's request budget or wall time is spent; checks return. */
export class BudgetExhausted extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BudgetExhausted';
  }
}

/** Thrown by `WebClient.send` for a URL outside the scan's scope (never sent). */
export class OutOfScope extends Error {
  constructor(readonly url: string) {
    super(`${url} is outside the scan's scope.`);
    this.name = 'OutOfScope';
  }
}

/**
 * The one HTTP client of a web scan (http/client.ts): every request through the job's egress
 * (the address guard on every hop), a per-host rate limit and concurrency bound, a timeout on
 * every exchange, a cookie jar (the session), a request budget, and a count of what was sent.
 * Network failures throw the egress's `EgressError` (code `timeout`, `refused`, `reset`...).
 */
export interface WebClient {
  send(request: WebRequest, options?: SendOptions): Promise<WebResponse>;
  /** True for URLs in the scan's scope (scheme, host, port and path prefix of the start URL). */
  inScope(url: string): boolean;
  /** Requests sent so far (every attempt that reached the network). */
  readonly requestsSent: number;
  /** The request budget or the scan's time is spent: `send` throws `BudgetExhausted` from now on. */
  readonly spent: boolean;
  /** The session's cookies as `name=value` pairs for a URL. */
  cookieHeader(url: string): string;
  /** Replaces the session (e.g. after a login): cookies as a browser reports them. */
  setCookies(cookies: BrowserCookie[]): void;
  /** Headers sent with every request from now on (a login's `authorization`), replacing earlier ones. */
  setHeaders(headers: Record<string, string>): void;
}

/** A cookie as Selenium's `get_cookies()` reports it. */
export interface BrowserCookie {
  name: string;
  value: string;
  domain?: string;
  path?: string;
  secure?: boolean;
  httpOnly?: boolean;
  /** Seconds since the epoch. */
  expiry?: number;
  sameSite?: string;
}

/** One field of a form, as the crawler read it from the HTML. */
export interface FormField {
  name: string;
  /** The input's type (`text`, `hidden`, `password`, `file`, `checkbox`, `radio`, `submit`, `email`, `number`...), `select` or `textarea`. */
  type: string;
  /** The value the form would send as is (a select's selected or first option; a plausible value for an empty text input). */
  value: string;
  /** A select's or radio group's options. */
  options?: string[];
}

/** One request shape found by the crawler. */
export interface Endpoint {
  method: 'GET' | 'POST';
  /** The URL without query string (the form's resolved action, or the link's path). */
  url: string;
  /** Query parameters with the values seen, in order. */
  query: Array<[string, string]>;
  /** A form's body fields (POST forms; GET forms put their fields in `query`). */
  body?: { encoding: 'urlencoded' | 'multipart'; fields: FormField[] };
  /** The page the endpoint was found on. */
  foundOn: string;
  /** `link`, `form`, `redirect`, `script` (a URL in an inline script), `robots`, `sitemap`. */
  source: 'link' | 'form' | 'redirect' | 'script' | 'robots' | 'sitemap' | 'start';
  /** Same method, path and parameter names: same key (inputs.ts `endpointKey`). */
  key: string;
}

/** One input of an endpoint a check may change. */
export interface InputPoint {
  endpoint: Endpoint;
  location: 'query' | 'body' | 'header' | 'cookie';
  name: string;
  /** The value the endpoint sends for it (the baseline's value). */
  value: string;
  /** The form field's type, for body inputs (`file` inputs are tested by the upload check only). */
  fieldType?: string;
}

/**
 * One page the crawler fetched (HTML or not). Its response keeps the status, headers and URL; the
 * body is not kept (the crawler and the passive checks read it when it came): fetch the page again
 * to read it.
 */
export interface CrawledPage {
  url: string;
  response: WebResponse;
  depth: number;
}

/** What the crawl produced: every page fetched and every endpoint found, de-duplicated. */
export interface SiteMap {
  /** The start URL (after its redirects). */
  start: string;
  pages: CrawledPage[];
  endpoints: Endpoint[];
}

/**
 * What a check proved, before the engine turns it into a `Finding` (findings.ts): the location
 * (url, method, parameter), the rule and the proof.
 */
export interface WebFindingDraft {
  /** The rule id, `rampart:web-<check>` (a row of severity.ts). */
  ruleId: string;
  url: string;
  method: string;
  /** The input's name; null for findings about a page or a site (headers, CSRF on a form without inputs). */
  parameter: string | null;
  /** Where the parameter is: `query`, `body`, `header`, `cookie` (said in the evidence). */
  location?: InputPoint['location'];
  /** The exchange(s) that prove it: rendered as request and response excerpts in the evidence. */
  proof: WebResponse[];
  /** One or two sentences on how it was proven (the payload, what came back, the confirmation). */
  summary: string;
  /** Replaces the rule's default name when the check knows more (e.g. `SQL injection (MariaDB, error-based)`). */
  name?: string;
  /** Quality of detection; default QOD.confirmed (95). */
  qod?: number;
  /** Text to highlight in the response excerpt (the payload echo, the error signature, the file content). */
  highlight?: string;
}

/** What a check is given: the client, the crawl, the report sink, helpers. */
export interface CheckContext {
  client: WebClient;
  site: SiteMap;
  signal: AbortSignal;
  /** Reports a proven weakness (de-duplicated by the engine). */
  report(draft: WebFindingDraft): void;
  log(level: 'info' | 'warn', message: string): void;
  /** A fresh unique token of 8 lowercase letters and digits, for markers and canaries. */
  token(): string;
  /** An outside host of the scanner's choosing for open-redirect probes (never contacted). */
  readonly canaryHost: string;
  /** Whether the user opted in to state-changing requests that look destructive (`allow_destructive`). */
  readonly allowDestructive: boolean;
}

/**
 * A check. Passive checks read every response the scan sees (`inspect`, synchronous, no requests);
 * active checks probe: `testInput` once per input of each endpoint (the engine runs inputs in
 * parallel within the rate limit), `testEndpoint` once per endpoint, `testSite` once after every
 * input was tested (stored XSS looks for its markers there).
 */
export interface WebCheck {
  /** Short id, the rule id's suffix and the name in the `checks` option: `sqli`, `xss`, `passive-headers`... */
  id: string;
  kind: 'passive' | 'active';
  inspect?(response: WebResponse, ctx: CheckContext): void;
  /** Which inputs it tests (default: query and body inputs that are not files). */
  appliesTo?(point: InputPoint): boolean;
  testInput?(point: InputPoint, ctx: CheckContext): Promise<void>;
  testEndpoint?(endpoint: Endpoint, ctx: CheckContext): Promise<void>;
  testSite?(ctx: CheckContext): Promise<void>;
}

/** A rule's fixed text and rating (a row of severity.ts). */
export interface WebRule {
  ruleId: string;
  name: string;
  description: string;
  solution: string;
  cwe: string;
  references: string[];
  threat: Threat;
  /** The CVSS v3.1 base vector and score where one fits honestly; null: rated by the table. */
  cvssVector: string | null;
  cvssBase: number | null;
  /** Why this rating. */
  reason: string;
}

/** The session a login script produced: what the scan sends from then on. */
export interface LoginSession {
  cookies: BrowserCookie[];
  /** Items of the page's localStorage and sessionStorage at the end of the login (tokens a single-page app keeps). */
  storage: { local: Record<string, string>; session: Record<string, string> };
  /** Headers derived from the storage (e.g. `authorization: Bearer <token>`), sent with every request. */
  headers: Record<string, string>;
}

/**
 * Replays the scan's login script (login/ runs it: Python Selenium, headless Chromium, its traffic
 * through the egress guard) and returns the session it produced. Throws an `EngineError` of kind
 * `config` with the script's own error output (truncated) when the script fails.
 */
export type LoginRunner = (request: { script: string; startUrl: string; signal: AbortSignal; egress: Egress }) => Promise<LoginSession>;
