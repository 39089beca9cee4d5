/**
 * The MySQL/MariaDB checks against real MariaDB servers: the machine's shared server on
 * 127.0.0.1:3306 (root without a password over TCP, no TLS), read but never changed, and a private
 * mariadbd with a root password and TLS (the safe twin). A scripted server covers what MariaDB
 * cannot be made to do (caching_sha2_password, MySQL 8's default). Nothing leaves 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { test, type TestContext } from 'node:test';
import type { EngineEvent, Finding } from '../src/engines/engine.js';
import type { Check, CheckFinding, Endpoint, ServiceInfo } from '../src/engines/rampart/checks/check.js';
import { mysqlEmptyPasswordCheck, mysqlTlsCheck } from '../src/engines/rampart/checks/mysql.js';
import { escapeBanner } from '../src/engines/rampart/banner.js';
import { probeTcpPort } from '../src/engines/rampart/port-scan.js';
import { detectService } from '../src/engines/rampart/services/detect.js';
import { createRampartEngine } from '../src/engines/rampart/rampart.engine.js';
import { createAddressGuard } from '../src/shared/address-guard.js';
import { createEgress } from '../src/shared/egress.js';
import { loopbackEndpoint, serviceInfo, startMariadb, startScriptedServer } from './helpers/daemons.js';

const SHARED_PORT = 3306;
const MYSQL_CLIENT = '/usr/bin/mariadb';

/** The engine's own sequence: banner grab, then service detection. */
async function detectOn(endpoint: Endpoint): Promise<ServiceInfo> {
  const probe = await probeTcpPort(endpoint.egress, endpoint.address, endpoint.port, { ...endpoint.limits, signal: endpoint.signal });
  assert.equal(probe?.state, 'open');
  return detectService(endpoint, probe?.state === 'open' && probe.banner.length > 0 ? escapeBanner(probe.banner) : null);
}

async function runChecks(checks: Check[], endpoint: Endpoint, service: ServiceInfo): Promise<CheckFinding[]> {
  const findings: CheckFinding[] = [];
  for (const check of checks) if (check.appliesTo(service)) findings.push(...(await check.run(endpoint, service)));
  return findings;
}

/** Runs SQL on the shared server as root over its unix socket (where root logs in by socket authentication). */
function sharedSql(sql: string): string {
  return execFileSync(MYSQL_CLIENT, ['-uroot', '-N', '-B', '-e', sql], { encoding: 'utf8' }).trim();
}

/** Skips unless the shared MariaDB answers on 3306 and lets root in from 127.0.0.1 without a password. */
async function requireSharedMariadb(t: TestContext): Promise<boolean> {
  const listening = await new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port: SHARED_PORT });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true)).once('error', () => done(false));
  });
  if (!listening || !existsSync(MYSQL_CLIENT)) {
    t.skip('MariaDB is not running on 127.0.0.1:3306 (Debian packages mariadb-server and mariadb-client)');
    return false;
  }
  try {
    execFileSync(MYSQL_CLIENT, ['-h127.0.0.1', `-P${SHARED_PORT}`, '-uroot', '--skip-password', '-e', 'SELECT 1'], { stdio: 'ignore' });
  } catch {
    t.skip("the MariaDB on 127.0.0.1:3306 has no root@127.0.0.1 without a password (CREATE USER root@'127.0.0.1')");
    return false;
  }
  return true;
}

test('shared MariaDB, root without a password and no TLS: Critical empty-password and Medium no-TLS findings, closed with COM_QUIT', async (t) => {
  if (!(await requireSharedMariadb(t))) return;
  const endpoint = loopbackEndpoint(SHARED_PORT);
  const service = await detectOn(endpoint);
  assert.equal(service.name, 'mysql');
  assert.equal(service.product, 'MariaDB');
  assert.equal(service.details.ssl, 'no');

  const abortedBefore = sharedSql("SHOW GLOBAL STATUS LIKE 'Aborted_clients'");
  const findings = await runChecks([mysqlEmptyPasswordCheck, mysqlTlsCheck], endpoint, service);
  // A client that leaves without COM_QUIT counts as an aborted client.
  assert.equal(sharedSql("SHOW GLOBAL STATUS LIKE 'Aborted_clients'"), abortedBefore);

  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.threat, f.cwe]),
    [
      ['rampart:mysql-empty-password', 'Critical', 'CWE-521'],
      ['rampart:mysql-no-tls', 'Medium', 'CWE-319'],
    ],
  );
  assert.match(findings[0]?.evidence ?? '', /Logged in as the account 'root' with an empty password \(plugin mysql_native_password, server 5\.5\.5-10\.\d+\.\d+-MariaDB/);
  assert.match(findings[0]?.evidence ?? '', /sent COM_QUIT; no statement was run/);
  assert.match(findings[1]?.evidence ?? '', /lacks the CLIENT_SSL capability flag/);
});

test('private MariaDB with a root password and TLS: no finding; with an anonymous account added, High anonymous-login and Low TLS-not-required', async (t) => {
  const mariadb = await startMariadb(t, { rootPassword: 'Rampart-twin-9', tls: true });
  if (!mariadb) return;
  const endpoint = loopbackEndpoint(mariadb.port);
  const service = await detectOn(endpoint);
  assert.equal(service.name, 'mysql');
  assert.equal(service.details.ssl, 'yes');
  assert.deepEqual(await runChecks([mysqlEmptyPasswordCheck, mysqlTlsCheck], endpoint, service), []);

  if (!existsSync(MYSQL_CLIENT)) return t.skip('the rest needs the mariadb client (Debian package mariadb-client)');
  // The leftover of old default installations: an account with an empty user name and no password.
  execFileSync(MYSQL_CLIENT, [`--socket=${mariadb.socket}`, '-uroot', '-e', "CREATE USER ''@'127.0.0.1'"]);
  const findings = await runChecks([mysqlEmptyPasswordCheck, mysqlTlsCheck], endpoint, service);
  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.threat, f.cwe]),
    [
      ['rampart:mysql-anonymous-login', 'High', 'CWE-287'],
      ['rampart:mysql-tls-not-required', 'Low', 'CWE-319'],
    ],
  );
  assert.match(findings[0]?.evidence ?? '', /Logged in as the anonymous account \(empty user name\) with an empty password/);
  assert.match(findings[1]?.evidence ?? '', /announces CLIENT_SSL, yet the anonymous account .* logged in over a plaintext connection/);
});

const loopbackGuard = createAddressGuard(['127.0.0.0/8']);

async function scanShared(engine: ReturnType<typeof createRampartEngine>, options?: Record<string, unknown>): Promise<Finding[]> {
  const events: EngineEvent[] = [];
  const run = engine.run({
    targets: [{ kind: 'ip', value: '127.0.0.1' }],
    ports: [SHARED_PORT],
    guard: loopbackGuard,
    egress: createEgress({ guard: loopbackGuard }),
    signal: new AbortController().signal,
    limits: { connectTimeoutMs: 5000, readTimeoutMs: 5000, maxConcurrency: 4, ratePerSecond: 0 },
    vulnerabilities: { syncedAt: new Date(), forCpe: async () => [] },
    ...(options ? { options } : {}),
  });
  for await (const event of run) events.push(event);
  return events.flatMap((event) => (event.type === 'finding' ? [event.finding] : []));
}

test('the empty-password login runs by default and is left out when the deployment or the scan turns it off', async (t) => {
  if (!(await requireSharedMariadb(t))) return;
  const rules = (findings: Finding[]) => findings.map((f) => f.ruleId).filter((id) => id.startsWith('rampart:mysql-')).sort();

  const byDefault = await scanShared(createRampartEngine({ udp: false }));
  assert.deepEqual(rules(byDefault), ['rampart:mysql-empty-password', 'rampart:mysql-no-tls']);
  assert.equal(byDefault.find((f) => f.ruleId === 'rampart:mysql-empty-password')?.port, SHARED_PORT);

  assert.deepEqual(rules(await scanShared(createRampartEngine({ udp: false }), { empty_password_logins: false })), ['rampart:mysql-no-tls']);
  // A scan cannot turn on what the deployment turned off.
  assert.deepEqual(rules(await scanShared(createRampartEngine({ udp: false, emptyPasswordLogins: false }), { empty_password_logins: true })), ['rampart:mysql-no-tls']);
});

/** A MySQL 8-like greeting (protocol 10) naming `plugin`, with CLIENT_SSL as asked. */
function greeting(plugin: string, ssl: boolean): Buffer {
  const capabilities = (0x000fa2ff | (ssl ? 0x800 : 0)) >>> 0;
  const payload = Buffer.concat([
    Buffer.from([0x0a]),
    Buffer.from('8.0.36\0'),
    Buffer.from([1, 0, 0, 0]), // connection id
    Buffer.alloc(8, 0x41), // auth-plugin-data part 1
    Buffer.from([0]),
    Buffer.from([capabilities & 0xff, (capabilities >> 8) & 0xff, 0xff, 0x02, 0, (capabilities >> 16) & 0xff, (capabilities >> 24) & 0xff, 21]),
    Buffer.alloc(10),
    Buffer.concat([Buffer.alloc(12, 0x42), Buffer.from([0])]),
    Buffer.from(`${plugin}\0`),
  ]);
  return framed(0, payload);
}

function framed(sequence: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUIntLE(payload.length, 0, 3);
  header[3] = sequence;
  return Buffer.concat([header, payload]);
}

test('caching_sha2_password fast path: root logs in with the one-byte empty answer, and TLS offered but not required is reported', async (t) => {
  const received: Buffer[] = [];
  const server = await startScriptedServer(t, (socket) => {
    socket.write(greeting('caching_sha2_password', true));
    let step = 0;
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      const user = chunk.subarray(4 + 32, chunk.indexOf(0, 4 + 32)).toString();
      if (step++ > 0) return socket.end(); // COM_QUIT
      // root: fast auth success then OK; anyone else: access denied.
      if (user === 'root') socket.write(Buffer.concat([framed(2, Buffer.from([0x01, 0x03])), framed(3, Buffer.from([0, 0, 0, 2, 0, 0, 0]))]));
      else socket.write(framed(2, Buffer.concat([Buffer.from([0xff, 0x15, 0x04]), Buffer.from("#28000Access denied for user ''@'localhost'")])));
    });
  });
  const findings = await mysqlEmptyPasswordCheck.run(loopbackEndpoint(server.port), serviceInfo('mysql'));
  await server.allClosed();
  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.threat]),
    [
      ['rampart:mysql-empty-password', 'Critical'],
      ['rampart:mysql-tls-not-required', 'Low'],
    ],
  );
  assert.equal(server.connections, 2); // root, then the anonymous account
  const rootLogin = received[0]!;
  // user "root\0", auth length 1, auth "\0" (caching_sha2's empty password), plugin name.
  assert.deepEqual(rootLogin.subarray(4 + 32, 4 + 32 + 7), Buffer.from('root\0\x01\0', 'latin1'));
  assert.deepEqual(received[1], framed(0, Buffer.from([0x01])));
});

test('a server that turns the client away before the greeting gets no login attempt', async (t) => {
  const server = await startScriptedServer(t, (socket) => {
    socket.end(framed(0, Buffer.concat([Buffer.from([0xff, 0x6a, 0x04]), Buffer.from("Host '10.0.0.9' is not allowed to connect to this MariaDB server")])));
  });
  assert.deepEqual(await mysqlEmptyPasswordCheck.run(loopbackEndpoint(server.port), serviceInfo('mysql')), []);
});
