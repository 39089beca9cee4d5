/**
 * The Rampart TLS check against real TLS servers on loopback, with certificates the `openssl`
 * CLI makes in a temporary directory (an `openssl ca` database lets us backdate validity, which
 * `openssl x509` of OpenSSL 3.0 cannot). Nothing leaves 127.0.0.1.
 */
import { hasOpenssl, TestPki } from './helpers/pki.js';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import tls from 'node:tls';
import { after, before, describe, test } from 'node:test';
import type { CheckFinding, Endpoint, ServiceInfo } from '../src/engines/rampart/checks/check.js';
import { tlsCheck } from '../src/engines/rampart/checks/tls.js';
import { LOOPBACK_EGRESS } from './helpers/egress.js';

// ---------------------------------------------------------------------------------------------
// Certificates

const skip = hasOpenssl() ? false : 'the openssl CLI is missing (Debian package `openssl`)';

// ---------------------------------------------------------------------------------------------
// Servers and the check

interface Server {
  port: number;
  /** TLS handshakes the server completed. */
  readonly handshakes: number;
  close(): Promise<void>;
}

async function startTlsServer(options: tls.TlsOptions): Promise<Server> {
  const sockets = new Set<net.Socket>();
  let handshakes = 0;
  const server = tls.createServer(options, (socket) => {
    handshakes++;
    socket.on('error', () => undefined);
    socket.end();
  });
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => undefined);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    get handshakes() {
      return handshakes;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const service: ServiceInfo = { name: 'http', product: null, version: null, cpe: null, tls: true, banner: null, details: {} };

function endpoint(port: number, options: { hostname?: string; signal?: AbortSignal; timeoutMs?: number } = {}): Endpoint {
  return {
    hostname: options.hostname ?? 'localhost',
    address: '127.0.0.1',
    port,
    limits: { connectTimeoutMs: options.timeoutMs ?? 5000, readTimeoutMs: options.timeoutMs ?? 5000, maxConcurrency: 4, ratePerSecond: 0 },
    signal: options.signal ?? new AbortController().signal,
    egress: LOOPBACK_EGRESS,
  };
}

async function scan(options: tls.TlsOptions, hostname = 'localhost'): Promise<CheckFinding[]> {
  const server = await startTlsServer(options);
  try {
    return await tlsCheck.run(endpoint(server.port, { hostname }), service);
  } finally {
    await server.close();
  }
}

function find(findings: CheckFinding[], rule: string): CheckFinding | undefined {
  return findings.find((finding) => finding.ruleId === `rampart:${rule}`);
}

function ruleIds(findings: CheckFinding[]): string[] {
  return findings.map((finding) => finding.ruleId).sort();
}

// ---------------------------------------------------------------------------------------------

describe('TLS check', { skip }, () => {
  let pki: TestPki;
  before(() => {
    pki = new TestPki();
  });
  after(() => pki?.cleanup());

  test('applies to TLS services only', () => {
    assert.equal(tlsCheck.appliesTo(service), true);
    assert.equal(tlsCheck.appliesTo({ ...service, tls: false }), false);
  });

  test('a legacy server: TLS 1.0 and 1.1, anonymous suites, an expired self-signed certificate', async () => {
    const expired = pki.issue({ selfSigned: true, start: '20200101000000Z', end: '20200201000000Z' });
    // `ALL` (unlike DEFAULT) keeps the anonymous suites; eNULL stays out.
    const findings = await scan({ ...expired, minVersion: 'TLSv1', ciphers: 'ALL:@SECLEVEL=0' });

    const tls10 = find(findings, 'tls-tls10-accepted');
    assert.equal(tls10?.threat, 'Medium');
    assert.match(tls10.evidence, /TLS 1\.0 ServerHello choosing TLS_\w+/);
    assert.equal(tls10.cwe, 'CWE-327');
    assert.equal(find(findings, 'tls-tls11-accepted')?.threat, 'Low');

    const protocols = find(findings, 'tls-protocols');
    assert.equal(protocols?.threat, 'Informational');
    assert.match(protocols.evidence, /TLSv1 accepted.*TLSv1\.1 accepted.*TLSv1\.2 accepted.*TLSv1\.3 accepted/);

    const anonymous = find(findings, 'tls-anonymous-cipher');
    assert.equal(anonymous?.threat, 'High');
    assert.match(anonymous.evidence, /TLSv1\.2: [^;]*TLS_(EC)?DH_anon_WITH_/);
    assert.equal(find(findings, 'tls-null-cipher'), undefined);

    const expiredFinding = find(findings, 'tls-cert-expired');
    assert.equal(expiredFinding?.threat, 'High');
    assert.match(expiredFinding.evidence, /Feb {2}1 00:00:00 2020 GMT/);
    assert.match(expiredFinding.evidence, /Subject: CN=localhost; Issuer: CN=localhost/);
    assert.match(expiredFinding.evidence, /Key: RSA 2048 bits/);
    assert.match(expiredFinding.evidence, /Signature: sha256WithRSAEncryption/);

    const selfSigned = find(findings, 'tls-cert-self-signed');
    assert.equal(selfSigned?.threat, 'Low');
    assert.equal(selfSigned.cwe, 'CWE-295');
    // Self-signed implies untrusted: one finding, not two; and the name matches.
    assert.equal(find(findings, 'tls-cert-untrusted'), undefined);
    assert.equal(find(findings, 'tls-cert-name-mismatch'), undefined);
    assert.equal(find(findings, 'tls-cert-expiring-soon'), undefined);
    for (const finding of findings) {
      assert.match(finding.ruleId, /^rampart:tls-[a-z0-9-]+$/);
      assert.ok(finding.references.length > 0 && finding.description.length > 0 && finding.solution.length > 0);
    }
  });

  test('a server offering anonymous and NULL suites is reported for both', async () => {
    const cert = pki.issue({});
    const findings = await scan({ ...cert, minVersion: 'TLSv1.2', ciphers: 'ALL:eNULL:@SECLEVEL=0' });
    assert.match(find(findings, 'tls-null-cipher')?.evidence ?? '', /TLSv1\.2: [^;]*TLS_RSA_WITH_NULL_SHA256/);
    assert.match(find(findings, 'tls-anonymous-cipher')?.evidence ?? '', /TLSv1\.2: [^;]*TLS_(EC)?DH_anon_WITH_/);
    assert.equal(find(findings, 'tls-tls10-accepted'), undefined);
  });

  test('a modern server with a certificate from a private CA: only the untrusted chain', async () => {
    const good = pki.issue({ san: 'DNS:localhost,IP:127.0.0.1' });
    const findings = await scan({ ...good, minVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305' });
    assert.deepEqual(ruleIds(findings), ['rampart:tls-cert-untrusted', 'rampart:tls-cipher-suites', 'rampart:tls-protocols']);
    const protocols = find(findings, 'tls-protocols');
    assert.match(protocols?.evidence ?? '', /TLSv1\.2 accepted.*TLSv1\.3 accepted.*TLSv1 not accepted.*TLSv1\.1 not accepted/);
    const untrusted = find(findings, 'tls-cert-untrusted');
    assert.equal(untrusted?.threat, 'Low');
    assert.match(untrusted.evidence, /Issuer: CN=Rampart Test CA/);
    assert.match(untrusted.evidence, /UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT/);
  });

  test('the same server reached by its IP address matches the IP SAN', async () => {
    const withIp = pki.issue({ san: 'DNS:localhost,IP:127.0.0.1' });
    assert.equal(find(await scan({ ...withIp, minVersion: 'TLSv1.2' }, '127.0.0.1'), 'tls-cert-name-mismatch'), undefined);
    const withoutIp = pki.issue({ san: 'DNS:localhost' });
    const mismatch = find(await scan({ ...withoutIp, minVersion: 'TLSv1.2' }, '127.0.0.1'), 'tls-cert-name-mismatch');
    assert.equal(mismatch?.threat, 'Medium');
    assert.match(mismatch.evidence, /Expected 127\.0\.0\.1/);
  });

  test('a certificate for another name', async () => {
    const other = pki.issue({ cn: 'other.example' });
    const mismatch = find(await scan({ ...other, minVersion: 'TLSv1.2' }), 'tls-cert-name-mismatch');
    assert.equal(mismatch?.threat, 'Medium');
    assert.equal(mismatch.cwe, 'CWE-297');
    assert.match(mismatch.evidence, /Expected localhost.*other\.example/);
  });

  test('a 1024-bit RSA key', async () => {
    const small = pki.issue({ bits: 1024 });
    const findings = await scan({ ...small, minVersion: 'TLSv1.2', ciphers: 'DEFAULT@SECLEVEL=0' });
    const weakKey = find(findings, 'tls-cert-weak-key');
    assert.equal(weakKey?.threat, 'Medium');
    assert.match(weakKey.evidence, /RSA 1024 bits, below 2048 bits/);
    assert.equal(find(findings, 'tls-cert-weak-signature'), undefined);
  });

  test('a SHA-1 signature', async () => {
    const sha1 = pki.issue({ md: 'sha1' });
    const findings = await scan({ ...sha1, minVersion: 'TLSv1.2', ciphers: 'DEFAULT@SECLEVEL=0' });
    const weakSignature = find(findings, 'tls-cert-weak-signature');
    assert.equal(weakSignature?.threat, 'Medium');
    assert.match(weakSignature.evidence, /CN=localhost signed with sha1WithRSAEncryption/);
    assert.equal(find(findings, 'tls-cert-weak-key'), undefined);
  });

  test('a certificate expiring in 10 days, and one not valid yet', async () => {
    const soon = find(await scan({ ...pki.issue({ days: 10 }), minVersion: 'TLSv1.2' }), 'tls-cert-expiring-soon');
    assert.equal(soon?.threat, 'Low');
    assert.match(soon.evidence, /in (9|10) days/);

    const future = await scan({ ...pki.issue({ start: '20990101000000Z', end: '20991231000000Z' }), minVersion: 'TLSv1.2' });
    assert.equal(find(future, 'tls-cert-not-yet-valid')?.threat, 'Medium');
    assert.equal(find(future, 'tls-cert-expired'), undefined);
    assert.equal(find(future, 'tls-cert-expiring-soon'), undefined);
  });

  test('an aborted job makes no connection, and a silent port ends at the timeout', async () => {
    const server = await startTlsServer({ ...pki.issue({}) });
    try {
      const controller = new AbortController();
      controller.abort();
      assert.deepEqual(await tlsCheck.run(endpoint(server.port, { signal: controller.signal }), service), []);
      assert.equal(server.handshakes, 0);
    } finally {
      await server.close();
    }

    const silent = net.createServer((socket) => socket.on('error', () => undefined));
    const held: net.Socket[] = [];
    silent.on('connection', (socket) => held.push(socket));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    try {
      const port = (silent.address() as net.AddressInfo).port;
      assert.deepEqual(await tlsCheck.run(endpoint(port, { timeoutMs: 50 }), service), []);
      assert.equal(held.length, 2); // two ClientHellos (TLS 1.3, TLS 1.2) got no answer: nothing more is tried
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
