/**
 * The nuclei tcp executor with REAL community templates from ../shared against loopback servers the
 * tests start: a product banner that must fire and a near miss that must not, a text and a hex
 * input, tls:// entries, IPv6; and the guard: an address the egress refuses receives nothing, a
 * skipped host nothing either, an abort stops the run. The ssl and dns executors have their own files.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAddressGuard } from '../src/shared/address-guard.js';
import { createEgress } from '../src/shared/egress.js';
import { reverseName } from '../src/engines/nuclei/execute/dns.js';
import { splitHostPort } from '../src/engines/nuclei/execute/network-vars.js';
import { runTcpTemplate, templatePorts } from '../src/engines/nuclei/execute/tcp.js';
import { isTemplateFailure, parseTemplate } from '../src/engines/nuclei/templates/parse-template.js';
import type { Template } from '../src/engines/nuclei/templates/template.types.js';
import { replyOnData, startServer } from './helpers/network-servers.js';
import { context, service, skip, template } from './helpers/nuclei-executor.js';
import { CORPUS, openGate } from './helpers/nuclei-http.js';
import { hasOpenssl, TestPki } from './helpers/pki.js';

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

  it('sends the exact bytes of {{hex_decode(...)}} in a text input and matches binary replies (java-rmi-detect)', async () => {
    const ack = Buffer.concat([Buffer.from([0x4e, 0x00, 0x0e]), Buffer.from('192.168.100.10'), Buffer.from([0x00, 0x00, 0xc3, 0x50])]);
    const rmi = await startServer(replyOnData(ack));
    const other = await startServer(replyOnData(Buffer.from([0x4f, 0x00])));
    try {
      const hit = await runTcpTemplate(template('network/detection/java-rmi-detect.yaml'), service(rmi.port), context());
      assert.equal(Buffer.concat(rmi.received).toString('hex'), '4a524d4900024b');
      assert.equal(hit.matches.length, 1);
      assert.deepEqual((await runTcpTemplate(template('network/detection/java-rmi-detect.yaml'), service(other.port), context())).matches, []);
    } finally {
      await rmi.close();
      await other.close();
    }
  });

  it('reads `read: N` bytes after an input, then the rest, and matches on every read (beanstalk-service, part raw)', async () => {
    const stats = 'OK 64\r\n---\ncurrent-jobs-urgent: 0\ncmd-peek: 0\ncmd-release: 0\n\r\n';
    const server = await startServer(replyOnData(stats));
    try {
      const outcome = await runTcpTemplate(template('network/enumeration/beanstalk-service.yaml'), service(server.port), context());
      assert.equal(outcome.matches.length, 1);
      assert.equal(outcome.matches[0]!.response, stats);
      assert.equal(Buffer.concat(server.received).toString(), 'stats\r\n');
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

/** A template parsed from text (a corpus template rewritten, or one written here). */
function parsed(text: string, name: string): Template {
  const result = parseTemplate(text, name);
  if (isTemplateFailure(result)) throw new Error(`${name}: ${result.reason}`);
  return result;
}

describe('nuclei tcp executor: only the service it runs on', { skip }, () => {
  it('connects to a fixed-port entry only on the service at that port, and reports the match there (CVE-2020-1938)', async () => {
    const ajp = await startServer(replyOnData('<!-- See the NOTICE file distributed with this work -->'));
    const ssh = await startServer((socket) => socket.write('SSH-2.0-OpenSSH_9.6\r\n'));
    // The real template, its `{{Host}}:8009` pointed at the test's AJP listener.
    const text = readFileSync(path.join(CORPUS, 'network/cves/2020/CVE-2020-1938.yaml'), 'utf8').replace('{{Host}}:8009', `{{Host}}:${ajp.port}`);
    const ghostcat = parsed(text, 'CVE-2020-1938.yaml');
    try {
      const onSsh = await runTcpTemplate(ghostcat, service(ssh.port), context());
      assert.deepEqual(onSsh.matches, [], 'no finding on the SSH service for a listener on another port');
      assert.equal(ajp.connections(), 0, 'the other port is not connected to from the SSH service');
      const onAjp = await runTcpTemplate(ghostcat, service(ajp.port), context());
      assert.deepEqual(onAjp.matches.map((m) => m.matchedAt), [`127.0.0.1:${ajp.port}`]);
      assert.equal(ajp.connections(), 1, '{{Hostname}} and {{Host}}:<port> are the same address, connected once');
    } finally {
      await ajp.close();
      await ssh.close();
    }
  });

  it('template variables never override the helper variables Host, Port, Hostname', async () => {
    const server = await startServer(replyOnData('pong'));
    const echo = parsed(
      ['id: vars-echo', 'info:', '  name: v', '  severity: info', 'variables:', '  Host: "evil.example"', '  Port: "1"', 'tcp:', '  - host:', '      - "{{Hostname}}"',
        '    inputs:', '      - data: "{{Host}} {{Port}}"', '    matchers:', '      - type: word', '        words:', '          - "pong"', ''].join('\n'),
      'vars-echo.yaml',
    );
    try {
      const outcome = await runTcpTemplate(echo, service(server.port), context());
      assert.equal(outcome.matches.length, 1);
      assert.equal(Buffer.concat(server.received).toString(), `127.0.0.1 ${server.port}`);
    } finally {
      await server.close();
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

  it('runs a plain {{Hostname}} entry through TLS on a service found speaking TLS (openssh-detect)', async () => {
    const server = await startServer((socket) => socket.write('SSH-2.0-OpenSSH_9.6\r\n'), pki.issue({ cn: 'ssh.test' }));
    try {
      const outcome = await runTcpTemplate(template('network/detection/openssh-detect.yaml'), service(server.port, { tls: true }), context());
      assert.deepEqual(outcome.matches.map((m) => m.matchedAt), [`127.0.0.1:${server.port}`]);
      assert.deepEqual(outcome.notes, []);
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
      const skipped = await runTcpTemplate(openssh, service(server.port), context({ gate: { ...openGate(), isSkipped: () => true } }));
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
    const gate = openGate();
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

