/**
 * The nuclei ssl executor with REAL community ssl templates against node:tls servers whose
 * certificates the tests make (expired, self-signed, mismatched, an untrusted CA in the chain, a
 * Fortinet-like subject), and TLS 1.0 when the local OpenSSL still speaks it.
 */
import assert from 'node:assert/strict';
import type tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import type { ServiceTarget } from '../src/engines/nuclei/execute/contract.js';
import { runSslTemplate } from '../src/engines/nuclei/execute/ssl.js';
import { makeCertificate, startServer, tls10Works } from './helpers/network-servers.js';
import { context, service, skip, template } from './helpers/nuclei-executor.js';
import { hasOpenssl, TestPki, type KeyPair } from './helpers/pki.js';

/** Runs a template against a fresh TLS server with `secure`, then closes it. */
async function sslRun(relative: string, secure: KeyPair & tls.TlsOptions, target: Partial<ServiceTarget> = {}): Promise<Awaited<ReturnType<typeof runSslTemplate>>> {
  const server = await startServer((socket) => socket.end(), secure);
  try {
    return await runSslTemplate(template(relative), service(server.port, { tls: true, ...target }), context());
  } finally {
    await server.close();
  }
}

describe('nuclei ssl executor', { skip: skip || (hasOpenssl() ? false : 'openssl CLI not found (test certificates)') }, () => {
  let pki: TestPki;
  before(() => {
    pki = new TestPki();
  });
  after(() => pki.cleanup());

  it('expired-ssl fires on an expired certificate and extracts not_after as Go prints it; not on a valid one', async () => {
    const expired = pki.issue({ cn: 'localhost', start: '20200101000000Z', end: '20210101000000Z' });
    const hit = await sslRun('ssl/expired-ssl.yaml', expired);
    assert.equal(hit.matches.length, 1);
    assert.equal(hit.matches[0]!.protocol, 'ssl');
    assert.deepEqual(hit.matches[0]!.extracted, ['2021-01-01 00:00:00 +0000 UTC']);
    const valid = await sslRun('ssl/expired-ssl.yaml', makeCertificate(pki, 'valid', { subject: '/CN=localhost', signed: true }));
    assert.deepEqual(valid.matches, []);
    assert.equal(valid.requestsSent, 1);
  });

  it('self-signed-ssl fires on a self-signed certificate, not on a CA-signed one with key identifiers and names', async () => {
    const self = await sslRun('ssl/self-signed-ssl.yaml', makeCertificate(pki, 'self', { subject: '/CN=localhost', san: 'DNS:localhost' }));
    assert.equal(self.matches.length, 1);
    const signed = await sslRun('ssl/self-signed-ssl.yaml', makeCertificate(pki, 'signed', { subject: '/CN=localhost', signed: true }));
    assert.deepEqual(signed.matches, []);
  });

  it('untrusted-root-certificate fires when the chain carries a self-signed CA that is no known root', async () => {
    const leaf = makeCertificate(pki, 'chained', { subject: '/CN=localhost', signed: true });
    const chained = await sslRun('ssl/untrusted-root-certificate.yaml', { key: leaf.key, cert: leaf.cert + pki.ca.cert });
    assert.equal(chained.matches.length, 1);
    assert.deepEqual((await sslRun('ssl/untrusted-root-certificate.yaml', leaf)).matches, []);
  });

  it('mismatched-ssl-certificate fires when the name dialled is not in the certificate', async () => {
    const other = makeCertificate(pki, 'other', { subject: '/CN=other.example', san: 'DNS:other.example', signed: true });
    const hit = await sslRun('ssl/mismatched-ssl-certificate.yaml', other, { host: 'localhost' });
    assert.equal(hit.matches.length, 1);
    assert.deepEqual(hit.matches[0]!.extracted, ['CN: other.example']);
    const own = makeCertificate(pki, 'own', { subject: '/CN=localhost', signed: true });
    assert.deepEqual((await sslRun('ssl/mismatched-ssl-certificate.yaml', own, { host: 'localhost' })).matches, []);
  });

  it('reads the subject DN as zcrypto prints it (fortigate-certificate) and extracts the domains', async () => {
    const fortigate = makeCertificate(pki, 'fortigate', {
      subject: '/C=US/ST=California/L=Sunnyvale/O=Fortinet/OU=FortiGate/CN=FG100F3G19000000/emailAddress=support@fortinet.com',
    });
    const hit = await sslRun('ssl/fortinet/fortigate-certificate.yaml', fortigate);
    assert.equal(hit.matches.length, 1);
    const response = JSON.parse(hit.matches[0]!.response!) as Record<string, unknown>;
    assert.equal(response.subject_dn, 'emailAddress=support@fortinet.com, CN=FG100F3G19000000, OU=FortiGate, O=Fortinet, L=Sunnyvale, ST=California, C=US');
    assert.equal(response.tls_version, 'tls13');
    const miss = makeCertificate(pki, 'fortiweb', { subject: '/O=Fortinet/OU=FortiWeb/CN=FV000' });
    assert.deepEqual((await sslRun('ssl/fortinet/fortigate-certificate.yaml', miss)).matches, []);
  });

  it('deprecated-tls reports TLS 1.0 on a server that only speaks it, nothing on a TLS 1.2+ server, and notes SSL 3.0', async (t) => {
    const cert = makeCertificate(pki, 'legacy', { subject: '/CN=localhost', signed: true });
    if (!(await tls10Works(cert))) return t.skip('the local OpenSSL refuses TLS 1.0 even at security level 0');
    const legacy = await sslRun('ssl/deprecated-tls.yaml', { ...cert, minVersion: 'TLSv1', maxVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' });
    assert.deepEqual(legacy.matches.map((m) => [m.extractorName, m.extracted]), [['tls_1.0', ['tls10']]]);
    assert.match(legacy.notes.join('\n'), /ssl30.*cannot be negotiated/);
    const modern = await sslRun('ssl/deprecated-tls.yaml', { ...cert, minVersion: 'TLSv1.2' });
    assert.deepEqual(modern.matches, []);
    assert.equal(modern.requestsSent, 2);
  });
});


