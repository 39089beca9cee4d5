/**
 * Service detection (`src/engines/rampart/services/`) against real servers: the PostgreSQL,
 * MariaDB and Redis this machine runs on loopback, Node HTTP(S) servers, and fake servers that
 * replay real protocol bytes (sources in `fixtures/services/greetings.ts`). Each test gets the
 * banner the way the engine does (`probeTcpPort`, then `escapeBanner`) and calls `detectService`.
 * Nothing here contacts anything but 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { EngineLimits } from '../src/engines/engine.js';
import { escapeBanner } from '../src/engines/rampart/banner.js';
import type { Endpoint, ServiceInfo } from '../src/engines/rampart/checks/check.js';
import { connectTcp, probeTcpPort } from '../src/engines/rampart/port-scan.js';
import { cpeFor } from '../src/engines/rampart/services/cpe.js';
import { detectService } from '../src/engines/rampart/services/detect.js';
import * as fixtures from './fixtures/services/greetings.js';
import { answerMongo } from './fixtures/services/mongodb.js';
import { startSnmpdSmux } from './helpers/daemons.js';
import { LOOPBACK_EGRESS } from './helpers/egress.js';

// ---------------------------------------------------------------------------------------------
// Helpers

const LIMITS: EngineLimits = { connectTimeoutMs: 2_000, readTimeoutMs: 2_000, maxConcurrency: 1, ratePerSecond: 0 };

function endpointFor(port: number, options: { hostname?: string; readTimeoutMs?: number; signal?: AbortSignal } = {}): Endpoint {
  return {
    hostname: options.hostname ?? '127.0.0.1',
    address: '127.0.0.1',
    port,
    limits: { ...LIMITS, readTimeoutMs: options.readTimeoutMs ?? LIMITS.readTimeoutMs },
    signal: options.signal ?? new AbortController().signal,
    egress: LOOPBACK_EGRESS,
  };
}

/** The engine's own sequence: passive banner grab, then detection. */
async function detectOn(port: number, options: Parameters<typeof endpointFor>[1] = {}): Promise<ServiceInfo> {
  const endpoint = endpointFor(port, options);
  // The banner grab waits for a first line; a short read keeps silent servers quick to test.
  const probe = await probeTcpPort(LOOPBACK_EGRESS, endpoint.address, port, { ...endpoint.limits, readTimeoutMs: 300, signal: endpoint.signal });
  assert.equal(probe?.state, 'open', `port ${port} should be open`);
  const banner = probe?.state === 'open' && probe.banner.length > 0 ? escapeBanner(probe.banner) : null;
  return detectService(endpoint, banner);
}

interface FakeServer {
  port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Every line (or raw chunk) the clients sent, in order. */
  readonly received: string[];
  /** Resolves once every accepted connection has closed (so everything sent has been read). */
  allClosed(): Promise<void>;
}

/**
 * A loopback server scripted per connection: `greeting` is written on accept; `answer` is called
 * for every line the client sends (or, when `raw`, for every chunk) and may reply.
 */
async function startFake(
  t: TestContext,
  script: {
    greeting?: string | Buffer;
    answer?: (input: Buffer, socket: net.Socket) => string | Buffer | null | undefined;
    raw?: boolean;
    onConnection?: (count: number) => void;
  },
): Promise<FakeServer> {
  const sockets = new Set<net.Socket>();
  const state = { connections: 0, received: [] as string[] };
  let closedWaiters: (() => void)[] = [];
  const server = net.createServer((socket) => {
    state.connections += 1;
    sockets.add(socket);
    socket.on('error', () => undefined).on('close', () => {
      sockets.delete(socket);
      if (sockets.size > 0) return;
      for (const resolve of closedWaiters) resolve();
      closedWaiters = [];
    });
    script.onConnection?.(state.connections);
    if (script.greeting !== undefined) socket.write(script.greeting);
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      const inputs: Buffer[] = [];
      if (script.raw) inputs.push(chunk);
      else {
        pending = Buffer.concat([pending, chunk]);
        for (let end = pending.indexOf(0x0a); end >= 0; end = pending.indexOf(0x0a)) {
          inputs.push(pending.subarray(0, end + 1));
          pending = pending.subarray(end + 1);
        }
      }
      for (const input of inputs) {
        state.received.push(input.toString('latin1').trimEnd());
        const reply = script.answer?.(input, socket);
        if (reply !== null && reply !== undefined && !socket.destroyed) socket.write(reply);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(async () => {
    for (const socket of sockets) socket.destroy();
    server.close();
    await once(server, 'close');
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    get connections() {
      return state.connections;
    },
    received: state.received,
    allClosed: () => (sockets.size === 0 ? Promise.resolve() : new Promise((resolve) => closedWaiters.push(resolve))),
  };
}

async function listenHttp(t: TestContext, server: http.Server | https.Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });
  return (server.address() as net.AddressInfo).port;
}

/** Skips the test with a clear message when nothing listens on a machine service's port. */
async function skipUnlessListening(t: TestContext, port: number, what: string): Promise<boolean> {
  const outcome = await connectTcp(LOOPBACK_EGRESS, '127.0.0.1', port, 1_000, new AbortController().signal);
  if (outcome.state === 'connected') {
    outcome.socket.destroy();
    return true;
  }
  t.skip(`${what} is not listening on 127.0.0.1:${port}`);
  return false;
}

// ---------------------------------------------------------------------------------------------
// Real services on this machine

test('PostgreSQL on 127.0.0.1:5432 is told by its SSLRequest and startup answers', async (t) => {
  if (!(await skipUnlessListening(t, 5432, 'PostgreSQL'))) return;
  const info = await detectOn(5432);
  assert.equal(info.name, 'postgresql');
  assert.equal(info.product, 'PostgreSQL');
  assert.equal(info.banner, null);
  assert.match(info.details.ssl ?? '', /^(yes|no)$/);
  // The server answered our StartupMessage with an authentication request or an error.
  assert.ok(info.details.auth_method !== undefined || info.details.error_code !== undefined, JSON.stringify(info.details));
});

test('MariaDB on 127.0.0.1:3306 is told by its handshake, with a normalised version and CPE', async (t) => {
  if (!(await skipUnlessListening(t, 3306, 'MariaDB'))) return;
  const info = await detectOn(3306);
  assert.equal(info.name, 'mysql');
  assert.equal(info.product, 'MariaDB');
  assert.match(info.version ?? '', /^\d+\.\d+\.\d+$/);
  assert.equal(info.cpe, `cpe:2.3:a:mariadb:mariadb:${info.version}:*:*:*:*:*:*:*`);
  assert.match(info.details.server_version ?? '', /MariaDB/);
});

test("SMUX (Net-SNMP's smuxsocket) is told by the ClosePDU it answers the HTTP probe with", async (t) => {
  const snmpd = await startSnmpdSmux(t);
  if (!snmpd) return;
  const info = await detectOn(snmpd.port);
  assert.equal(info.name, 'smux');
  assert.equal(info.tls, false);
  // Net-SNMP's reason depends on how the request broke its parser.
  assert.match(info.details.close_reason ?? '', /^(packetFormat|protocolError)$/);
});

test('Redis on 127.0.0.1:6379 answers PING and INFO server', async (t) => {
  if (!(await skipUnlessListening(t, 6379, 'Redis'))) return;
  const info = await detectOn(6379);
  assert.equal(info.name, 'redis');
  assert.equal(info.product, 'Redis');
  assert.match(info.details.auth ?? '', /^(none|required)$/);
  if (info.details.auth === 'none') {
    assert.match(info.version ?? '', /^\d+\.\d+\.\d+$/);
    assert.equal(info.cpe, `cpe:2.3:a:redis:redis:${info.version}:*:*:*:*:*:*:*`);
  }
});

// ---------------------------------------------------------------------------------------------
// HTTP and TLS

test('an HTTP server: product and version from Server, PHP from X-Powered-By', async (t) => {
  let host: string | undefined;
  const port = await listenHttp(
    t,
    http.createServer((request, response) => {
      host = request.headers.host;
      response.writeHead(200, { Server: 'nginx/1.24.0', 'X-Powered-By': 'PHP/8.1.2', 'Content-Type': 'text/html' });
      response.end('<html><body>hello</body></html>');
    }),
  );
  const info = await detectOn(port, { hostname: 'localhost' });
  assert.equal(info.name, 'http');
  assert.equal(info.tls, false);
  assert.equal(info.product, 'nginx');
  assert.equal(info.version, '1.24.0');
  assert.equal(info.cpe, 'cpe:2.3:a:f5:nginx:1.24.0:*:*:*:*:*:*:*');
  assert.equal(info.details.server, 'nginx/1.24.0');
  assert.equal(info.details.php_version, '8.1.2');
  assert.equal(info.details.php_cpe, 'cpe:2.3:a:php:php:8.1.2:*:*:*:*:*:*:*');
  assert.equal(host, `localhost:${port}`);
});

test('an HTTPS server is http with tls true, SNI set to the host name', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1', '-keyout', key, '-out', cert], {
      stdio: 'ignore',
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return t.skip('the openssl CLI is missing (Debian package openssl)');
    throw error;
  }
  const servernames: unknown[] = [];
  const server = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_request, response) => {
    response.writeHead(200, { Server: 'Apache/2.4.57 (Debian)' });
    response.end('ok');
  });
  server.on('secureConnection', (socket: import('node:tls').TLSSocket) => servernames.push(socket.servername));
  const port = await listenHttp(t, server);
  const info = await detectOn(port, { hostname: 'localhost' });
  assert.equal(info.name, 'http');
  assert.equal(info.tls, true);
  assert.equal(info.product, 'Apache httpd');
  assert.equal(info.version, '2.4.57');
  assert.equal(info.cpe, 'cpe:2.3:a:apache:http_server:2.4.57:*:*:*:*:*:*:*');
  assert.match(info.details.tls_version ?? '', /^TLSv1\.[23]$/);
  assert.deepEqual(servernames, ['localhost']);
});

test('Elasticsearch: the root document names product, version and open access', async (t) => {
  const port = await listenHttp(
    t,
    http.createServer((_request, response) => {
      response.writeHead(200, { 'X-elastic-product': 'Elasticsearch', 'content-type': 'application/json' });
      response.end(JSON.stringify(fixtures.ELASTICSEARCH_ROOT, null, 2));
    }),
  );
  const info = await detectOn(port);
  assert.equal(info.name, 'elasticsearch');
  assert.equal(info.product, 'Elasticsearch');
  assert.equal(info.version, '8.12.2');
  assert.equal(info.cpe, 'cpe:2.3:a:elastic:elasticsearch:8.12.2:*:*:*:*:*:*:*');
  assert.equal(info.details.auth, 'none');
  assert.equal(info.details.cluster_name, 'elasticsearch');
});

// ---------------------------------------------------------------------------------------------
// Greetings

test('SSH: OpenSSH identification string, p1 in the CPE update field', async (t) => {
  const fake = await startFake(t, { greeting: fixtures.OPENSSH_GREETING });
  const info = await detectOn(fake.port);
  assert.equal(info.name, 'ssh');
  assert.equal(info.product, 'OpenSSH');
  assert.equal(info.version, '9.2p1');
  assert.equal(info.cpe, 'cpe:2.3:a:openbsd:openssh:9.2:p1:*:*:*:*:*:*');
  assert.equal(info.details.comment, 'Debian-2+deb12u10');
  assert.equal(info.banner, 'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10\\r\\n');
});

test('FTP: vsftpd greeting and FEAT list, no AUTH TLS', async (t) => {
  const fake = await startFake(t, {
    greeting: fixtures.VSFTPD.greeting,
    answer: (line) => (/^FEAT/.test(line.toString()) ? fixtures.VSFTPD.feat : /^QUIT/.test(line.toString()) ? fixtures.VSFTPD.quit : fixtures.VSFTPD.beforeLogin),
  });
  const info = await detectOn(fake.port);
  assert.equal(info.name, 'ftp');
  assert.equal(info.product, 'vsftpd');
  assert.equal(info.version, '3.0.3');
  assert.equal(info.cpe, 'cpe:2.3:a:beasts:vsftpd:3.0.3:*:*:*:*:*:*:*');
  assert.equal(info.details.starttls, 'no');
  assert.match(info.details.features ?? '', /EPSV/);
  await fake.allClosed();
  assert.deepEqual(fake.received, ['FEAT', 'QUIT'], 'one question, then goodbye: no login attempted');
});

const smtpAnswer = (server: { ehlo: string }) => (line: Buffer) =>
  /^EHLO /.test(line.toString()) ? server.ehlo : /^QUIT/.test(line.toString()) ? fixtures.POSTFIX.quit : fixtures.POSTFIX.unknownCommand;

test('SMTP: Postfix answers EHLO with STARTTLS', async (t) => {
  const fake = await startFake(t, { greeting: fixtures.POSTFIX.greeting, answer: smtpAnswer(fixtures.POSTFIX) });
  const info = await detectOn(fake.port);
  assert.equal(info.name, 'smtp');
  assert.equal(info.product, 'Postfix');
  assert.equal(info.details.starttls, 'yes');
  assert.equal(info.details.auth_mechanisms, 'PLAIN LOGIN');
  await fake.allClosed();
  assert.deepEqual(fake.received, ['EHLO rampart.invalid', 'QUIT']);
});

test('SMTP: Exim names its version, STARTTLS offered', async (t) => {
  const fake = await startFake(t, { greeting: fixtures.EXIM.greeting, answer: smtpAnswer(fixtures.EXIM) });
  const info = await detectOn(fake.port);
  assert.equal(info.name, 'smtp');
  assert.equal(info.product, 'Exim');
  assert.equal(info.version, '4.91');
  assert.equal(info.cpe, 'cpe:2.3:a:exim:exim:4.91:*:*:*:*:*:*:*');
  assert.equal(info.details.starttls, 'yes');
});

test('a bare 220 greeting: the answer to EHLO, not the wording, makes it FTP', async (t) => {
  // vsftpd with `ftpd_banner` set to a neutral text: the greeting no longer says FTP.
  const fake = await startFake(t, {
    greeting: '220 Welcome.\r\n',
    answer: (line) => (/^FEAT/.test(line.toString()) ? fixtures.VSFTPD.feat : fixtures.VSFTPD.beforeLogin),
  });
  const info = await detectOn(fake.port);
  assert.equal(info.name, 'ftp');
  assert.deepEqual(fake.received.slice(0, 2), ['EHLO rampart.invalid', 'FEAT']);
});

test('POP3: Dovecot greeting and CAPA with STLS', async (t) => {
  const fake = await startFake(t, {
    greeting: fixtures.DOVECOT_POP3.greeting,
    answer: (line) => (/^CAPA/.test(line.toString()) ? fixtures.DOVECOT_POP3.capa : '+OK Logging out\r\n'),
  });
  const info = await detectOn(fake.port);
  assert.equal(info.name, 'pop3');
  assert.equal(info.product, 'Dovecot');
  assert.equal(info.details.starttls, 'yes');
  assert.match(info.details.capabilities ?? '', /SASL PLAIN/);
});

test('IMAP: Dovecot greeting lists its capabilities, STARTTLS among them', async (t) => {
  const fake = await startFake(t, { greeting: fixtures.DOVECOT_IMAP_GREETING, answer: () => '* BYE Logging out\r\nr2 OK Logout completed.\r\n' });
  const info = await detectOn(fake.port);
  assert.equal(info.name, 'imap');
  assert.equal(info.product, 'Dovecot');
  assert.equal(info.details.starttls, 'yes');
  await fake.allClosed();
  assert.deepEqual(fake.received, ['r2 LOGOUT'], 'the greeting already listed the capabilities');
});

test('Telnet: IAC option negotiation', async (t) => {
  const fake = await startFake(t, { greeting: fixtures.TELNETD_NEGOTIATION });
  const info = await detectOn(fake.port);
  assert.equal(info.name, 'telnet');
  assert.equal(info.details.negotiation, 'DO 24, DO 32, DO 35, DO 39');
  assert.equal(info.banner, '\\xff\\xfd\\x18\\xff\\xfd \\xff\\xfd#\\xff\\xfd\'');
});

test('rsync daemon: @RSYNCD greeting with its protocol version', async (t) => {
  const fake = await startFake(t, { greeting: fixtures.RSYNCD_GREETING });
  const info = await detectOn(fake.port);
  assert.equal(info.name, 'rsync');
  assert.equal(info.details.protocol, '32.0');
  assert.equal(info.version, null, 'a protocol version is not a release');
});

// ---------------------------------------------------------------------------------------------
// Silent services

test('memcached answers `version` after the earlier probes drew only ERROR', async (t) => {
  const fake = await startFake(t, { answer: (line) => (line.toString().trim() === 'version' ? fixtures.MEMCACHED.version : fixtures.MEMCACHED.error) });
  const info = await detectOn(fake.port, { readTimeoutMs: 500 });
  assert.equal(info.name, 'memcached');
  assert.equal(info.version, '1.6.18');
  assert.equal(info.cpe, 'cpe:2.3:a:memcached:memcached:1.6.18:*:*:*:*:*:*:*');
  assert.equal(info.details.auth, 'none');
});

test('Redis with a password: NOAUTH means auth required, and no INFO is asked', async (t) => {
  const fake = await startFake(t, { answer: () => fixtures.REDIS_NOAUTH });
  const info = await detectOn(fake.port, { readTimeoutMs: 500 });
  assert.equal(info.name, 'redis');
  assert.equal(info.details.auth, 'required');
  assert.equal(info.version, null);
  await fake.allClosed();
  assert.ok(fake.received.includes('PING'));
  assert.ok(!fake.received.includes('INFO server'));
});

test('MongoDB: OP_MSG hello, buildInfo, and Unauthorized for listDatabases', async (t) => {
  const fake = await startFake(t, { raw: true, answer: (chunk) => answerMongo(chunk) });
  const info = await detectOn(fake.port, { readTimeoutMs: 500 });
  assert.equal(info.name, 'mongodb');
  assert.equal(info.product, 'MongoDB');
  assert.equal(info.version, '5.0.24');
  assert.equal(info.cpe, 'cpe:2.3:a:mongodb:mongodb:5.0.24:*:*:*:*:*:*:*');
  assert.equal(info.details.max_wire_version, '13');
  assert.equal(info.details.auth, 'required');
});

test('a silent server is unknown after a bounded number of probes', async (t) => {
  const fake = await startFake(t, {});
  const info = await detectOn(fake.port, { readTimeoutMs: 200 });
  assert.equal(info.name, 'unknown');
  assert.equal(info.banner, null);
  assert.equal(info.tls, false);
  // The banner grab, then one connection per probe (PostgreSQL's second only after an answer):
  // TLS, HTTP, Redis, memcached, PostgreSQL, MongoDB, AMQP, MQTT.
  assert.ok(fake.connections <= 9, `${fake.connections} connections`);
});

test('abort during detection ends it at once, with no further probe', { timeout: 10_000 }, async (t) => {
  const controller = new AbortController();
  // Read timeouts of a minute: only the abort can end this test in time.
  const fake = await startFake(t, { onConnection: () => controller.abort() });
  const info = await detectService(endpointFor(fake.port, { readTimeoutMs: 60_000, signal: controller.signal }), null);
  assert.equal(info.name, 'unknown');
  assert.equal(fake.connections, 1);
});

test('CPE names follow NVD: update field for OpenSSH and ProFTPD, none without a version', () => {
  assert.equal(cpeFor('OpenSSH', '9.6p1'), 'cpe:2.3:a:openbsd:openssh:9.6:p1:*:*:*:*:*:*');
  assert.equal(cpeFor('OpenSSH', '9.6'), 'cpe:2.3:a:openbsd:openssh:9.6:*:*:*:*:*:*:*');
  assert.equal(cpeFor('ProFTPD', '1.3.5e'), 'cpe:2.3:a:proftpd:proftpd:1.3.5:e:*:*:*:*:*:*');
  assert.equal(cpeFor('MySQL', '8.0.36'), 'cpe:2.3:a:oracle:mysql:8.0.36:*:*:*:*:*:*:*');
  assert.equal(cpeFor('nginx', null), null);
  assert.equal(cpeFor('SomethingElse', '1.0'), null);
  assert.equal(cpeFor('nginx', '1.2:3'), null, 'a version that would need escaping is refused');
});
