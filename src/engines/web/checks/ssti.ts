/**
 * Server-side template injection (CWE-1336): an input the server pastes into a template's source
 * is evaluated as template code. Proven by arithmetic: a product of two random numbers, written
 * in a template syntax, comes back computed where the marker response did not show it; a second
 * random pair gives its product too, and the same arithmetic without the syntax's delimiters
 * stays unevaluated (so it is the template engine, not a calculator, that computes). Only inputs
 * whose value is reflected are tried: the product must be seen to be proven.
 */
import type { CheckContext, InputPoint, WebCheck, WebResponse, WebRule } from '../contract.js';
import { describeInput, locationOf, probeInput, randomProduct, whileBudgetLasts } from './probe.js';
import { webRule } from './rule.js';

export const SSTI_RULE_ID = 'rampart:web-ssti';

/** A template syntax: how it writes an expression, and the engines that use it. */
interface Syntax {
  wrap: (expression: string) => string;
  family: string;
}

/** The syntaxes tried, most common first; the first one evaluated is the one reported. */
export const SYNTAXES: Syntax[] = [
  { wrap: (e) => `{{${e}}}`, family: 'a {{ }} engine: Jinja2, Nunjucks, Twig, Pebble...' },
  { wrap: (e) => `\${${e}}`, family: 'a ${ } engine: FreeMarker, Thymeleaf, JSP EL, Mako, Velocity...' },
  { wrap: (e) => `<%= ${e} %>`, family: 'ERB (Ruby) or EJS (JavaScript)' },
  { wrap: (e) => `#{${e}}`, family: 'Pug, Slim or Ruby interpolation' },
  { wrap: (e) => `{{=${e}}}`, family: 'doT.js or web2py' },
  { wrap: (e) => `{${e}}`, family: 'Smarty or Latte' },
  { wrap: (e) => `@(${e})`, family: 'Razor (ASP.NET)' },
];

/** Sends `syntax` around a fresh product; the response and the product when it came back computed. */
async function evaluates(ctx: CheckContext, point: InputPoint, wrap: (e: string) => string, before: string): Promise<{ response: WebResponse; payload: string; product: string } | null> {
  const { expression, product } = randomProduct();
  const payload = wrap(expression);
  const response = await probeInput(ctx, point, payload);
  if (!response || !response.body.includes(product) || before.includes(product)) return null;
  return { response, payload, product };
}

/** For a `{{ }}` engine: which language the expressions are in, and whether they reach code execution. */
async function identify(ctx: CheckContext, point: InputPoint, before: string): Promise<{ family: string; proof?: WebResponse; note: string } | null> {
  const word = `rmp${ctx.token()}`;
  const js = await probeInput(ctx, point, `{{"${word}".toUpperCase()}}`);
  if (js?.body.includes(word.toUpperCase())) {
    // The Function constructor, reached from any function: arbitrary JavaScript, here a harmless product.
    const code = await evaluates(ctx, point, (e) => `{{range.constructor("return ${e}")()}}`, before);
    if (code) return { family: 'Nunjucks: JavaScript, code execution proven', proof: code.response, note: ` ${JSON.stringify(code.payload)} ran through JavaScript's Function constructor and returned ${code.product}: arbitrary code runs on the server.` };
    return { family: 'a JavaScript engine such as Nunjucks', note: ' String methods of JavaScript run in expressions.' };
  }
  const python = await probeInput(ctx, point, `{{"${word}".upper()}}`);
  if (python?.body.includes(word.toUpperCase())) return { family: 'Jinja2: Python', note: " Python's str.upper() runs in expressions." };
  return null;
}

async function testTemplate(point: InputPoint, ctx: CheckContext): Promise<void> {
  const marker = `rmp${ctx.token()}`;
  const baseline = await probeInput(ctx, point, marker);
  if (!baseline?.body.includes(marker)) return;
  for (const [index, syntax] of SYNTAXES.entries()) {
    const first = await evaluates(ctx, point, syntax.wrap, baseline.body);
    if (!first) continue;
    const second = await evaluates(ctx, point, syntax.wrap, baseline.body);
    if (!second) continue;
    const control = await evaluates(ctx, point, (e) => e, baseline.body);
    // Bare arithmetic computed too: something evaluates expressions, but not as a template; not proven here.
    if (control) return;
    const known = index === 0 ? await identify(ctx, point, baseline.body) : null;
    ctx.report({
      ruleId: SSTI_RULE_ID,
      ...locationOf(point),
      proof: known?.proof ? [first.response, known.proof] : [first.response, second.response],
      name: `Server-side template injection (${known?.family ?? syntax.family})`,
      summary:
        `Sent ${JSON.stringify(first.payload)} in the ${describeInput(point)}: the response shows ${first.product}, the product, which the response to a plain marker did not; ` +
        `${JSON.stringify(second.payload)} gave ${second.product} too, and the same arithmetic without the delimiters was not computed: the input is evaluated as template code.${known?.note ?? ''}`,
      highlight: first.product,
    });
    return;
  }
}

/** Template injection: every query and form input whose value the page shows. */
export const SSTI_CHECK: WebCheck = {
  id: 'ssti',
  kind: 'active',
  testInput: (point, ctx) => whileBudgetLasts(ctx, () => testTemplate(point, ctx)),
};

export const CHECKS: WebCheck[] = [SSTI_CHECK];

export const RULES: WebRule[] = [
  webRule({
    ruleId: SSTI_RULE_ID,
    name: 'Server-side template injection',
    description:
      "The server builds a template's source from a request parameter, so the template engine evaluates what the parameter says. Template expressions reach the engine's objects and, in most engines (Jinja2, Nunjucks, Twig, FreeMarker, ERB, Velocity), the language underneath: reading files and secrets and running commands on the server.",
    solution:
      'Never build template source from input: keep templates fixed and pass user values as variables of the render context. Where users must author templates, use a logic-less or sandboxed engine with a strict allow-list, and run the rendering with least privilege.',
    cwe: 'CWE-1336',
    references: [
      'https://cwe.mitre.org/data/definitions/1336.html',
      'https://owasp.org/www-project-web-security-testing-guide/latest/4-Web_Application_Security_Testing/07-Input_Validation_Testing/18-Testing_for_Server-side_Template_Injection',
      'https://portswigger.net/research/server-side-template-injection',
    ],
    threat: 'Critical',
    cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    reason:
      'Reported only once evaluation is proven (two random products computed, not the bare arithmetic). Template evaluation is code execution in the engines this syntax belongs to (public escapes exist for each: Nunjucks and EJS reach the Function constructor, Jinja2 the Python runtime), by any client, without a victim: the full C/I/A impact on the server. Behind a login, PR:L gives 8.8.',
  }),
];
