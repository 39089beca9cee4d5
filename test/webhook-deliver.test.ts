/** One webhook delivery attempt against real HTTPS receivers on 127.0.0.1, and the signing scheme. */
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, test, type TestContext } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createAddressGuard } from '../src/shared/address-guard.js';
import { deliverOnce, MAX_RETRY_AFTER_SECONDS, parseRetryAfter, type DeliveryRequest } from '../src/webhooks/deliver.js';
import { generateSecret, signatureHeaders, signPayload } from '../src/webhooks/signing.js';
import { hasOpenssl, TestPki, type KeyPair } from './helpers/pki.js';

const loopback = createAddressGuard(['127.0.0.0/8']);
const toLoopback = async (host: string): Promise<string[]> => (host === 'localhost' ? ['127.0.0.1'] : []);

interface Seen {
  headers: http.IncomingHttpHeaders;
  body: string;
  path: string;
}

interface Receiver {
  port: number;
  url: string;
  /** TCP connections accepted. */
  connections: number;
  requests: Seen[];
  /** The SNI name each TLS client sent (false when none). */
  servernames: (string | false | null)[];
}

/** An HTTPS receiver on 127.0.0.1; `respond` answers after the body is read (or never). */
async function startReceiver(t: TestContext, pair: KeyPair, respond: (res: http.ServerResponse, seen: Seen) => void): Promise<Receiver> {
  const receiver: Receiver = { port: 0, url: '', connections: 0, requests: [], servernames: [] };
  const server = https.createServer({ key: pair.key, cert: pair.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const seen = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), path: req.url ?? '' };
      receiver.requests.push(seen);
      respond(res, seen);
    });
    res.on('error', () => undefined); // the client hangs up on purpose (4 KB limit, timeout)
  });
  server.on('connection', (socket) => {
    receiver.connections++;
    socket.on('error', () => undefined);
  });
  server.on('secureConnection', (socket) => receiver.servernames.push(socket.servername));
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `https://localhost:${receiver.port}/hook`;
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return receiver;
}

function request(url: string, overrides: Partial<DeliveryRequest> = {}): DeliveryRequest {
  return { url, body: '{"type":"ping"}', headers: {}, guard: loopback, timeoutMs: 5000, lookup: toLoopback, userAgent: 'Rampart-Test/1', ...overrides };
}

const ok = (res: http.ServerResponse): void => void res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');

describe('deliverOnce', { skip: hasOpenssl() ? false : 'needs the openssl CLI (Debian package openssl)' }, () => {
  let pki: TestPki;
  let leaf: KeyPair;
  before(() => {
    pki = new TestPki();
    leaf = pki.issue({ cn: 'localhost', san: 'DNS:localhost,IP:127.0.0.1' });
  });
  after(() => pki?.cleanup());

  test('delivers a signed POST that standardwebhooks verifies, to the checked address with the name in Host and SNI', async (t) => {
    const receiver = await startReceiver(t, leaf, ok);
    const secret = generateSecret();
    const body = JSON.stringify({ id: 'evt_1', type: 'scan.completed', data: { n: 'é' } });
    const headers = signatureHeaders(secret, 'msg_1', Math.floor(Date.now() / 1000), body);
    const result = await deliverOnce(request(receiver.url, { body, headers, ca: pki.ca.cert }));
    assert.deepEqual({ ...result, durationMs: 0 }, { status: 200, responseBody: 'thanks', durationMs: 0, error: null, retryAfterSeconds: null, address: '127.0.0.1' });
    const [seen] = receiver.requests;
    assert.ok(seen);
    assert.doesNotThrow(() => new Webhook(secret).verify(seen.body, seen.headers as Record<string, string>));
    assert.equal(seen.body, body);
    assert.equal(seen.path, '/hook');
    assert.equal(seen.headers.host, `localhost:${receiver.port}`);
    assert.equal(seen.headers['content-type'], 'application/json');
    assert.equal(seen.headers['user-agent'], 'Rampart-Test/1');
    assert.deepEqual(receiver.servernames, ['localhost']);
  });

  test('an IP-literal URL is checked against the IP in the certificate and sends no SNI', async (t) => {
    const receiver = await startReceiver(t, leaf, ok);
    const url = `https://127.0.0.1:${receiver.port}/hook?x=1`;
    const result = await deliverOnce(request(url, { ca: pki.ca.cert, lookup: () => assert.fail('no DNS for an IP literal') }));
    assert.equal(result.status, 200, result.error ?? '');
    assert.equal(receiver.requests[0]?.headers.host, `127.0.0.1:${receiver.port}`);
    assert.equal(receiver.requests[0]?.path, '/hook?x=1');
    assert.deepEqual(receiver.servernames, [false]);
  });

  test('a certificate from an unknown CA is a TLS error, not a response', async (t) => {
    const receiver = await startReceiver(t, leaf, ok);
    const result = await deliverOnce(request(receiver.url));
    assert.equal(result.status, null);
    assert.match(result.error ?? '', /^certificate not trusted: .*UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    assert.equal(receiver.requests.length, 0);
  });

  test('a certificate for another name is not trusted for this one', async (t) => {
    const other = pki.issue({ cn: 'other.example', san: 'DNS:other.example' });
    const receiver = await startReceiver(t, other, ok);
    const result = await deliverOnce(request(receiver.url, { ca: pki.ca.cert }));
    assert.equal(result.status, null);
    assert.match(result.error ?? '', /^certificate not trusted: it is not valid for localhost/);
    assert.equal(receiver.requests.length, 0);
  });

  test('an address the guard refuses is never connected to', async (t) => {
    const receiver = await startReceiver(t, leaf, ok);
    const result = await deliverOnce(request(receiver.url, { ca: pki.ca.cert, guard: createAddressGuard([]) }));
    assert.equal(result.status, null);
    assert.match(result.error ?? '', /resolves to 127\.0\.0\.1 \(loopback\), which this service is not allowed to contact/);
    assert.equal(receiver.connections, 0);
  });

  test('the name is resolved once per attempt: a rebinding answer is never connected to', async (t) => {
    const receiver = await startReceiver(t, leaf, ok);
    const answers = [['127.0.0.1'], ['10.0.0.1']];
    let calls = 0;
    const lookup = async (): Promise<string[]> => answers[calls++] ?? [];
    const first = await deliverOnce(request(receiver.url, { ca: pki.ca.cert, lookup }));
    assert.equal(first.status, 200, first.error ?? '');
    assert.equal(calls, 1);
    const second = await deliverOnce(request(receiver.url, { ca: pki.ca.cert, lookup }));
    assert.equal(calls, 2);
    assert.equal(second.status, null);
    assert.match(second.error ?? '', /resolves to 10\.0\.0\.1 \(private\)/);
    assert.equal(receiver.connections, 1);
  });

  test('addresses are tried in order until one connects', async (t) => {
    const receiver = await startReceiver(t, leaf, ok);
    const lookup = async (): Promise<string[]> => ['127.0.0.2', '127.0.0.1'];
    const result = await deliverOnce(request(receiver.url, { ca: pki.ca.cert, lookup }));
    assert.equal(result.status, 200, result.error ?? '');
    assert.equal(result.address, '127.0.0.1');
  });

  test('a redirect is recorded, not followed', async (t) => {
    const target = await startReceiver(t, leaf, ok);
    const receiver = await startReceiver(t, leaf, (res) => void res.writeHead(302, { location: target.url }).end());
    const result = await deliverOnce(request(receiver.url, { ca: pki.ca.cert }));
    assert.equal(result.status, 302);
    assert.equal(result.error, null);
    assert.equal(target.connections, 0);
  });

  test('Retry-After is read on 503 (seconds) and 429 (HTTP-date)', async (t) => {
    const in120s = new Date(Date.now() + 120_000).toUTCString();
    const unavailable = await startReceiver(t, leaf, (res) => void res.writeHead(503, { 'retry-after': '7' }).end('busy'));
    const limited = await startReceiver(t, leaf, (res) => void res.writeHead(429, { 'retry-after': in120s }).end());
    const failing = await startReceiver(t, leaf, (res) => void res.writeHead(500, { 'retry-after': '7' }).end());
    const a = await deliverOnce(request(unavailable.url, { ca: pki.ca.cert }));
    assert.deepEqual([a.status, a.retryAfterSeconds, a.responseBody], [503, 7, 'busy']);
    const b = await deliverOnce(request(limited.url, { ca: pki.ca.cert }));
    assert.equal(b.status, 429);
    assert.ok(b.retryAfterSeconds !== null && b.retryAfterSeconds >= 115 && b.retryAfterSeconds <= 120, String(b.retryAfterSeconds));
    const c = await deliverOnce(request(failing.url, { ca: pki.ca.cert }));
    assert.deepEqual([c.status, c.retryAfterSeconds], [500, null]);
  });

  test('a receiver that accepts and never answers times out within the limit', async (t) => {
    const receiver = await startReceiver(t, leaf, () => undefined);
    const result = await deliverOnce(request(receiver.url, { ca: pki.ca.cert, timeoutMs: 300 }));
    assert.equal(result.status, null);
    assert.equal(result.error, 'timed out after 300 ms');
    assert.ok(result.durationMs >= 250 && result.durationMs < 1500, String(result.durationMs));
    assert.equal(receiver.requests.length, 1);
  });

  test('a receiver that accepts TCP and never starts TLS times out too', async (t) => {
    // resume(): a paused socket never sees the client's FIN, so server.close() would never finish.
    const server = net.createServer((socket) => socket.on('error', () => undefined).resume());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.address() as AddressInfo).port;
    const result = await deliverOnce(request(`https://localhost:${port}/hook`, { ca: pki.ca.cert, timeoutMs: 300 }));
    assert.deepEqual([result.status, result.error, result.address], [null, 'timed out after 300 ms', '127.0.0.1']);
  });

  test('a 10 MB response is read only up to 4 KB', async (t) => {
    const huge = Buffer.alloc(10 * 1024 * 1024, 'a');
    const receiver = await startReceiver(t, leaf, (res) => void res.writeHead(200).end(huge));
    const result = await deliverOnce(request(receiver.url, { ca: pki.ca.cert, timeoutMs: 10_000 }));
    assert.equal(result.status, 200);
    assert.equal(result.error, null);
    assert.equal(result.responseBody, 'a'.repeat(4096));
  });

  test('http:// is refused without a lookup or a connection', async (t) => {
    let connections = 0;
    const server = http.createServer((_req, res) => res.end()).on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.address() as AddressInfo).port;
    const result = await deliverOnce(request(`http://localhost:${port}/hook`, { lookup: () => assert.fail('no lookup') }));
    assert.equal(result.status, null);
    assert.match(result.error ?? '', /^refused: webhooks are delivered over https:\/\/ only/);
    assert.equal(connections, 0);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  test('reads seconds and dates, caps at a day, rejects junk', () => {
    assert.equal(parseRetryAfter('0', now), 0);
    assert.equal(parseRetryAfter('Wed, 01 Jan 2025 00:01:00 GMT', now), 60);
    assert.equal(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('99999999', now), MAX_RETRY_AFTER_SECONDS);
    assert.equal(parseRetryAfter('Wednesday, 01-Jan-25 00:00:30 GMT', now), 30);
    assert.equal(parseRetryAfter('Wed Jan  1 00:00:45 2025', now), 45);
    assert.equal(parseRetryAfter('-5', now), null);
    assert.equal(parseRetryAfter('soon', now), null);
    assert.equal(parseRetryAfter(undefined, now), null);
  });
});

describe('signing', () => {
  test('matches the standardwebhooks reference for a fixed message', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    const timestamp = 1614265330;
    const expected = new Webhook(secret).sign('msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(timestamp * 1000), body);
    assert.equal(signPayload(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp, body), expected);
    assert.equal(expected, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  test('generated secrets are whsec_ and 24 random bytes, and unlike each other', () => {
    const secret = generateSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 24);
    assert.notEqual(secret, generateSecret());
  });

  test('rejects a malformed secret and fractional timestamps', () => {
    assert.throws(() => signPayload('whsec_not base64!', 'id', 1, ''), TypeError);
    assert.throws(() => signPayload(generateSecret(), 'id', 1.5, ''), TypeError);
  });
});
