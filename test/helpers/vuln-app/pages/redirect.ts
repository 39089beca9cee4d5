import { page, param, type VulnPage } from '../app.js';

/** Whether `target` stays on the requesting origin (resolved as a browser would, backslashes included). */
function sameOrigin(target: string, origin: string): boolean {
  try {
    return new URL(target, origin).origin === origin;
  } catch {
    return false;
  }
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
    handle: (request, reply) => {
      const origin = `http://${request.headers.host ?? '127.0.0.1'}`;
      const next = param(request, 'next');
      return reply.redirect(sameOrigin(next, origin) ? next : '/', 302);
    },
  },
  {
    path: '/go/js',
    link: '/go/js?to=/',
    title: 'Redirect: script',
    expect: { ruleId: 'rampart:web-open-redirect', parameter: 'to' },
    handle: (request, reply) =>
      reply.type('text/html').send(page('Leaving', `<p>Taking you there...</p><script>window.location.href = ${JSON.stringify(param(request, 'to') || '/').replace(/</g, '\\u003c')};</script>`)),
  },
  {
    path: '/safe/go/js',
    link: '/safe/go/js?to=/',
    title: 'Safe: script',
    handle: (request, reply) => {
      const origin = `http://${request.headers.host ?? '127.0.0.1'}`;
      const to = param(request, 'to');
      return reply.type('text/html').send(page('Leaving', `<p>Taking you there...</p><script>window.location.href = ${JSON.stringify(sameOrigin(to, origin) ? to : '/').replace(/</g, '\\u003c')};</script>`));
    },
  },
];
