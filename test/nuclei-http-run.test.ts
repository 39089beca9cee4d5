/**
 * The nuclei http executor's run-time rules against loopback servers: responses shared across
 * templates (and not within one), requests with unresolved variables not sent, the address guard,
 * a skipped host, `unsafe` blocks on the socket; plus the pure parts (raw requests, flow expressions, the
 * shared-response cache).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { describe, it } from 'node:test';
import { createAddressGuard } from '../src/shared/address-guard.js';
import { createEgress } from '../src/shared/egress.js';
import { HostSkippedError, type HostGate } from '../src/engines/nuclei/execute/contract.js';
import { runHttpTemplate } from '../src/engines/nuclei/execute/http-executor.js';
import { evaluateSimpleFlow } from '../src/engines/nuclei/execute/http-flow.js';
import { parseGoDuration, parseRawRequest } from '../src/engines/nuclei/execute/http-raw.js';
import { createSharedResponses } from '../src/engines/nuclei/execute/shared-responses.js';
import { isTemplateFailure, parseTemplate } from '../src/engines/nuclei/templates/parse-template.js';
import type { Template } from '../src/engines/nuclei/templates/template.types.js';
import { CORPUS, executionContext, loadTemplate, loopbackService, openGate, serve } from './helpers/nuclei-http.js';

const skip = existsSync(CORPUS) ? false : `shared nuclei templates not found at ${CORPUS} (set RAMPART_SHARED_DIR)`;

function inline(yaml: string): Template {
  const result = parseTemplate(yaml, 'inline.yaml');
  if (isTemplateFailure(result)) throw new Error(result.reason);
  return result;
}

describe('nuclei http executor: run-time rules', { skip }, () => {
  it('identical requests of two templates on one service are sent once (in flight or settled)', async (t) => {
    const [first, second] = await Promise.all([
      loadTemplate('http/technologies/jspxcms-detect.yaml'),
      loadTemplate('http/vulnerabilities/ransomware/deadbolt-ransomware.yaml'),
    ]);
    const server = await serve(t, () => ({ body: '<title>ALL YOUR FILES HAVE BEEN LOCKED BY DEADBOLT.</title>' }));
    const context = executionContext();
    const service = loopbackService(server.port);
    const [a, b] = await Promise.all([runHttpTemplate(first, service, context), runHttpTemplate(second, service, context)]);
    assert.equal(server.seen.length, 1);
    assert.deepEqual([a.requestsSent + b.requestsSent, a.requestsShared + b.requestsShared], [1, 1]);
    assert.equal(b.matches.length, 1);
    const again = await runHttpTemplate(first, service, context);
    assert.deepEqual([again.requestsSent, again.requestsShared, server.seen.length], [0, 1, 1]);
  });

  it('a request repeated within one template is sent again (state may have changed)', async (t) => {
    const template = inline(`id: twice
info: { name: twice, severity: info }
http:
  - method: GET
    path: ["{{BaseURL}}/count", "{{BaseURL}}/count"]
    matchers:
      - type: word
        words: ["second"]
`);
    const server = await serve(t, () => ({ body: server.seen.length === 2 ? 'second' : 'first' }));
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.equal(server.seen.length, 2);
    assert.equal(outcome.matches.length, 1);
  });

  it('a request with an unresolved variable is not sent; a note names it; -var fills it', async (t) => {
    const template = await loadTemplate('http/cves/2025/CVE-2025-54125.yaml');
    const server = await serve(t, () => ({ status: 404 }));
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext());
    assert.equal(server.seen.length, 0);
    assert.equal(outcome.requestsSent, 0);
    assert.deepEqual(outcome.notes, ['CVE-2025-54125: not sent: the variable {{username}} has no value (give it with -var or the scan\'s variables)']);

    const withVar = await runHttpTemplate(template, loopbackService(server.port), executionContext({ vars: { username: 'Admin' } }));
    assert.deepEqual(server.seen.map((r) => r.url), ['/bin/view/XWiki/Admin?xpage=xml', '/xwiki/bin/view/XWiki/Admin?xpage=xml']);
    assert.deepEqual(withVar.notes, []);
  });

  it('an address the guard refuses: nothing is sent, the note says why', async (t) => {
    const template = await loadTemplate('http/technologies/jspxcms-detect.yaml');
    const server = await serve(t, () => ({ body: 'Jspxcms' }));
    const gate = openGate();
    const egress = createEgress({ guard: createAddressGuard(['10.0.0.0/8']) });
    const outcome = await runHttpTemplate(template, loopbackService(server.port), executionContext({ egress, gate }));
    assert.equal(server.seen.length, 0);
    assert.equal(outcome.matches.length, 0);
    assert.match(outcome.notes[0] ?? '', /refused: 127\.0\.0\.1 is loopback/);
    assert.deepEqual([gate.answers, gate.errors], [0, 0]);
  });

  it('a closed port is a network error told to the gate; a skipped host stops the template quietly', async (t) => {
    const template = await loadTemplate('http/technologies/jspxcms-detect.yaml');
    const server = await serve(t, () => ({ body: 'Jspxcms' }));
    const gate = openGate();
    const closed = loopbackService(1);
    const outcome = await runHttpTemplate(template, closed, executionContext({ gate }));
    assert.deepEqual([gate.errors, outcome.matches.length, outcome.notes.length], [1, 0, 0]);

    const skipping: HostGate = { ...openGate(), run: () => Promise.reject(new HostSkippedError('127.0.0.1')), isSkipped: () => true };
    const skipped = await runHttpTemplate(template, loopbackService(server.port), executionContext({ gate: skipping }));
    assert.deepEqual([server.seen.length, skipped.matches.length, skipped.notes.length], [0, 0, 0]);
  });

  it('unsafe: the raw bytes go on the socket as written, the first response is read (dionaea, snare)', async (t) => {
    const received: string[] = [];
    const server = net.createServer((socket) => {
      socket.on('data', (chunk) => {
        received.push(chunk.toString('latin1'));
        const aiohttp = chunk.toString('latin1').startsWith('GET / HTTP/1337');
        const body = aiohttp ? `400, message="Bad status line 'Expected dot'"` : '<?xml version="1.0" encoding="ascii"?><error/>';
        // Chunked for one, read-to-close for the other: both framings are read.
        if (aiohttp) socket.end(`HTTP/1.1 400 Bad Request\r\nServer: Python/3.10 aiohttp/3.8.3\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`);
        else socket.end(`HTTP/1.1 501 Not Implemented\r\nServer: nginx\r\n\r\n${body}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.address() as net.AddressInfo).port;
    const dionaea = await runHttpTemplate(await loadTemplate('http/honeypot/dionaea-http-honeypot-detect.yaml'), loopbackService(port), executionContext());
    const snare = await runHttpTemplate(await loadTemplate('http/honeypot/snare-honeypot-detect.yaml'), loopbackService(port), executionContext());
    // As nuclei's rawhttp: the bytes as rendered (the YAML block ends with one line break), nothing added.
    assert.deepEqual(received, [`AAAA / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`, `GET / HTTP/1337\r\nHost: 127.0.0.1:${port}\r\n`]);
    assert.deepEqual([dionaea.matches.length, snare.matches.length, dionaea.requestsSent, dionaea.requestsShared], [1, 1, 1, 0]);
  });

  it('an aborted run throws', async (t) => {
    const template = await loadTemplate('http/technologies/jspxcms-detect.yaml');
    const server = await serve(t, () => ({ body: 'Jspxcms' }));
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(runHttpTemplate(template, loopbackService(server.port), executionContext({ signal: controller.signal })), /abort/);
    assert.equal(server.seen.length, 0);
  });
});

describe('raw requests', () => {
  it('reads annotations, the request line, headers (a later one wins) and the body; merges the path', () => {
    const raw = '@Host: https://other.test:8443\r\n@timeout: 1m30s\r\nPOST /login?x=1 HTTP/1.1\r\nHost: a\r\nX-A: 1\r\nX-A: 2\r\n\r\nuser=a\r\n';
    const parsed = parseRawRequest(raw, '/app', false);
    assert.deepEqual(parsed, {
      method: 'POST',
      target: '/app/login?x=1',
      headers: [['Host', 'a'], ['X-A', '2']],
      body: 'user=a',
      hostAnnotation: 'https://other.test:8443',
      timeoutMs: 90_000,
      once: false,
    });
    assert.equal(parseRawRequest('GET http://x.test/a/../b HTTP/1.1\r\n\r\n', '', false).target, '/a/../b');
    assert.equal(parseRawRequest('GET / HTTP/1.1\r\n\r\n', '/app', false).target, '/app');
    assert.equal(parseRawRequest('GET /x HTTP/1.1\r\n\r\n', '/app', true).target, '/x');
    assert.throws(() => parseRawRequest('GARBAGE\r\n\r\n', '', false), /malformed request line/);
    assert.deepEqual([parseGoDuration('500ms'), parseGoDuration('10s'), parseGoDuration('ten')], [500, 10_000, undefined]);
  });
});

describe('simple flow', () => {
  it('evaluates && before ||, left to right, calling only what the short-circuit reaches', async () => {
    const calls: string[] = [];
    const results: Record<string, boolean> = { '1': false, '2': true, '3': true };
    const call = async (protocol: string, index: number | undefined): Promise<boolean> => {
      calls.push(`${protocol}${index ?? ''}`);
      return results[String(index)] ?? false;
    };
    assert.equal(await evaluateSimpleFlow('http(1) && http(2) || http(3)', call), true);
    assert.deepEqual(calls, ['http1', 'http3']);
    calls.length = 0;
    assert.equal(await evaluateSimpleFlow('http(2) && (http(1) || http(3))', call), true);
    assert.deepEqual(calls, ['http2', 'http1', 'http3']);
    await assert.rejects(evaluateSimpleFlow('http(1) &&', call), /protocol call/);
  });
});

describe('shared responses', () => {
  it('shares values and failures by key, and evicts the least recently used past its bounds', async () => {
    const cache = createSharedResponses({ maxEntries: 2, maxBytes: 10, sizeOf: (v) => String(v).length });
    let produced = 0;
    const make = (value: string) => () => {
      produced++;
      return Promise.resolve(value);
    };
    assert.deepEqual(await cache.get('a', make('aa')), { value: 'aa', shared: false });
    assert.deepEqual(await cache.get('a', make('zz')), { value: 'aa', shared: true });
    await cache.get('b', make('bb'));
    await cache.get('a', make('zz'));
    await cache.get('c', make('cc')); // evicts b, the least recently used
    assert.deepEqual(await cache.get('b', make('b2')), { value: 'b2', shared: false });
    await cache.get('big', make('0123456789x')); // larger than maxBytes: not kept
    assert.equal((await cache.get('big', make('small'))).shared, false);
    assert.equal(produced, 6);

    const failing = () => Promise.reject(new Error('down'));
    await assert.rejects(cache.get('f', failing), /down/);
    await assert.rejects(cache.get('f', make('never')), /down/);
  });
});
