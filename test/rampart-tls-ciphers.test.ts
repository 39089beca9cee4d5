/**
 * Cipher suite enumeration of the TLS check against real TLS servers with chosen suites on
 * loopback: `openssl s_server` with NULL and anonymous suites, a modern `openssl s_server` (TLS
 * 1.2 ECDHE-GCM and TLS 1.3 only, its own order), `gnutls-serv` with RC4, 3DES and CBC on TLS
 * 1.0 (Debian's OpenSSL 3 has neither RC4 nor 3DES), and a scripted SSLv3 server with an export
 * suite (no Debian TLS library still speaks SSLv3 or serves export suites). Each server is started once for the file.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import type { CheckFinding, Endpoint } from '../src/engines/rampart/checks/check.js';
import { tlsCheck } from '../src/engines/rampart/checks/tls.js';
import { enumerateSuites } from '../src/engines/rampart/checks/tls-ciphers.js';
import { buildClientHello, readServerAnswer } from '../src/engines/rampart/checks/tls-hello.js';
import { freePort, loopbackEndpoint, requireProgram, serviceInfo, spawnDaemon, startScriptedServer, tempDir } from './helpers/daemons.js';
import { hasOpenssl, TestPki } from './helpers/pki.js';
import { createAddressGuard } from '../src/shared/address-guard.js';
import { createEgress } from '../src/shared/egress.js';

const skip = hasOpenssl() ? false : 'the openssl CLI is missing (Debian package `openssl`)';
const service = serviceInfo('http', { tls: true });

/** A leaf for localhost from a throwaway CA, written to files for the daemons. */
async function certificateFiles(t: TestContext): Promise<{ cert: string; key: string }> {
  const pki = new TestPki();
  t.after(() => pki.cleanup());
  const pair = pki.issue({ san: 'DNS:localhost,IP:127.0.0.1' });
  const dir = await tempDir(t, 'tls-ciphers');
  const files = { cert: path.join(dir, 'cert.pem'), key: path.join(dir, 'key.pem') };
  await writeFile(files.cert, pair.cert);
  await writeFile(files.key, pair.key);
  return files;
}

/** `openssl s_server` on a random loopback port with `args` (cipher and version options). */
async function startOpensslServer(t: TestContext, args: string[]): Promise<number> {
  const { cert, key } = await certificateFiles(t);
  const port = await freePort();
  await spawnDaemon(t, 'openssl', ['s_server', '-accept', `127.0.0.1:${port}`, '-cert', cert, '-key', key, '-quiet', ...args], port);
  return port;
}

function endpointFor(port: number): Endpoint {
  return { ...loopbackEndpoint(port), hostname: 'localhost' };
}

/** A handshake message: type, 24-bit length, body. */
function message(type: number, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([type]), u24(body.length), body]);
}

function u24(value: number): Buffer {
  return Buffer.from([value >> 16, (value >> 8) & 0xff, value & 0xff]);
}

function find(findings: CheckFinding[], rule: string): CheckFinding | undefined {
  return findings.find((finding) => finding.ruleId === `rampart:${rule}`);
}

/** The suite names a finding's evidence lists for `version` (`TLSv1.2: A, B; TLSv1: C`). */
function namesAt(finding: CheckFinding | undefined, version: string): string[] {
  const match = new RegExp(`(?:^|[:;] )${version.replace('.', '\\.')}(?: \\(\\d+\\))?: ([A-Z0-9_a-z, ]+)`).exec(finding?.evidence ?? '');
  return match?.[1]?.split(', ') ?? [];
}

describe('TLS cipher suites', { skip }, () => {
  test('NULL and anonymous suites: each named, High, and the client order followed', async (t) => {
    const port = await startOpensslServer(t, ['-cipher', 'aNULL:eNULL:@SECLEVEL=0']);
    const findings = await tlsCheck.run(endpointFor(port), service);

    const nulls = find(findings, 'tls-null-cipher');
    assert.equal(nulls?.threat, 'High');
    assert.equal(nulls.cwe, 'CWE-319');
    // Every NULL suite OpenSSL serves with an RSA certificate, by its IANA name, and nothing else.
    assert.deepEqual(namesAt(nulls, 'TLSv1.2').sort(), [
      'TLS_ECDHE_RSA_WITH_NULL_SHA', 'TLS_ECDH_anon_WITH_NULL_SHA', 'TLS_RSA_WITH_NULL_MD5', 'TLS_RSA_WITH_NULL_SHA', 'TLS_RSA_WITH_NULL_SHA256',
    ]);
    const anonymous = find(findings, 'tls-anonymous-cipher');
    assert.equal(anonymous?.threat, 'High');
    const anon12 = namesAt(anonymous, 'TLSv1.2');
    assert.ok(anon12.includes('TLS_DH_anon_WITH_AES_128_GCM_SHA256') && anon12.includes('TLS_ECDH_anon_WITH_AES_256_CBC_SHA'), anon12.join());
    assert.ok(anon12.every((name) => /_anon_/.test(name)), anon12.join());
    assert.match(anonymous.evidence, /Enumerated with \d+ ClientHellos/);

    // The full list: TLS 1.3 still has its default suites; no suite outside the configured groups.
    const list = find(findings, 'tls-cipher-suites');
    assert.equal(list?.threat, 'Informational');
    assert.deepEqual(namesAt(list, 'TLSv1.3').sort(), ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256']);
    assert.ok(namesAt(list, 'TLSv1.2').every((name) => /_anon_|_NULL_/.test(name)));
    assert.match(list.evidence, /the server follows the client's order/);
    // s_server without -serverpref takes the client's order, and it accepts weak suites.
    assert.equal(find(findings, 'tls-no-server-cipher-order')?.threat, 'Low');
    // Refused suites are never reported: nothing from RC4, 3DES or export groups.
    for (const rule of ['tls-rc4-cipher', 'tls-3des-cipher', 'tls-export-cipher', 'tls-ssl3-accepted']) assert.equal(find(findings, rule), undefined, rule);
  });

  test('a modern server (TLS 1.2 ECDHE-GCM and TLS 1.3, its own order) has no cipher findings', async (t) => {
    const port = await startOpensslServer(t, [
      '-cipher', 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384',
      '-ciphersuites', 'TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256',
      '-no_tls1', '-no_tls1_1', '-serverpref',
    ]);
    const findings = await tlsCheck.run(endpointFor(port), service);
    assert.deepEqual(findings.map((finding) => finding.ruleId).sort(), ['rampart:tls-cert-untrusted', 'rampart:tls-cipher-suites', 'rampart:tls-protocols']);
    const list = find(findings, 'tls-cipher-suites');
    assert.deepEqual(namesAt(list, 'TLSv1.2').sort(), ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384']);
    assert.deepEqual(namesAt(list, 'TLSv1.3').sort(), ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384']);
    assert.match(list?.evidence ?? '', /Preference at TLSv1\.2: .*the server enforces its own order/);
    assert.match(find(findings, 'tls-protocols')?.evidence ?? '', /TLSv1\.2 accepted.*TLSv1\.3 accepted.*SSLv3 not accepted/);

    // The bound holds: with room for 5 ClientHellos the enumeration stops and says so.
    const bounded = await enumerateSuites(endpointFor(port), 5);
    assert.equal(bounded.hellos, 5);
    assert.match([...bounded.incomplete.values()].join(), /bound of 5 connections/);
    // Every connection takes a token of the job's rate limit.
    let tokens = 0;
    const paced = await enumerateSuites({ ...endpointFor(port), bucket: { take: async () => void tokens++ } });
    assert.equal(tokens, paced.hellos);
    assert.equal(paced.hellos, 3 + 3 + 1 + 1 + 1 + 2); // 2 + 2 accepted, a refusal per version, the order test
  });

  test('RC4, 3DES and CBC on TLS 1.0 (gnutls-serv)', async (t) => {
    if (!requireProgram(t, '/usr/bin/gnutls-serv', 'gnutls-bin')) return;
    const { cert, key } = await certificateFiles(t);
    const port = await freePort();
    // gnutls-serv has no listen-address option: it listens on every address, on a random port, for this test only.
    await spawnDaemon(t, '/usr/bin/gnutls-serv', ['-p', String(port), '--x509certfile', cert, '--x509keyfile', key, '--priority',
      'NONE:+VERS-TLS1.2:+VERS-TLS1.0:+3DES-CBC:+ARCFOUR-128:+AES-128-CBC:+RSA:+ECDHE-RSA:+SHA1:+COMP-NULL:+SIGN-ALL:+CURVE-ALL'], port);
    const findings = await tlsCheck.run(endpointFor(port), service);

    const tripleDes = find(findings, 'tls-3des-cipher');
    assert.equal(tripleDes?.threat, 'Medium');
    assert.deepEqual(tripleDes.cve, ['CVE-2016-2183']);
    assert.deepEqual(namesAt(tripleDes, 'TLSv1').sort(), ['TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA', 'TLS_RSA_WITH_3DES_EDE_CBC_SHA']);
    const rc4 = find(findings, 'tls-rc4-cipher');
    assert.equal(rc4?.threat, 'Medium');
    assert.deepEqual(namesAt(rc4, 'TLSv1.2').sort(), ['TLS_ECDHE_RSA_WITH_RC4_128_SHA', 'TLS_RSA_WITH_RC4_128_SHA']);
    const cbc = find(findings, 'tls-cbc-tls10');
    assert.equal(cbc?.threat, 'Low');
    assert.deepEqual(namesAt(cbc, 'TLSv1').sort(), [
      'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA', 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA', 'TLS_RSA_WITH_3DES_EDE_CBC_SHA', 'TLS_RSA_WITH_AES_128_CBC_SHA',
    ]);
    assert.doesNotMatch(cbc.evidence, /TLSv1\.2:/); // CBC is reported for TLS 1.0 only
    const noFs = find(findings, 'tls-no-forward-secrecy');
    assert.deepEqual(namesAt(noFs, 'TLSv1.2').sort(), ['TLS_RSA_WITH_3DES_EDE_CBC_SHA', 'TLS_RSA_WITH_AES_128_CBC_SHA', 'TLS_RSA_WITH_RC4_128_SHA']);
    assert.equal(find(findings, 'tls-tls10-accepted')?.threat, 'Medium');
    assert.equal(find(findings, 'tls-tls11-accepted'), undefined);
    for (const rule of ['tls-null-cipher', 'tls-anonymous-cipher', 'tls-export-cipher']) assert.equal(find(findings, rule), undefined, rule);
    // Node's own handshake (AES-CBC) still read the certificate.
    assert.ok(find(findings, 'tls-cert-untrusted'));
  });

  test('an SSLv3 server with an export suite: SSLv3 High, the export and RC4 suites named, each with its CVE', async (t) => {
    // Answers an SSLv3 ClientHello with an SSLv3 ServerHello choosing the first offered suite it has (the client's
    // order), like a 1999 server with RSA_EXPORT_WITH_RC4_40_MD5 and 3DES; refuses anything else with an alert.
    const has = [0x000a, 0x0003];
    const pki = new TestPki();
    t.after(() => pki.cleanup());
    const expired = new X509Certificate(pki.issue({ selfSigned: true, start: '20200101000000Z', end: '20200201000000Z' }).cert).raw;
    const server = await startScriptedServer(t, (socket) => {
      socket.once('data', (hello: Buffer) => {
        const clientVersion = hello.readUInt16BE(9);
        const sessionLength = hello[43] ?? 0;
        const suitesAt = 44 + sessionLength;
        const suites = hello.subarray(suitesAt + 2, suitesAt + 2 + hello.readUInt16BE(suitesAt));
        const offered = Array.from({ length: suites.length / 2 }, (_, i) => suites.readUInt16BE(i * 2));
        const chosen = offered.find((suite) => has.includes(suite));
        if (clientVersion !== 0x0300 || chosen === undefined) {
          socket.end(Buffer.from([0x15, 0x03, 0x00, 0x00, 0x02, 0x02, 0x28]));
          return;
        }
        const body = Buffer.concat([Buffer.from([0x03, 0x00]), Buffer.alloc(32, 7), Buffer.from([0x00, chosen >> 8, chosen & 0xff, 0x00])]);
        // ServerHello, Certificate (the expired one), ServerHelloDone; then it waits for a key exchange that never comes.
        const list = Buffer.concat([u24(expired.length + 3), u24(expired.length), expired]);
        const flight = Buffer.concat([message(2, body), message(11, list), message(14, Buffer.alloc(0))]);
        socket.write(Buffer.concat([Buffer.from([0x16, 0x03, 0x00, flight.length >> 8, flight.length & 0xff]), flight]));
      });
    });
    const findings = await tlsCheck.run(endpointFor(server.port), service);
    const ssl3 = find(findings, 'tls-ssl3-accepted');
    assert.equal(ssl3?.threat, 'Medium');
    assert.deepEqual(ssl3.cve, ['CVE-2014-3566']);
    assert.match(ssl3.evidence, /SSLv3 ServerHello choosing TLS_RSA_EXPORT_WITH_RC4_40_MD5/);
    const exportGrade = find(findings, 'tls-export-cipher');
    assert.equal(exportGrade?.threat, 'High');
    assert.deepEqual(exportGrade.cve, ['CVE-2015-0204']);
    assert.deepEqual(namesAt(exportGrade, 'SSLv3'), ['TLS_RSA_EXPORT_WITH_RC4_40_MD5']);
    assert.deepEqual(namesAt(find(findings, 'tls-rc4-cipher'), 'SSLv3'), ['TLS_RSA_EXPORT_WITH_RC4_40_MD5']);
    assert.deepEqual(namesAt(find(findings, 'tls-3des-cipher'), 'SSLv3'), ['TLS_RSA_WITH_3DES_EDE_CBC_SHA']);
    assert.deepEqual(namesAt(find(findings, 'tls-cbc-tls10'), 'SSLv3'), ['TLS_RSA_WITH_3DES_EDE_CBC_SHA']);
    assert.match(find(findings, 'tls-protocols')?.evidence ?? '', /SSLv3 accepted.*TLSv1 not accepted/);
    assert.equal(find(findings, 'tls-tls10-accepted'), undefined);
    assert.equal(find(findings, 'tls-no-server-cipher-order')?.threat, 'Low');
    assert.match(find(findings, 'tls-cipher-suites')?.evidence ?? '', /Enumerated with 9 ClientHellos/);
    // Node cannot offer these suites: the certificate was read from one more SSLv3 ClientHello, and judged.
    const expiredFinding = find(findings, 'tls-cert-expired');
    assert.equal(expiredFinding?.threat, 'High');
    assert.match(expiredFinding.evidence, /Feb {2}1 00:00:00 2020 GMT/);
    assert.match(find(findings, 'tls-cert-self-signed')?.evidence ?? '', /not verified by a handshake/);
    assert.equal(find(findings, 'tls-cert-name-mismatch'), undefined);
    // 4 versions refused, 3 SSLv3 hellos (2 chosen, then a refusal), 2 for the order, 1 real handshake (refused), 1 for the certificate.
    assert.equal(server.connections, 4 + 3 + 2 + 1 + 1);
    await server.allClosed();
  });
});

test('an address the guard refuses gets no ClientHello at all', async (t) => {
  const server = await startScriptedServer(t, (socket) => socket.end());
  const elsewhere = createEgress({ guard: createAddressGuard(['192.0.2.0/24']) });
  const findings = await tlsCheck.run({ ...endpointFor(server.port), egress: elsewhere }, service);
  assert.deepEqual(findings, []);
  assert.equal(server.connections, 0);
});

describe('ClientHello and ServerHello bytes', () => {
  /** A ServerHello handshake message at `version` choosing `suite`, with a supported_versions extension when given. */
  function serverHello(version: number, suite: number, supportedVersion?: number): Buffer {
    const extensions = supportedVersion === undefined ? Buffer.alloc(0) : Buffer.from([0x00, 0x2b, 0x00, 0x02, supportedVersion >> 8, supportedVersion & 0xff]);
    const body = Buffer.concat([
      Buffer.from([version >> 8, version & 0xff]), Buffer.alloc(32, 1), Buffer.from([0, suite >> 8, suite & 0xff, 0]),
      Buffer.from([extensions.length >> 8, extensions.length & 0xff]), extensions,
    ]);
    return Buffer.concat([Buffer.from([0x02, 0, body.length >> 8, body.length & 0xff]), body]);
  }
  const record = (payload: Buffer): Buffer => Buffer.concat([Buffer.from([0x16, 0x03, 0x03, payload.length >> 8, payload.length & 0xff]), payload]);

  test('a ServerHello split over records and reads is read once complete', () => {
    const hello = serverHello(0x0303, 0xc02f);
    const split = Buffer.concat([record(hello.subarray(0, 10)), record(hello.subarray(10))]);
    for (let cut = 0; cut < split.length; cut++) assert.equal(readServerAnswer(split.subarray(0, cut), 0x0303), null, `cut at ${cut}`);
    assert.deepEqual(readServerAnswer(split, 0x0303), { kind: 'chosen', suite: 0xc02f });
  });

  test('TLS 1.3 is told by supported_versions; another version or an alert is a refusal', () => {
    assert.deepEqual(readServerAnswer(record(serverHello(0x0303, 0x1301, 0x0304)), 0x0304), { kind: 'chosen', suite: 0x1301 });
    assert.deepEqual(readServerAnswer(record(serverHello(0x0303, 0xc02f)), 0x0304), { kind: 'refused', reason: 'answered version 0x303' });
    assert.deepEqual(readServerAnswer(Buffer.from([0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x46]), 0x0301), { kind: 'refused', reason: 'alert 70' });
    assert.deepEqual(readServerAnswer(Buffer.from('HTTP/1.1 400 Bad Request\r\n'), 0x0303), { kind: 'refused', reason: 'record type 72' });
  });

  test('the ClientHello carries the suites in order, SNI for names only, and no extensions in SSLv3', () => {
    const hello = buildClientHello('TLSv1.2', [0xc02f, 0x000a], 'example.org');
    assert.equal(hello.readUInt16BE(9), 0x0303);
    assert.equal(hello.readUInt16BE(3), hello.length - 5);
    assert.deepEqual([hello.readUInt16BE(46), hello.readUInt16BE(48), hello.readUInt16BE(50)], [0xc02f, 0x000a, 0x00ff]);
    assert.ok(hello.includes(Buffer.from('example.org')));
    const ssl3 = buildClientHello('SSLv3', [0x000a], null);
    assert.equal(ssl3.readUInt16BE(1), 0x0300);
    assert.equal(ssl3.length, 5 + 4 + 2 + 32 + 1 + 2 + 4 + 2); // header, version, random, session, suites (+SCSV), compression
  });
});
