/**
 * Stored cross-site scripting (CWE-79): each field of a POST form is submitted once with a payload
 * carrying unique code (`testInput`); once every input was tested, every crawled page is fetched
 * again and parsed, and a payload whose code arrived where a browser runs it proves that the
 * form stores markup another visitor's browser executes (`testSite`). The finding names the
 * submitting form's input; its evidence is the submission and the page that runs the code.
 */
import { looksDestructive } from '../crawl/destructive.js';
import type { CheckContext, InputPoint, WebCheck, WebClient, WebResponse, WebRule } from '../contract.js';
import { describeHit, findExecutable, xssCode } from './html-contexts.js';
import { isHtml } from './html.js';
import { describeInput, locationOf, probeInput, sendProbe, whileBudgetLasts } from './probe.js';
import { webRule } from './rule.js';

export const STORED_XSS_RULE_ID = 'rampart:web-xss-stored';

/** Pages fetched again to look for stored payloads. */
const MAX_PAGES = 100;

/** Form fields whose value a server plausibly stores and shows as typed. */
const SKIPPED_TYPES = new Set(['file', 'password', 'checkbox', 'radio', 'select', 'submit', 'button', 'image', 'reset']);

/** Paths the re-fetch never requests unless the user allowed destructive requests. */

/**
 * The stored payload: it leaves a quoted attribute, a `<title>`, a `<textarea>`, a script and a
 * comment before adding an element with an event handler, so that one submission is enough for
 * whichever context the page shows the value in.
 */
export function storedPayload(code: string): string {
  return `'"--></title></textarea></script><img src=x onerror=${code}>`;
}

/** One form submission whose payload may show up on a page. */
interface Submission {
  point: InputPoint;
  code: string;
  payload: string;
  exchange: WebResponse;
  found: boolean;
}

/** The submissions of each scan (one client per scan), until `testSite` reads them. */
const SUBMISSIONS = new WeakMap<WebClient, Submission[]>();

async function submit(point: InputPoint, ctx: CheckContext): Promise<void> {
  const code = xssCode(ctx.token());
  const payload = storedPayload(code);
  const exchange = await probeInput(ctx, point, payload);
  if (!exchange) return;
  const list = SUBMISSIONS.get(ctx.client) ?? [];
  list.push({ point, code, payload, exchange, found: false });
  SUBMISSIONS.set(ctx.client, list);
}

/** The pages to fetch again: the crawled HTML pages, the forms' own pages and where the submissions redirected. */
function pagesToRevisit(ctx: CheckContext, submissions: Submission[]): string[] {
  const urls = new Set<string>();
  for (const page of ctx.site.pages) if (page.response.request.method === 'GET' && isHtml(page.response)) urls.add(page.url);
  for (const { point, exchange } of submissions) {
    urls.add(point.endpoint.foundOn);
    const location = exchange.headers.location;
    if (location !== undefined && exchange.status >= 300 && exchange.status < 400) {
      try {
        urls.add(new URL(location, exchange.url).href.replace(/#.*$/, ''));
      } catch {
        // Not a URL: nothing to revisit.
      }
    }
  }
  return [...urls].filter((url) => ctx.client.inScope(url) && (ctx.allowDestructive || !looksDestructive(new URL(url).pathname))).slice(0, MAX_PAGES);
}

async function findStored(ctx: CheckContext): Promise<void> {
  const submissions = SUBMISSIONS.get(ctx.client) ?? [];
  SUBMISSIONS.delete(ctx.client);
  if (submissions.length === 0) return;
  for (const url of pagesToRevisit(ctx, submissions)) {
    if (submissions.every((s) => s.found)) return;
    const page = await sendProbe(ctx, { method: 'GET', url });
    if (!page || !isHtml(page)) continue;
    for (const submission of submissions) {
      if (submission.found) continue;
      const hit = findExecutable(page.body, submission.code);
      if (!hit) continue;
      submission.found = true;
      const { point } = submission;
      ctx.report({
        ruleId: STORED_XSS_RULE_ID,
        ...locationOf(point),
        proof: [submission.exchange, page],
        summary: `Submitted ${JSON.stringify(submission.payload)} in the ${describeInput(point)}; later, ${page.url} (fetched afterwards with a plain GET) carries the payload's code as ${describeHit(hit)}: every visitor of that page runs it.`,
        highlight: submission.code,
      });
    }
  }
}

/** Stored XSS: the fields of POST forms, looked for on every crawled page once all inputs were tested. */
export const STORED_XSS_CHECK: WebCheck = {
  id: 'xss-stored',
  kind: 'active',
  appliesTo: (point) => point.location === 'body' && point.endpoint.method === 'POST' && !SKIPPED_TYPES.has(point.fieldType ?? 'text'),
  testInput: (point, ctx) => whileBudgetLasts(ctx, () => submit(point, ctx)),
  testSite: (ctx) => whileBudgetLasts(ctx, () => findStored(ctx)),
};

export const STORED_XSS_RULE: WebRule = webRule({
  ruleId: STORED_XSS_RULE_ID,
  name: 'Stored cross-site scripting',
  description:
    'A form stores what it is sent and a page of the site shows it again without encoding it, so script submitted once runs in the browser of every visitor of that page, with each visitor\'s session: an administrator reading the page can be made to act for the attacker.',
  solution:
    'Encode stored values on output for the context they land in (HTML text, attribute, script, URL), whichever page shows them; if users may submit rich text, sanitise it with an allow-list HTML sanitiser on output. A template engine that escapes by default and a Content-Security-Policy without unsafe-inline limit the damage of a missed spot.',
  cwe: 'CWE-79',
  references: [
    'https://cwe.mitre.org/data/definitions/79.html',
    'https://owasp.org/www-community/attacks/xss/#stored-xss-attacks',
    'https://cheatsheetseries.owasp.org/cheatsheets/Cross_Site_Scripting_Prevention_Cheat_Sheet.html',
  ],
  threat: 'High',
  cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:L/I:L/A:N',
  reason:
    'Above reflected XSS: the attacker needs no victim to open a crafted link, since anyone browsing the page in the normal way runs the script, again and again until the entry is removed (UI:N); it runs in the browser, a different scope from the server (S:C), with what the visitor can read and do (C:L/I:L). The scan submitted the form with its own session only: behind a login, PR:L gives 6.4.',
});
