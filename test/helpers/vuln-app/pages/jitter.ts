/**
 * `/slow?id=1`: a page with no weakness whose latency jitters at random between 0 and 1.5 s on
 * every request, sleep-like payloads included (it never runs them): a timing check that fires
 * here mistook lag for a delay. The parameter is named like one an injection would use.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { escapeHtml, page, param, type VulnPage } from '../app.js';

/** The most a request waits, in milliseconds. */
export const MAX_JITTER_MS = 1500;

export const PAGES: VulnPage[] = [
  {
    path: '/slow',
    link: '/slow?id=1',
    title: 'Product details (slow)',
    async handle(request, reply) {
      await sleep(Math.random() * MAX_JITTER_MS);
      return reply.type('text/html').send(page('Product details', `<p>Product ${escapeHtml(param(request, 'id'))}: a sturdy umbrella.</p>`));
    },
  },
];
