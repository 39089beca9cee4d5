import { escapeHtml, page, param, type VulnPage } from '../app.js';

/**
 * CRLF injection: the language page sets a cookie from the decoded input. Node refuses CR and LF
 * in headers, so the vulnerable page writes its response on the socket itself, as a server
 * without that guard would (latin1, so U+560A ends up as a bare LF byte as in old servers). The
 * twin percent-encodes the value through Fastify's own header handling.
 */
export const PAGES: VulnPage[] = [
  {
    path: '/lang',
    link: '/lang?l=en',
    title: 'CRLF: language',
    expect: { ruleId: 'rampart:web-crlf-injection', parameter: 'l' },
    handle: (request, reply) => {
      const language = param(request, 'l');
      const body = page('Language', `<p>Language set to ${escapeHtml(language)}.</p>`);
      const head = [
        'HTTP/1.1 200 OK',
        'Content-Type: text/html; charset=utf-8',
        `Set-Cookie: lang=${language}; Path=/; HttpOnly; SameSite=Lax`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
      ];
      reply.hijack();
      const socket = request.raw.socket;
      socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), Buffer.from(body)]));
    },
  },
  {
    path: '/safe/lang',
    link: '/safe/lang?l=en',
    title: 'Safe: language',
    handle: (request, reply) => {
      const language = param(request, 'l');
      return reply
        .header('set-cookie', `lang=${encodeURIComponent(language)}; Path=/; HttpOnly; SameSite=Lax`)
        .type('text/html')
        .send(page('Language', `<p>Language set to ${escapeHtml(language)}.</p>`));
    },
  },
];
