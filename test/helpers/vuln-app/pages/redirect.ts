import type { FastifyRequest } from 'fastify';
import { page, param, type VulnPage } from '../app.js';

/** The parameter when it stays on the requesting origin (resolved as a browser would, backslashes included), else `/`. */
function sameOriginTarget(request: FastifyRequest, name: string): string {
  const origin = `http://${request.headers.host ?? '127.0.0.1'}`;
  const target = param(request, name);
  try {
    return target && new URL(target, origin).origin === origin ? target : '/';
  } catch {
    return '/';
  }
}

/** A page whose script sends the browser to `target`. */
function scriptRedirect(target: string): string {
  return page('Leaving', `<p>Taking you there...</p><script>window.location.href = ${JSON.stringify(target).replace(/</g, '\\u003c')};</script>`);
}

/**
 * Open redirect: `/go` sends the browser wherever `next` says; `/go/js` does it in a script. The
 * twins accept only targets on the application's own origin.
 */
export const PAGES: VulnPage[] = [
  {
    path: '/go',
    link: '/go?next=/',
    title: 'Redirect: go',
    expect: { ruleId: 'rampart:web-open-redirect', parameter: 'next' },
    handle: (request, reply) => reply.redirect(param(request, 'next') || '/', 302),
  },
  {
    path: '/safe/go',
    link: '/safe/go?next=/',
    title: 'Safe: go',
    handle: (request, reply) => reply.redirect(sameOriginTarget(request, 'next'), 302),
  },
  {
    path: '/go/js',
    link: '/go/js?to=/',
    title: 'Redirect: script',
    expect: { ruleId: 'rampart:web-open-redirect', parameter: 'to' },
    handle: (request, reply) => reply.type('text/html').send(scriptRedirect(param(request, 'to') || '/')),
  },
  {
    path: '/safe/go/js',
    link: '/safe/go/js?to=/',
    title: 'Safe: script',
    handle: (request, reply) => reply.type('text/html').send(scriptRedirect(sameOriginTarget(request, 'to'))),
  },
];
