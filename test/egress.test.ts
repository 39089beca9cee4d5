/**
 * The egress guard (src/shared/egress.ts, egress-fetch.ts, egress-proxy.ts) and the Rampart
 * engine's FTP data connection through it. The guard allows 127.0.0.1 only, so 127.0.0.2 (also
 * loopback, also reachable on Linux) is a really refused address: a listener there proves that
 * nothing connected to it. Names come from a lookup seam; nothing leaves 127.0.0.0/8.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type TestContext } from 'node:test';
import tls from 'node:tls';
import { createAddressGuard } from '../src/shared/address-guard.js';
import { createEgress, EgressError, type Egress } from '../src/shared/egress.js';
import { startEgressProxy } from '../src/shared/egress-proxy.js';
import { ftpAnonymousCheck } from '../src/engines/rampart/checks/unauth-ftp.js';
import { loopbackEndpoint, onLines, serviceInfo, startScriptedServer } from './helpers/daemons.js';
import { closedPort } from './helpers/servers.js';

const guard = createAddressGuard(['127.0.0.1/32']);
const NAMES: Record<string, string[]> = {
  'allowed.test': ['127.0.0.1'],
  'refused.test': ['127.0.0.2'],
  // The refused address first: it must be skipped, not tried.
  'mixed.test': ['127.0.0.2', '127.0.0.1'],
};

function egressFor(lookup: (name: string) => Promise<string[]> = async (name) => NAMES[name] ?? []): Egress {
  return createEgress({ guard, lookup, connectTimeoutMs: 5000 });
}

/** A TCP listener on `host` (and `port`, else ephemeral) that counts connections. */
async function listener(t: TestContext, host: string, port = 0, onSocket?: (socket: net.Socket) => void): Promise<{ port: number; readonly connections: number }> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => undefined).on('close', () => sockets.delete(socket));
    onSocket?.(socket);
  });
  server.listen(port, host);
  await once(server, 'listening');
  t.after(() => new Promise<void>((resolve) => (sockets.forEach((s) => s.destroy()), server.close(() => resolve()))));
  return {
    port: (server.address() as net.AddressInfo).port,
    get connections() {
      return connections;
    },
  };
}

/** An HTTP server on 127.0.0.1. */
async function httpServer(t: TestContext, handler: http.RequestListener): Promise<number> {
  const server = http.createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return (server.address() as net.AddressInfo).port;
}

function makeCertificate(): { key: string; cert: string } | null {
  const dir = mkdtempSync(path.join(tmpdir(), 'rampart-egress-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost', '-days', '2', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { key: readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  } catch {
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const certificate = makeCertificate();
const noOpenssl = certificate === null ? 'the openssl CLI is missing (Debian package `openssl`)' : false;

/** A TLS echo server on 127.0.0.1 with the throw-away certificate for `localhost`. */
async function tlsEchoServer(t: TestContext): Promise<number> {
  const server = tls.createServer({ ...certificate! }, (socket) => socket.on('error', () => undefined).pipe(socket));
  server.on('tlsClientError', () => undefined);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

async function rejectsWith(promise: Promise<unknown>, code: string, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof EgressError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    return true;
  });
}

test('a redirect from an allowed server to a refused address (literal or name) is not followed, and nothing connects there', async (t) => {
  const trap = await listener(t, '127.0.0.2');
  const port = await httpServer(t, (request, response) => {
    const locations: Record<string, string> = {
      '/literal': `http://127.0.0.2:${trap.port}/`,
      '/to-name': `http://refused.test:${trap.port}/`,
      '/ok': '/final',
    };
    const location = locations[request.url ?? ''];
    if (location) response.writeHead(302, { location }).end();
    else if (request.url === '/big') response.end(Buffer.alloc(64 * 1024, 'x'));
    else response.end('final');
  });
  const egress = egressFor();
  await rejectsWith(egress.fetch(`http://127.0.0.1:${port}/literal`), 'refused', /refused: 127\.0\.0\.2 is loopback;.*RAMPART_ALLOW_TARGETS/);
  await rejectsWith(egress.fetch(`http://allowed.test:${port}/to-name`), 'refused', /127\.0\.0\.2 is loopback \(host "refused\.test"\)/);
  assert.equal(trap.connections, 0);
  // The same server's redirect within the allowed address is followed (and the hops listed).
  const redirected = await egress.fetch(`http://127.0.0.1:${port}/ok`, { maxRedirects: 1 });
  assert.equal(redirected.status, 200);
  assert.equal(redirected.body.toString(), 'final');
  assert.deepEqual(redirected.redirects, [`http://127.0.0.1:${port}/final`]);
  await rejectsWith(egress.fetch(`http://127.0.0.1:${port}/ok`, { maxRedirects: 0 }), 'too-many-redirects', /more than 0 redirects/);
  // Bodies are cut at the cap, and only http(s) is fetched.
  const big = await egress.fetch(`http://127.0.0.1:${port}/big`, { maxBodyBytes: 1000 });
  assert.deepEqual([big.body.length, big.truncated], [1000, true]);
  await rejectsWith(egress.fetch('file:///etc/passwd'), 'bad-url', /Only http and https/);
});

test('a name with an allowed and a refused address connects to the allowed one only; a rebinding answer never reaches the refused one', async (t) => {
  const allowed = await listener(t, '127.0.0.1');
  const trap = await listener(t, '127.0.0.2', allowed.port);
  const mixed = await egressFor().connect({ host: 'mixed.test', port: allowed.port });
  assert.equal(mixed.remoteAddress, '127.0.0.1');
  mixed.destroy();
  assert.deepEqual(await egressFor().resolve('mixed.test'), ['127.0.0.1']);
  await rejectsWith(egressFor().resolve('refused.test'), 'refused', /127\.0\.0\.2 is loopback \(host "refused\.test"\)/);
  // For a tool that connects by itself, one refused address refuses the name, and is named.
  await rejectsWith(egressFor().resolveEvery('mixed.test'), 'refused', /^refused: 127\.0\.0\.2 is loopback \(host "mixed\.test"\)/);
  assert.deepEqual(await egressFor().resolveEvery('allowed.test'), ['127.0.0.1']);

  // The first answer is allowed, every later one names the refused address: each connection
  // resolves once and connects to what it checked, so the later answers are refused, never used.
  let lookups = 0;
  const rebinding = egressFor(async () => (++lookups === 1 ? ['127.0.0.1'] : ['127.0.0.2']));
  const first = await rebinding.connect({ host: 'rebind.test', port: allowed.port });
  assert.equal(first.remoteAddress, '127.0.0.1');
  first.destroy();
  assert.equal(lookups, 1);
  await rejectsWith(rebinding.connect({ host: 'rebind.test', port: allowed.port }), 'refused', /127\.0\.0\.2 is loopback/);
  assert.throws(() => rebinding.openSocket('127.0.0.2', allowed.port), /refused: 127\.0\.0\.2 is loopback/);
  assert.throws(() => rebinding.openDatagram('127.0.0.2', allowed.port), /refused: 127\.0\.0\.2 is loopback/);
  assert.equal(trap.connections, 0);
  assert.equal(allowed.connections, 2);
});

test('https through the egress keeps the name for SNI and the certificate check', { skip: noOpenssl }, async (t) => {
  const port = await tlsEchoServer(t);
  const egress = egressFor(async (name) => (name === 'localhost' || name === 'other.test' ? ['127.0.0.1'] : []));
  const socket = await egress.connectTls({ host: 'localhost', port, tls: { ca: certificate!.cert } });
  assert.equal(socket.authorized, true);
  assert.equal(socket.remoteAddress, '127.0.0.1');
  socket.destroy();
  await rejectsWith(egress.connectTls({ host: 'other.test', port, tls: { ca: certificate!.cert } }), 'tls', /other\.test/);
});

test('the proxy: CONNECT to an allowed TLS server works, to a refused address 403 with nothing connected, absolute-form HTTP works, close() leaves no socket', { skip: noOpenssl }, async (t) => {
  const tlsPort = await tlsEchoServer(t);
  const trap = await listener(t, '127.0.0.2');
  const webPort = await httpServer(t, (request, response) => response.end(`hello ${request.url} via ${request.headers.host}`));
  const held: net.Socket[] = [];
  const upstream = await listener(t, '127.0.0.1', 0, (socket) => held.push(socket));
  const proxy = await startEgressProxy({ egress: egressFor() });
  t.after(() => proxy.close());
  assert.match(proxy.url, /^http:\/\/127\.0\.0\.1:\d+$/);

  const connect = (authority: string) =>
    new Promise<{ status: number; socket: net.Socket; body: string }>((resolve, reject) => {
      const request = http.request({ host: '127.0.0.1', port: proxy.port, method: 'CONNECT', path: authority });
      request.on('connect', (response, socket, head) => {
        const status = response.statusCode ?? 0;
        if (status === 200) return resolve({ status, socket, body: '' });
        // A refusal arrives as a CONNECT response too; its body follows on the socket.
        let body = head.toString();
        socket.on('data', (chunk: Buffer) => (body += chunk.toString()));
        socket.on('close', () => resolve({ status, socket, body }));
      });
      request.on('response', (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, socket: response.socket, body }));
      });
      request.on('error', reject);
      request.end();
    });

  const tunnel = await connect(`127.0.0.1:${tlsPort}`);
  assert.equal(tunnel.status, 200);
  const secure = tls.connect({ socket: tunnel.socket, servername: 'localhost', ca: certificate!.cert });
  await once(secure, 'secureConnect');
  assert.equal(secure.authorized, true);
  secure.write('ping');
  const [echo] = (await once(secure, 'data')) as [Buffer];
  assert.equal(echo.toString(), 'ping');
  secure.destroy();

  const refused = await connect(`127.0.0.2:${trap.port}`);
  assert.equal(refused.status, 403);
  assert.match(refused.body, /refused: 127\.0\.0\.2 is loopback/);
  assert.equal(trap.connections, 0);
  const unreachable = await connect(`127.0.0.1:${await closedPort()}`);
  assert.equal(unreachable.status, 502);
  assert.match(unreachable.body, /ECONNREFUSED/);

  const plain = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port: proxy.port, path: `http://127.0.0.1:${webPort}/page?q=1` }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
  });
  assert.deepEqual(plain, { status: 200, body: `hello /page?q=1 via 127.0.0.1:${webPort}` });

  // A tunnel left open is cut by close(), on both sides.
  const open = await connect(`127.0.0.1:${upstream.port}`);
  assert.equal(open.status, 200);
  const clientClosed = once(open.socket, 'close');
  while (held.length === 0) await new Promise((resolve) => setImmediate(resolve));
  const upstreamClosed = once(held[0]!, 'close');
  await proxy.close();
  await Promise.all([clientClosed, upstreamClosed]);
  await assert.rejects(connect(`127.0.0.1:${upstream.port}`), /ECONNREFUSED/);
});

test('FTP: a PASV reply naming a refused address (127.0.0.2) is never connected to', async (t) => {
  // The data port on the server's own address, where the check goes instead, and a trap on the
  // same port of the address the PASV reply names.
  const data = await listener(t, '127.0.0.1');
  const trap = await listener(t, '127.0.0.2', data.port);
  const pasvTo = (address: string, port: number) => `227 Entering Passive Mode (${address.replaceAll('.', ',')},${port >> 8},${port & 255})\r\n`;
  let pasvReplies = 0;
  const server = await startScriptedServer(t, (socket) => {
    socket.write('220 Fake FTP\r\n');
    onLines(socket, (line) => {
      const [command] = line.split(' ');
      const replies: Record<string, () => string> = {
        USER: () => '331 Password please\r\n',
        PASS: () => '230 Logged in\r\n',
        TYPE: () => '200 Binary\r\n',
        PWD: () => '257 "/"\r\n',
        CWD: () => '550 No such directory\r\n',
        EPSV: () => '500 Not understood\r\n',
        PASV: () => (pasvReplies++, pasvTo('127.0.0.2', data.port)),
        LIST: () => '550 No listing\r\n',
        QUIT: () => '221 Bye\r\n',
      };
      socket.write(replies[command ?? '']?.() ?? '502 Not implemented\r\n');
    });
  });
  const endpoint = { ...loopbackEndpoint(server.port), egress: egressFor() };
  const findings = await ftpAnonymousCheck.run(endpoint, serviceInfo('ftp'));
  assert.deepEqual(findings.map((f) => f.ruleId), ['rampart:ftp-anonymous']);
  assert.equal(pasvReplies, 1);
  assert.equal(trap.connections, 0);
  // The named address was ignored: the data connection went to the server's own (checked) address.
  assert.equal(data.connections, 1);
});
