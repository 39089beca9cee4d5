/**
 * Open redirect (CWE-601): an input decides where the browser is sent next, and any site will do.
 * Inputs named or valued like a URL, and inputs whose marker shows up in a redirect, are set to
 * URLs of the scan's canary host (`https://canary/...`, `//canary/...`, `/\canary/...`, a
 * userinfo trick); a finding needs the response to send the browser to the canary host, by its
 * Location header (on a 3xx), a Refresh header, a meta refresh or a script assigning `location`,
 * resolved as a browser resolves it; a second probe confirms. Redirects are never followed.
 */
import type { CheckContext, InputPoint, WebCheck, WebResponse, WebRule } from '../contract.js';
import { elementsOf, isExecutableScript, parseHtml, textOf } from './html-contexts.js';
import { isHtml } from './html.js';
import { jsStateAt } from './js-scan.js';
import { describeInput, locationOf, probeInput, whileBudgetLasts } from './probe.js';
import { webRule } from './rule.js';

export const OPEN_REDIRECT_RULE_ID = 'rampart:web-open-redirect';

/** Parameter names that usually carry a destination. */
const DESTINATION_NAME = /url|uri|redir|return|goto|dest|next|continue|callback|forward|location|target|^(?:to|r|u|go|out|back|link|site)$/i;

/** Values that look like a destination: an absolute URL, a scheme-relative one, or a path. */
const DESTINATION_VALUE = /^(?:[a-z][a-z0-9+.-]*:\/\/|\/)/i;

/** Where a response sends the browser: a target and how (`Location header`, `meta refresh`...). */
export interface RedirectTarget {
  via: string;
  target: string;
}

/** The statuses on which a browser follows Location (not 300, 304, 305). */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const SCRIPT_ASSIGNMENT = /(?:\b(?:window|document|top|self|parent)\.)?\blocation(?:\.href)?\s*=\s*(["'`])((?:\\.|(?!\1)[^\\])*)\1/g;
const SCRIPT_CALL = /\blocation\.(?:replace|assign)\(\s*(["'`])((?:\\.|(?!\1)[^\\])*)\1/g;

/** The URL in a refresh instruction (`0; url=https://...`), or null. */
function refreshTarget(content: string): string | null {
  const match = /^\s*\d*(?:\.\d*)?\s*[;,]?\s*(?:url\s*=\s*)?(.*)$/i.exec(content);
  const target = match?.[1]?.trim().replace(/^(["'])(.*)\1$/, '$2') ?? '';
  return target === '' ? null : target;
}

/** Every place the response sends the browser to. */
export function redirectTargets(response: WebResponse): RedirectTarget[] {
  const targets: RedirectTarget[] = [];
  const location = response.headers.location;
  if (location !== undefined && REDIRECT_STATUSES.has(response.status)) targets.push({ via: 'Location header', target: location });
  const refresh = response.headers.refresh === undefined ? null : refreshTarget(response.headers.refresh);
  if (refresh !== null) targets.push({ via: 'Refresh header', target: refresh });
  if (!isHtml(response) || !/refresh|location/i.test(response.body)) return targets;
  for (const element of elementsOf(parseHtml(response.body))) {
    const attr = (name: string): string | undefined => element.attrs.find((a) => a.name === name)?.value;
    if (element.tagName === 'meta' && attr('http-equiv')?.toLowerCase() === 'refresh') {
      const target = refreshTarget(attr('content') ?? '');
      if (target !== null) targets.push({ via: 'meta refresh', target });
    }
    if (!isExecutableScript(element)) continue;
    const source = textOf(element);
    for (const pattern of [SCRIPT_ASSIGNMENT, SCRIPT_CALL]) {
      for (const match of source.matchAll(pattern)) {
        if (jsStateAt(source, match.index) !== 'code') continue;
        targets.push({ via: 'script assigning location', target: (match[2] ?? '').replace(/\\(.)/g, '$1') });
      }
    }
  }
  return targets;
}

/** The first target on `host`, resolved against the response's URL as a browser does. */
function targetOn(response: WebResponse, host: string): RedirectTarget | null {
  for (const target of redirectTargets(response)) {
    try {
      if (new URL(target.target, response.url).hostname.toLowerCase() === host.toLowerCase()) return target;
    } catch {
      // Not a URL: the browser goes nowhere.
    }
  }
  return null;
}

/** Destinations on the canary host, in the shapes filters let through. */
function payloads(point: InputPoint, canary: string): Array<(token: string) => string> {
  const own = new URL(point.endpoint.url).host;
  return [(t) => `https://${canary}/${t}`, (t) => `//${canary}/${t}`, (t) => `/\\${canary}/${t}`, (t) => `https://${own}@${canary}/${t}`, (t) => `${canary}/${t}`];
}

/** Whether the input is worth trying: named or valued like a destination, or its marker lands in a redirect. */
async function decidesDestination(ctx: CheckContext, point: InputPoint): Promise<boolean> {
  if (DESTINATION_NAME.test(point.name) || DESTINATION_VALUE.test(point.value)) return true;
  const marker = ctx.token();
  const response = await probeInput(ctx, point, marker);
  return response !== null && redirectTargets(response).some((t) => t.target.includes(marker));
}

async function testRedirect(point: InputPoint, ctx: CheckContext): Promise<void> {
  if (!(await decidesDestination(ctx, point))) return;
  for (const payload of payloads(point, ctx.canaryHost)) {
    const value = payload(ctx.token());
    const first = await probeInput(ctx, point, value);
    const sent = first && targetOn(first, ctx.canaryHost);
    if (!sent) continue;
    // Confirmation: a fresh path on the canary host, sent the same way, must be where the browser goes.
    const token = ctx.token();
    const again = await probeInput(ctx, point, payload(token));
    const confirmed = again && targetOn(again, ctx.canaryHost);
    if (!again || !confirmed?.target.includes(token)) continue;
    ctx.report({
      ruleId: OPEN_REDIRECT_RULE_ID,
      ...locationOf(point),
      proof: [again],
      summary: `Sent ${JSON.stringify(value)} in the ${describeInput(point)}: the response sends the browser to ${JSON.stringify(sent.target)} (${sent.via}), on ${ctx.canaryHost}, a host of the scanner's choosing; a second probe with another path went there too. Not followed.`,
      highlight: confirmed.target,
    });
    return;
  }
}

/** Open redirect: inputs that look like destinations or end up in a redirect. */
export const OPEN_REDIRECT_CHECK: WebCheck = {
  id: 'open-redirect',
  kind: 'active',
  testInput: (point, ctx) => whileBudgetLasts(ctx, () => testRedirect(point, ctx)),
};

export const CHECKS: WebCheck[] = [OPEN_REDIRECT_CHECK];

export const RULES: WebRule[] = [
  webRule({
    ruleId: OPEN_REDIRECT_RULE_ID,
    name: 'Open redirect',
    description:
      "A request parameter decides where the page sends the browser, and any outside site is accepted, so a link that starts on this trusted site lands on an attacker's: phishing pages that borrow the site's name, and stolen OAuth codes or tokens where the redirect ends a login flow.",
    solution:
      'Redirect only to destinations on an allow-list, or only to paths on the same origin: resolve the target as a browser does (scheme-relative //host and /\\host included) and compare its origin; better, pass an identifier of the destination rather than a URL.',
    cwe: 'CWE-601',
    references: [
      'https://cwe.mitre.org/data/definitions/601.html',
      'https://cheatsheetseries.owasp.org/cheatsheets/Unvalidated_Redirects_and_Forwards_Cheat_Sheet.html',
    ],
    threat: 'Medium',
    cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
    reason:
      "NVD's usual rating of open redirects: a victim must follow a crafted link (UI:R), the harm happens on another site (S:C), limited to what the victim is tricked into giving or doing there (C:L/I:L).",
  }),
];
