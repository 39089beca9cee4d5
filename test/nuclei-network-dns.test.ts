/**
 * The nuclei dns executor with REAL community dns templates against a loopback resolver the tests
 * start (UDP and TCP): a takeover-prone dangling CNAME and a near miss, named matchers, payloads in
 * the name, truncation, PTR for an address, records printed as miekg/dns does.
 */
import assert from 'node:assert/strict';
import type { Answer } from 'dns-packet';
import { describe, it } from 'node:test';
import { runDnsTemplate } from '../src/engines/nuclei/execute/dns.js';
import { cname, NXDOMAIN, startResolver } from './helpers/network-servers.js';
import { context, service, skip, template } from './helpers/nuclei-executor.js';

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

