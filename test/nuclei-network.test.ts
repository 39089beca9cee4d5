/**
 * The nuclei tcp, ssl and dns executors, run with REAL community templates from ../shared against
 * loopback servers the tests start: a product banner that must fire and a near miss that must
 * not, a hex input, tls:// entries, certificates made for the test, a DNS server answering a
 * takeover-prone CNAME; and the guard: an address the egress refuses receives nothing.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Answer } from 'dns-packet';
import type tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { createAddressGuard } from '../src/shared/address-guard.js';
import { createEgress } from '../src/shared/egress.js';
import type { ExecutionContext, HostGate, ServiceTarget } from '../src/engines/nuclei/execute/contract.js';
import { reverseName, runDnsTemplate } from '../src/engines/nuclei/execute/dns.js';
import { splitHostPort } from '../src/engines/nuclei/execute/network-vars.js';
import { runSslTemplate } from '../src/engines/nuclei/execute/ssl.js';
import { runTcpTemplate, templatePorts } from '../src/engines/nuclei/execute/tcp.js';
import { isTemplateFailure, parseTemplate } from '../src/engines/nuclei/templates/parse-template.js';
import type { Template } from '../src/engines/nuclei/templates/template.types.js';
import { LOOPBACK_EGRESS } from './helpers/egress.js';
import { cname, makeCertificate, NXDOMAIN, replyOnData, startResolver, startServer, tls10Works } from './helpers/network-servers.js';
import { hasOpenssl, TestPki, type KeyPair } from './helpers/pki.js';
import { SHARED_DIR } from './helpers/shared.js';

const CORPUS = path.join(SHARED_DIR, 'third_party', 'nuclei-templates');
const skip = existsSync(CORPUS) ? false : `shared nuclei templates not found at ${CORPUS} (set RAMPART_SHARED_DIR)`;

/** A real template of the corpus. */
function template(relative: string): Template {
  const parsed = parseTemplate(readFileSync(path.join(CORPUS, relative), 'utf8'), relative);
  if (isTemplateFailure(parsed)) throw new Error(`${relative}: ${parsed.reason}`);
  return parsed;
}

/** A gate that lets everything through and records what it was told. */
function recordingGate(): HostGate & { errors: number; answers: number } {
  return {
    errors: 0,
    answers: 0,
    run: (_host, send) => send(),
    answered() {
      this.answers++;
    },
    networkError() {
      this.errors++;
    },
    isSkipped: () => false,
  };
}

function context(overrides: Partial<ExecutionContext> = {}): ExecutionContext {
  return {
    egress: LOOPBACK_EGRESS,
    signal: new AbortController().signal,
    gate: recordingGate(),
    timeoutMs: 3000,
    templatesDir: CORPUS,
    vars: {},
    cache: { get: async (_key, produce) => ({ value: await produce(), shared: false }) },
    ...overrides,
  };
}

function service(port: number, overrides: Partial<ServiceTarget> = {}): ServiceTarget {
  return { host: '127.0.0.1', address: '127.0.0.1', port, scheme: null, tls: false, basePath: '/', ...overrides };
}


describe('nuclei tcp executor', { skip }, () => {
  it('fires a banner template on a matching banner and extracts the version; a near miss does not fire', async () => {
    const openssh = template('network/detection/openssh-detect.yaml');
    const real = await startServer((socket) => socket.write('SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n'));
    const miss = await startServer((socket) => socket.write('SSH-2.0-dropbear_2022.83\r\n'));
    try {
      const hit = await runTcpTemplate(openssh, service(real.port), context());
      assert.equal(hit.matches.length, 1);
      assert.equal(hit.matches[0]!.protocol, 'tcp');
      assert.equal(hit.matches[0]!.matchedAt, `127.0.0.1:${real.port}`);
      assert.deepEqual(hit.matches[0]!.extracted, ['SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13']);
      assert.equal(hit.requestsSent, 1);
      const none = await runTcpTemplate(openssh, service(miss.port), context());
      assert.deepEqual(none.matches, []);
      assert.equal(none.requestsSent, 1);
    } finally {
      await real.close();
      await miss.close();
    }
  });

  it('reaches an IPv6 service, matched at its bracketed address', async () => {
    const server = await startServer((socket) => socket.write('SSH-2.0-OpenSSH_9.6\r\n'), undefined, '::1');
    try {
      const outcome = await runTcpTemplate(template('network/detection/openssh-detect.yaml'), service(server.port, { host: '::1', address: '::1' }), context());
      assert.deepEqual(outcome.matches.map((m) => m.matchedAt), [`[::1]:${server.port}`]);
    } finally {
      await server.close();
    }
  });

  it('sends a text input and matches the reply case-insensitively (mysql-detect)', async () => {
    const mysql = template('network/detection/mysql-detect.yaml');
    const server = await startServer(replyOnData(Buffer.concat([Buffer.from([0x4a, 0, 0, 0, 0x0a]), Buffer.from('8.0.36-MySQL Community\0')])));
    try {
      const outcome = await runTcpTemplate(mysql, service(server.port), context());
      assert.equal(outcome.matches.length, 1);
      assert.equal(Buffer.concat(server.received).toString(), '\n');
    } finally {
      await server.close();
    }
  });

  it('decodes a hex input, and a binary matcher fires only on the expected bytes (MQTT CONNACK)', async () => {
    const dionaea = template('network/honeypot/dionaea-mqtt-honeypot-detect.yaml');
    const accepted = await startServer(replyOnData(Buffer.from('20020000', 'hex')));
    const refused = await startServer(replyOnData(Buffer.from('20020005', 'hex')));
    try {
      const hit = await runTcpTemplate(dionaea, service(accepted.port), context());
      assert.equal(hit.matches.length, 1);
      assert.equal(Buffer.concat(accepted.received).toString('hex'), '101000044d5154540502003c032100140000');
      const none = await runTcpTemplate(dionaea, service(refused.port), context());
      assert.deepEqual(none.matches, []);
    } finally {
      await accepted.close();
      await refused.close();
    }
  });
});

describe('nuclei tcp executor over TLS', { skip: skip || (hasOpenssl() ? false : 'openssl CLI not found (test certificates)') }, () => {
  let pki: TestPki;
  before(() => {
    pki = new TestPki();
  });
  after(() => pki.cleanup());

  it('runs a tls:// block through TLS, while its plain block gets nothing from the TLS port (weblogic-t3-detect)', async () => {
    const weblogic = template('network/detection/weblogic-t3-detect.yaml');
    const server = await startServer(replyOnData('HELO:12.2.1.3.0.false\nAS:2048\nHL:19\n\n'), pki.issue({ cn: 'weblogic.test' }));
    try {
      const outcome = await runTcpTemplate(weblogic, service(server.port), context());
      assert.equal(outcome.matches.length, 1);
      assert.deepEqual(outcome.matches[0]!.extracted, ['12.2.1.3.0']);
      assert.match(outcome.matches[0]!.request!, /^t3s 12\.2\.1/);
      assert.equal(outcome.requestsSent, 2);
    } finally {
      await server.close();
    }
  });
});

describe('nuclei network executors: the address guard', { skip }, () => {
  it('sends nothing to a host the gate has skipped, and stops at an abort', async () => {
    const server = await startServer((socket) => socket.write('SSH-2.0-OpenSSH_9.6\r\n'));
    const openssh = template('network/detection/openssh-detect.yaml');
    try {
      const skipped = await runTcpTemplate(openssh, service(server.port), context({ gate: { ...recordingGate(), isSkipped: () => true } }));
      assert.equal(skipped.requestsSent, 0);
      const aborted = new AbortController();
      aborted.abort(new Error('run cancelled'));
      await assert.rejects(runTcpTemplate(openssh, service(server.port), context({ signal: aborted.signal })), /run cancelled/);
      assert.equal(server.connections(), 0);
    } finally {
      await server.close();
    }
  });

  it('counts a closed port against the host (a network error for the gate)', async () => {
    const closed = await startServer(() => undefined);
    const port = closed.port;
    await closed.close();
    const gate = recordingGate();
    const outcome = await runTcpTemplate(template('network/detection/openssh-detect.yaml'), service(port), context({ gate }));
    assert.deepEqual([outcome.matches.length, gate.errors, gate.answers], [0, 1, 0]);
  });

  it('sends nothing to an address the egress refuses, and says why in a note', async () => {
    const server = await startServer((socket) => socket.write('SSH-2.0-OpenSSH_9.6\r\n'));
    const refusing = createEgress({ guard: createAddressGuard(['10.0.0.0/8']) });
    try {
      const outcome = await runTcpTemplate(template('network/detection/openssh-detect.yaml'), service(server.port), context({ egress: refusing }));
      assert.deepEqual(outcome.matches, []);
      assert.equal(outcome.requestsSent, 0);
      assert.equal(server.connections(), 0);
      assert.match(outcome.notes.join('\n'), /refused: 127\.0\.0\.1/);
    } finally {
      await server.close();
    }
  });
});


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


describe('nuclei dns executor', { skip }, () => {
  it('azure-takeover-detection fires on a dangling CNAME to azurewebsites.net (NXDOMAIN) and extracts it; not when it resolves', async () => {
    const dangling = await startResolver((name) => ({ rcode: NXDOMAIN, answers: [cname(name, 'rampart-gone.azurewebsites.net')] }));
    const alive = await startResolver((name) => ({
      answers: [cname(name, 'rampart-live.azurewebsites.net'), { type: 'A', name: 'rampart-live.azurewebsites.net', ttl: 60, class: 'IN', data: '20.1.2.3' }],
    }));
    const azure = template('dns/azure-takeover-detection.yaml');
    const host = { host: 'shop.victim.test', address: '192.0.2.10' };
    try {
      const hit = await runDnsTemplate(azure, service(443, host), context({ resolvers: [dangling.resolver] }));
      assert.equal(hit.matches.length, 1);
      assert.equal(hit.matches[0]!.protocol, 'dns');
      assert.equal(hit.matches[0]!.matchedAt, 'shop.victim.test');
      assert.deepEqual(hit.matches[0]!.extracted, ['rampart-gone.azurewebsites.net']);
      assert.deepEqual(dangling.questions, ['A shop.victim.test']);
      // The answer as miekg/dns prints it: templates match regexes on this text.
      assert.match(hit.matches[0]!.response!, /^;; opcode: QUERY, status: NXDOMAIN, id: \d+\n;; flags: qr rd ra; QUERY: 1, ANSWER: 1, AUTHORITY: 0, ADDITIONAL: 0\n/);
      assert.match(hit.matches[0]!.response!, /\n;; QUESTION SECTION:\n;shop\.victim\.test\.\tIN\t A\n\n;; ANSWER SECTION:\nshop\.victim\.test\.\t300\tIN\tCNAME\trampart-gone\.azurewebsites\.net\.\n$/);
      assert.match(hit.matches[0]!.request!, /;; flags: rd; QUERY: 1, ANSWER: 0, AUTHORITY: 0, ADDITIONAL: 1\n\n;; OPT PSEUDOSECTION:\n; EDNS: version 0; flags:; udp: 4096\n/);
      const none = await runDnsTemplate(azure, service(443, host), context({ resolvers: [alive.resolver] }));
      assert.deepEqual(none.matches, []);
    } finally {
      await dangling.close();
      await alive.close();
    }
  });

  it('names the SaaS behind a CNAME (dns-saas-service-detection: one match per named matcher)', async () => {
    const resolver = await startResolver((name) => ({ answers: [cname(name, 'victim.zendesk.com')] }));
    try {
      const outcome = await runDnsTemplate(template('dns/dns-saas-service-detection.yaml'), service(80, { host: 'help.victim.test' }), context({ resolvers: [resolver.resolver] }));
      assert.deepEqual(outcome.matches.map((m) => m.matcherName), ['zendesk']);
      assert.deepEqual(resolver.questions, ['CNAME help.victim.test']);
    } finally {
      await resolver.close();
    }
  });

  it('asks one TXT question per payload value, over TCP when the UDP answer is truncated (dkim-record-detect)', async () => {
    const key = 'v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC7vbqajDw4o6gJy8UtmIbkcpnk';
    const resolver = await startResolver((name) =>
      name === 'selector1._domainkey.victim.test' ? { truncate: true, answers: [{ type: 'TXT', name, ttl: 300, class: 'IN', data: [key] }] } : { rcode: NXDOMAIN },
    );
    try {
      const outcome = await runDnsTemplate(template('dns/dkim-record-detect.yaml'), service(25, { host: 'victim.test' }), context({ resolvers: [resolver.resolver] }));
      assert.equal(outcome.requestsSent, 10);
      assert.equal(outcome.matches.length, 1);
      assert.deepEqual(outcome.matches[0]!.payload, { selector: 'selector1' });
      // The regex `v=DKIM1(.+)` runs on the printed record, quotes included, as upstream's does.
      assert.deepEqual(outcome.matches[0]!.extracted, [`${key}"`]);
      assert.ok(resolver.questions.includes('TXT selector1._domainkey.victim.test tcp'));
    } finally {
      await resolver.close();
    }
  });

  it('asks the reverse name of an address for PTR templates (ptr-fingerprint)', async () => {
    const resolver = await startResolver((name, type) =>
      type === 'PTR' && name === '10.2.0.192.in-addr.arpa' ? { answers: [{ type: 'PTR', name, ttl: 60, class: 'IN', data: 'mail.victim.test' }] } : { rcode: NXDOMAIN },
    );
    try {
      const outcome = await runDnsTemplate(template('dns/ptr-fingerprint.yaml'), service(25, { host: '192.0.2.10', address: '192.0.2.10' }), context({ resolvers: [resolver.resolver] }));
      assert.deepEqual(outcome.matches.map((m) => m.extracted), [['mail.victim.test.']]);
    } finally {
      await resolver.close();
    }
  });

  it('prints CAA, MX, SOA and TXT records as miekg/dns does (the fingerprint templates match and extract on these texts)', async () => {
    const spf = 'v=spf1 include:_spf.victim.test ~all';
    const resolver = await startResolver((name, type) => {
      const records: Record<string, Answer[]> = {
        CAA: [{ type: 'CAA', name, ttl: 300, class: 'IN', data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' } }],
        TXT: [{ type: 'TXT', name, ttl: 300, class: 'IN', data: [spf] }, { type: 'TXT', name, ttl: 300, class: 'IN', data: ['say "hi"\\'] }],
        MX: [{ type: 'MX', name, ttl: 300, class: 'IN', data: { preference: 10, exchange: 'mx1.victim.test' } }],
        SOA: [{ type: 'SOA', name, ttl: 3600, class: 'IN', data: { mname: 'amy.ns.cloudflare.com', rname: 'dns.cloudflare.com', serial: 2024010101, refresh: 7200, retry: 3600, expire: 1209600, minimum: 300 } }],
      };
      return { answers: records[type] ?? [] };
    });
    const on = service(443, { host: 'victim.test' });
    const ctx = context({ resolvers: [resolver.resolver] });
    try {
      const caa = await runDnsTemplate(template('dns/caa-fingerprint.yaml'), on, ctx);
      assert.deepEqual(caa.matches[0]?.extracted, ['letsencrypt.org']);
      assert.match(caa.matches[0]!.response!, /\nvictim\.test\.\t300\tIN\tCAA\t0 issue "letsencrypt\.org"\n/);
      const txt = await runDnsTemplate(template('dns/txt-fingerprint.yaml'), on, ctx);
      assert.deepEqual(txt.matches[0]?.extracted, [`"${spf}"`, '"say \\"hi\\"\\\\"']);
      const mx = await runDnsTemplate(template('dns/mx-fingerprint.yaml'), on, ctx);
      assert.match(mx.matches[0]?.response ?? '', /\tIN\tMX\t10 mx1\.victim\.test\.\n/);
      const soa = await runDnsTemplate(template('dns/soa-detect.yaml'), on, ctx);
      assert.deepEqual(soa.matches.map((m) => m.matcherName), ['cloudflare']);
      assert.match(soa.matches[0]?.response ?? '', /\tIN\tSOA\tamy\.ns\.cloudflare\.com\. dns\.cloudflare\.com\. 2024010101 7200 3600 1209600 300\n/);
    } finally {
      await resolver.close();
    }
  });

  it('skips a service named by an address, with a note, and asks nothing', async () => {
    const resolver = await startResolver(() => ({ rcode: NXDOMAIN }));
    try {
      const outcome = await runDnsTemplate(template('dns/azure-takeover-detection.yaml'), service(443), context({ resolvers: [resolver.resolver] }));
      assert.deepEqual(outcome.matches, []);
      assert.equal(outcome.requestsSent, 0);
      assert.deepEqual(resolver.questions, []);
      assert.match(outcome.notes.join('\n'), /need a host name; 127\.0\.0\.1 is an address/);
    } finally {
      await resolver.close();
    }
  });
});

describe('nuclei network executors: addresses and ports', { skip }, () => {
  it('splits host:port as Go does, plus an unbracketed IPv6 address; reads a template port list; reverses addresses', () => {
    assert.deepEqual(splitHostPort('example.com:21'), { host: 'example.com', port: '21' });
    assert.deepEqual(splitHostPort('[::1]:443'), { host: '::1', port: '443' });
    assert.deepEqual(splitHostPort('2001:db8::1:443'), { host: '2001:db8::1', port: '443' });
    assert.equal(splitHostPort('example.com'), undefined);
    assert.equal(splitHostPort('a:b:c'), undefined);
    const block = template('network/detection/esmtp-detect.yaml').tcp[0]!;
    assert.deepEqual(templatePorts({ ...block, port: '25, 2525,465,587,x' }), [25, 2525, 465, 587]);
    assert.equal(reverseName('192.0.2.10'), '10.2.0.192.in-addr.arpa.');
    assert.equal(reverseName('2001:db8::1'), `1.0.0.0.${'0.'.repeat(20)}8.b.d.0.1.0.0.2.ip6.arpa.`);
  });
});
