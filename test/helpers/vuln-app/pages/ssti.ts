import nunjucks from 'nunjucks';
import { page, param, type VulnPage } from '../app.js';

/** Autoescaping on, as a careful application would configure it: the flaw is building the template from input. */
const env = new nunjucks.Environment(null, { autoescape: true });

/** Renders with Nunjucks; a template error (the scanner's broken syntax) is a 500, as an application would answer. */
function render(template: string, context: object): { status: number; html: string } {
  try {
    return { status: 200, html: env.renderString(template, context) };
  } catch {
    return { status: 500, html: 'Template error.' };
  }
}

/**
 * Server-side template injection: the greeting's template is built from the input (Nunjucks, a
 * JavaScript engine: expressions run, and `range.constructor` reaches the Function constructor).
 * The twin passes the name as a variable of a fixed template.
 */
export const PAGES: VulnPage[] = [
  {
    path: '/hello',
    link: '/hello?name=visitor',
    title: 'SSTI: greeting',
    expect: { ruleId: 'rampart:web-ssti', parameter: 'name' },
    handle: (request, reply) => {
      const { status, html } = render(`Hello ${param(request, 'name')}!`, {});
      return reply.code(status).type('text/html').send(page('Greeting', `<p>${html}</p>`));
    },
  },
  {
    path: '/safe/hello',
    link: '/safe/hello?name=visitor',
    title: 'Safe: greeting',
    handle: (request, reply) => {
      const { status, html } = render('Hello {{ name }}!', { name: param(request, 'name') });
      return reply.code(status).type('text/html').send(page('Greeting', `<p>${html}</p>`));
    },
  },
];
