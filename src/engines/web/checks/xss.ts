/**
 * Cross-site scripting, reflected and stored (CWE-79). Context-aware: a harmless marker first
 * shows where the input lands (html-contexts.ts `reflectionContexts`), then payloads built to
 * leave that context are sent, and a finding needs the response, parsed as a browser parses it,
 * to carry the payload's code where it would run (`findExecutable`). Escaped or encoded
 * reflections parse as text and never count. The stored variant is in xss-stored.ts.
 */
import type { CheckContext, InputPoint, WebCheck, WebRule } from '../contract.js';
import { anElement, describeHit, findExecutable, reflectionContexts, xssCode, type ReflectionContext } from './html-contexts.js';
import { isHtml } from './html.js';
import type { JsState } from './js-scan.js';
import { describeInput, locationOf, probeInput, whileBudgetLasts } from './probe.js';
import { webRule } from './rule.js';
import { STORED_XSS_CHECK, STORED_XSS_RULE } from './xss-stored.js';

export const REFLECTED_XSS_RULE_ID = 'rampart:web-xss-reflected';

/** Payloads tried on one input at most (over every context it lands in). */
const MAX_PAYLOADS = 8;

/** A payload for a context, as a function of the code it carries. */
type Payload = (code: string) => string;

const element: Payload = (code) => `<img src=x onerror=${code}>`;
const svg: Payload = (code) => `<svg onload=${code}>`;

/** Payloads that end a JavaScript string, comment or expression at `state` and run the code. */
function leaveJs(state: JsState): Payload[] {
  switch (state) {
    case 'single':
    case 'double': {
      const q = state === 'single' ? "'" : '"';
      return [(code) => `${q}-${code}-${q}`, (code) => `${q};${code};//`];
    }
    case 'template':
      return [(code) => `\${${code}}`, (code) => `\`;${code};//`];
    case 'code':
      return [(code) => code, (code) => `;${code};//`];
    case 'line-comment':
      return [(code) => `\n${code}\n`];
    case 'block-comment':
      return [(code) => `*/${code}/*`];
    case 'regex':
      return [(code) => `/;${code};//`];
  }
}

/** The payloads built to leave `context` and introduce something a browser runs, best first. */
export function payloadsFor(context: ReflectionContext): Payload[] {
  switch (context.kind) {
    case 'text':
      return [element, svg];
    case 'raw-text':
      return [(code) => `</${context.tag}>${element(code)}`];
    case 'comment':
      return [(code) => `-->${element(code)}`];
    case 'script':
      return [...leaveJs(context.state), (code) => `</script>${element(code)}`];
    case 'attribute': {
      const q = context.quote;
      const open = q || 'x';
      return [
        ...(context.url ? [(code: string) => `javascript:${code}`] : []),
        ...(context.js ? leaveJs(context.js) : []),
        (code) => `${open}>${element(code)}`,
        (code) => `${open} autofocus onfocus=${code} x=${q}`,
      ];
    }
  }
}

/** How the summary names a context. */
export function describeContext(context: ReflectionContext): string {
  switch (context.kind) {
    case 'text':
      return 'HTML text';
    case 'raw-text':
      return `the text of ${anElement(context.tag)}`;
    case 'comment':
      return 'an HTML comment';
    case 'script':
      return context.state === 'code' ? 'the code of a script' : `a ${context.state === 'single' || context.state === 'double' ? 'string literal' : context.state} in a script`;
    case 'attribute':
      return `the ${context.name} attribute of ${anElement(context.tag)}${context.quote ? '' : ' (unquoted)'}`;
  }
}

async function testReflected(point: InputPoint, ctx: CheckContext): Promise<void> {
  const marker = ctx.token();
  const first = await probeInput(ctx, point, marker);
  if (!first || !isHtml(first)) return;
  const tried = new Set<string>();
  const attempts: Array<{ context: ReflectionContext; payload: Payload }> = [];
  for (const context of reflectionContexts(first.body, marker)) {
    for (const payload of payloadsFor(context)) {
      const shape = payload('CODE');
      if (tried.has(shape)) continue;
      tried.add(shape);
      attempts.push({ context, payload });
    }
  }
  for (const { context, payload } of attempts.slice(0, MAX_PAYLOADS)) {
    const code = xssCode(ctx.token());
    const value = payload(code);
    const response = await probeInput(ctx, point, value);
    if (!response || !isHtml(response)) continue;
    const hit = findExecutable(response.body, code);
    if (!hit) continue;
    ctx.report({
      ruleId: REFLECTED_XSS_RULE_ID,
      ...locationOf(point),
      proof: [response],
      name: `Reflected cross-site scripting (in ${describeContext(context)})`,
      summary: `The ${describeInput(point)} lands in ${describeContext(context)}. Sent ${JSON.stringify(value)}; the response, parsed as a browser parses it, carries the payload's code as ${describeHit(hit)}, where it runs.`,
      highlight: code,
    });
    return;
  }
}

/** Reflected XSS: every query and form input. */
export const REFLECTED_XSS_CHECK: WebCheck = {
  id: 'xss-reflected',
  kind: 'active',
  testInput: (point, ctx) => whileBudgetLasts(ctx, () => testReflected(point, ctx)),
};

export const CHECKS: WebCheck[] = [REFLECTED_XSS_CHECK, STORED_XSS_CHECK];

export const RULES: WebRule[] = [
  webRule({
    ruleId: REFLECTED_XSS_RULE_ID,
    name: 'Reflected cross-site scripting',
    description:
      'The page copies a request parameter into its HTML without encoding it for the place it lands in, so a link carrying script makes the page run that script in the visitor\'s browser, with the visitor\'s session on this site: reading what the page shows, acting as the visitor, or changing what the page says.',
    solution:
      'Encode every value on output for its context: HTML-escape text and quoted attribute values, JavaScript-encode values in scripts (or pass them as JSON in a data attribute), and accept only http(s) URLs in href and src. Prefer a template engine that escapes by default, and add a Content-Security-Policy without unsafe-inline as a second line of defence.',
    cwe: 'CWE-79',
    references: [
      'https://cwe.mitre.org/data/definitions/79.html',
      'https://owasp.org/www-community/attacks/xss/',
      'https://cheatsheetseries.owasp.org/cheatsheets/Cross_Site_Scripting_Prevention_Cheat_Sheet.html',
    ],
    threat: 'Medium',
    cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
    reason:
      'The usual rating of reflected XSS: no privileges needed, but a victim must open a crafted link (UI:R); the script runs in the browser, a different security scope from the server (S:C), and reaches what the victim can read and do on the site (C:L/I:L).',
  }),
  STORED_XSS_RULE,
];
