/**
 * `unsafe: true` raw requests against loopback socket servers that misbehave: a response head that
 * never ends, a chunk-size line that never ends (the bytes read are capped, the run goes on), and an
 * abort that lands while the connection is being set up (nothing is written).
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import type { Egress } from '../src/shared/egress.js';
import type { HostGate } from '../src/engines/nuclei/execute/contract.js';
import { runHttpTemplate } from '../src/engines/nuclei/execute/http-executor.js';
import { isTemplateFailure, parseTemplate } from '../src/engines/nuclei/templates/parse-template.js';
import type { Template } from '../src/engines/nuclei/templates/template.types.js';
import { LOOPBACK_EGRESS } from './helpers/egress.js';
import { executionContext, loopbackService } from './helpers/nuclei-http.js';

function unsafeTemplate(extra = ''): Template {
  const yaml = `id: unsafe-inline
info: { name: unsafe inline, severity: info }
http:
  - raw:
      - |+
        GET / HTTP/1.1
        Host: {{Hostname}}

    unsafe: true
${extra}    matchers:
      - type: word
        words: [hello]
`;
  const result = parseTemplate(yaml, 'inline.yaml');
  if (isTemplateFailure(result)) throw new Error(result.reason);
  return result;
}

/** A socket server: `onRequest` gets each connection's first bytes; `closed` settles when a connection closes. */
async function socketServer(t: TestContext, onRequest: (socket: net.Socket) => void): Promise<{ port: number; received: string[]; closed: Promise<void> }> {
  const received: string[] = [];
  let closedResolve!: () => void;
  const closed = new Promise<void>((resolve) => (closedResolve = resolve));
  const server = net.createServer((socket) => {
    let data = '';
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      if (data === '') onRequest(socket);
      data += chunk.toString('latin1');
    });
    socket.on('close', () => {
      received.push(data);
      closedResolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as net.AddressInfo).port, received, closed };
}

/** Writes `prefix`, then `filler` for as long as the peer reads. */
function endless(socket: net.Socket, prefix: string, filler: string): void {
  const block = Buffer.from(filler.repeat(Math.ceil(65_536 / filler.length)), 'latin1');
  const pump = (): void => {
    while (!socket.destroyed && socket.writable && socket.write(block));
  };
  socket.on('drain', pump);
  socket.write(prefix, 'latin1');
  pump();
}

/** A gate that keeps the network errors it is told. */
function recordingGate(): HostGate & { answers: number; messages: string[] } {
  const gate = {
    answers: 0,
    messages: [] as string[],
    run: <T>(_host: string, send: () => Promise<T>): Promise<T> => send(),
    answered: () => {
      gate.answers++;
    },
    networkError: (_host: string, error: unknown) => {
      gate.messages.push((error as Error).message);
    },
    isSkipped: () => false,
  };
  return gate;
}

describe('nuclei http executor: unsafe requests', () => {
  it('a response head that never ends is cut at the head cap: a network error, not a wait for the deadline', { timeout: 60_000 }, async (t) => {
    const server = await socketServer(t, (socket) => endless(socket, 'HTTP/1.1 200 OK\r\nX-Filler: ', 'a'));
    const gate = recordingGate();
    // A deadline far away: only the cap can end the read.
    const outcome = await runHttpTemplate(unsafeTemplate(), loopbackService(server.port), executionContext({ gate, timeoutMs: 600_000 }));
    assert.equal(outcome.matches.length, 0);
    assert.equal(gate.messages.length, 1);
    assert.match(gate.messages[0] ?? '', /response head is larger than 65536 bytes/);
  });

  it('a chunk-size line that never ends: the bytes read stop at the cap and the body read so far is matched', { timeout: 60_000 }, async (t) => {
    const server = await socketServer(t, (socket) =>
      endless(socket, 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n1;', 'x'),
    );
    const gate = recordingGate();
    const outcome = await runHttpTemplate(unsafeTemplate('    max-size: 1024\n'), loopbackService(server.port), executionContext({ gate, timeoutMs: 600_000 }));
    assert.deepEqual([outcome.matches.length, gate.messages, gate.answers], [1, [], 1]);
  });

  it('a chunked body arriving in pieces (split inside size lines and data) is put together, ended by its last chunk', { timeout: 60_000 }, async (t) => {
    const pieces = ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n', '\r\n3\r', '\nhel\r\n', '2;ext=1\r\nlo', '\r\n0', '\r\n\r\n'];
    const server = await socketServer(t, (socket) => {
      const next = (i: number): void => {
        if (i < pieces.length) socket.write(pieces[i]!, 'latin1', () => next(i + 1));
      };
      next(0);
    });
    const gate = recordingGate();
    // The server keeps the connection open: only the last chunk can end the read before this deadline.
    const outcome = await runHttpTemplate(unsafeTemplate(), loopbackService(server.port), executionContext({ gate, timeoutMs: 600_000 }));
    assert.deepEqual([outcome.matches.length, gate.messages], [1, []]);
  });

  it('an abort right after the connection opens: nothing is written, the run throws', async (t) => {
    const server = await socketServer(t, (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello'));
    const controller = new AbortController();
    const egress: Egress = {
      ...LOOPBACK_EGRESS,
      connect: async (options) => {
        const socket = await LOOPBACK_EGRESS.connect(options);
        // The abort lands after the egress handed the socket over, before the request is written.
        controller.abort();
        return socket;
      },
    };
    await assert.rejects(runHttpTemplate(unsafeTemplate(), loopbackService(server.port), executionContext({ egress, signal: controller.signal })), /abort/);
    await server.closed;
    assert.deepEqual(server.received, ['']);
  });
});
