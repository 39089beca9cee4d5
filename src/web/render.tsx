/**
 * Server-side rendering of the web application's pages: Preact components rendered to a string.
 * Preact escapes every text and attribute value, so no page builds HTML by concatenation.
 */
import type { FastifyReply } from 'fastify';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/** Sends a whole HTML document with the given status (200 unless said). */
export function sendPage(reply: FastifyReply, page: VNode, status = 200): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(`<!doctype html>${renderToString(page)}`);
}

