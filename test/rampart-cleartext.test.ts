/**
 * The cleartext check against scripted Telnet, SMTP, POP3 and IMAP servers (each with and
 * without a TLS upgrade on offer) and a real vsftpd without TLS. Nothing leaves 127.0.0.1.
 */
import assert from 'node:assert/strict';
import type net from 'node:net';
import { test, type TestContext } from 'node:test';
import { cleartextCheck, describeTelnet } from '../src/engines/rampart/checks/cleartext.js';
import { loopbackEndpoint, onLines, serviceInfo, startScriptedServer, startVsftpd } from './helpers/daemons.js';
import { closedPort } from './helpers/servers.js';

/** A scripted line server: `greeting` on connect, then `reply(line)` for each line (ending the connection on QUIT/LOGOUT). */
async function startLineServer(t: TestContext, greeting: string, reply: (line: string) => string) {
  const received: string[] = [];
  const server = await startScriptedServer(t, (socket: net.Socket) => {
    socket.write(greeting);
    onLines(socket, (line) => {
      received.push(line);
      const answer = reply(line);
      if (/^(\S+ )?(QUIT|LOGOUT)$/i.test(line)) socket.end(answer);
      else socket.write(answer);
    });
  });
  return { server, received };
}

function smtp(startTls: boolean) {
  return (line: string): string => {
    if (line.startsWith('EHLO')) return `250-mail.example.test Hello\r\n250-PIPELINING\r\n250-SIZE 10240000\r\n${startTls ? '250-STARTTLS\r\n' : ''}250 8BITMIME\r\n`;
    if (line === 'QUIT') return '221 Bye\r\n';
    return '502 Command not implemented\r\n';
  };
}

function pop3(stls: boolean) {
  return (line: string): string => {
    if (line === 'CAPA') return `+OK Capability list follows\r\nUSER\r\nUIDL\r\nTOP\r\n${stls ? 'STLS\r\n' : ''}.\r\n`;
    if (line === 'QUIT') return '+OK Bye\r\n';
    return '-ERR Unknown command\r\n';
  };
}

function imap(startTls: boolean) {
  return (line: string): string => {
    const [tag, command] = line.split(' ');
    if (command === 'CAPABILITY') return `* CAPABILITY IMAP4rev1 SASL-IR LITERAL+ ${startTls ? 'STARTTLS ' : ''}AUTH=PLAIN\r\n${tag} OK Capability completed.\r\n`;
    if (command === 'LOGOUT') return `* BYE Logging out\r\n${tag} OK Logout completed.\r\n`;
    return `${tag} BAD Error in IMAP command\r\n`;
  };
}

test('Telnet: High cleartext finding describing the option negotiation', async (t) => {
  const telnet = await startScriptedServer(t, (socket) => socket.write(Buffer.concat([Buffer.from([255, 253, 24, 255, 251, 1]), Buffer.from('\r\nlogin: ')])));
  const findings = await cleartextCheck.run(loopbackEndpoint(telnet.port), serviceInfo('telnet'));
  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.threat, f.cwe]),
    [['rampart:telnet-cleartext', 'High', 'CWE-319']],
  );
  assert.match(findings[0]?.evidence ?? '', /IAC DO TERMINAL-TYPE, IAC WILL ECHO, "\\r\\nlogin: "/);
  await telnet.allClosed();
});

test('describeTelnet keeps unknown options as numbers and a lone IAC as text', () => {
  assert.equal(describeTelnet(Buffer.from([255, 254, 200])), 'IAC DONT 200');
  assert.equal(describeTelnet(Buffer.from([0x41, 255])), JSON.stringify('A\u00ff'));
});

test('SMTP without STARTTLS: finding listing the EHLO keywords; with STARTTLS: none', async (t) => {
  const plain = await startLineServer(t, '220 mail.example.test ESMTP\r\n', smtp(false));
  const findings = await cleartextCheck.run(loopbackEndpoint(plain.server.port), serviceInfo('smtp'));
  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.threat]),
    [['rampart:smtp-no-starttls', 'Medium']],
  );
  assert.match(findings[0]?.evidence ?? '', /EHLO answered without STARTTLS: PIPELINING, SIZE 10240000, 8BITMIME/);
  await plain.server.allClosed();
  assert.deepEqual(plain.received, ['EHLO rampart.local', 'QUIT']);

  const secure = await startLineServer(t, '220 mail.example.test ESMTP\r\n', smtp(true));
  assert.deepEqual(await cleartextCheck.run(loopbackEndpoint(secure.server.port), serviceInfo('smtp')), []);
});

test('SMTP refusing EHLO with a 5xx (no ESMTP): finding; with a 4xx: no verdict', async (t) => {
  const old = await startLineServer(t, '220 old.example.test SMTP\r\n', (line) => (line === 'QUIT' ? '221 Bye\r\n' : '500 Command unrecognized\r\n'));
  const findings = await cleartextCheck.run(loopbackEndpoint(old.server.port), serviceInfo('smtp'));
  assert.match(findings[0]?.evidence ?? '', /EHLO refused \(500 Command unrecognized\)/);

  const busy = await startLineServer(t, '220 busy.example.test ESMTP\r\n', (line) => (line === 'QUIT' ? '221 Bye\r\n' : '421 Try again later\r\n'));
  assert.deepEqual(await cleartextCheck.run(loopbackEndpoint(busy.server.port), serviceInfo('smtp')), []);
});

test('POP3 without STLS: finding; with STLS: none', async (t) => {
  const plain = await startLineServer(t, '+OK POP3 ready\r\n', pop3(false));
  const findings = await cleartextCheck.run(loopbackEndpoint(plain.server.port), serviceInfo('pop3'));
  assert.deepEqual(
    findings.map((f) => f.ruleId),
    ['rampart:pop3-no-starttls'],
  );
  assert.match(findings[0]?.evidence ?? '', /CAPA answered without STLS: USER, UIDL, TOP/);

  const secure = await startLineServer(t, '+OK POP3 ready\r\n', pop3(true));
  assert.deepEqual(await cleartextCheck.run(loopbackEndpoint(secure.server.port), serviceInfo('pop3')), []);
});

test('IMAP without STARTTLS: finding; with STARTTLS: none', async (t) => {
  const plain = await startLineServer(t, '* OK IMAP4rev1 ready\r\n', imap(false));
  const findings = await cleartextCheck.run(loopbackEndpoint(plain.server.port), serviceInfo('imap'));
  assert.deepEqual(
    findings.map((f) => f.ruleId),
    ['rampart:imap-no-starttls'],
  );
  assert.match(findings[0]?.evidence ?? '', /CAPABILITY answered without STARTTLS: IMAP4rev1 SASL-IR LITERAL\+ AUTH=PLAIN/);

  const secure = await startLineServer(t, '* OK IMAP4rev1 ready\r\n', imap(true));
  assert.deepEqual(await cleartextCheck.run(loopbackEndpoint(secure.server.port), serviceInfo('imap')), []);
});

test('vsftpd without TLS: FTP finding (FEAT lacks AUTH TLS)', async (t) => {
  const ftp = await startVsftpd(t);
  if (!ftp) return;
  const findings = await cleartextCheck.run(loopbackEndpoint(ftp.port), serviceInfo('ftp'));
  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.threat]),
    [['rampart:ftp-no-starttls', 'Medium']],
  );
  assert.match(findings[0]?.evidence ?? '', /FEAT answered without AUTH TLS: .*PASV/);
});

test('an FTP server advertising AUTH TLS in FEAT: no finding', async (t) => {
  const ftp = await startLineServer(t, '220 FTP ready\r\n', (line) =>
    line === 'FEAT' ? '211-Features:\r\n AUTH TLS\r\n PBSZ\r\n PROT\r\n UTF8\r\n211 End\r\n' : '221 Goodbye\r\n',
  );
  assert.deepEqual(await cleartextCheck.run(loopbackEndpoint(ftp.server.port), serviceInfo('ftp')), []);
});

test('service detection\'s starttls detail is used without probing again', async (t) => {
  const port = await closedPort();
  const findings = await cleartextCheck.run(loopbackEndpoint(port), serviceInfo('smtp', { details: { starttls: 'no' } }));
  assert.deepEqual(
    findings.map((f) => f.ruleId),
    ['rampart:smtp-no-starttls'],
  );
  assert.match(findings[0]?.evidence ?? '', /Service detection reported/);

  const listening = await startLineServer(t, '220 mail ESMTP\r\n', smtp(false));
  assert.deepEqual(await cleartextCheck.run(loopbackEndpoint(listening.server.port), serviceInfo('smtp', { details: { starttls: 'yes' } })), []);
  assert.equal(listening.server.connections, 0, 'no connection when detection already knows');
});

test('a silent or vanished server gives no finding', async (t) => {
  const silent = await startScriptedServer(t, () => undefined);
  for (const name of ['smtp', 'pop3', 'imap', 'ftp']) {
    assert.deepEqual(await cleartextCheck.run(loopbackEndpoint(silent.port, { readTimeoutMs: 100 }), serviceInfo(name)), [], name);
  }
  await silent.allClosed();
  assert.deepEqual(await cleartextCheck.run(loopbackEndpoint(await closedPort()), serviceInfo('telnet')), []);
});

test('applies to Telnet, FTP, SMTP, POP3 and IMAP in the clear only', () => {
  for (const name of ['telnet', 'ftp', 'smtp', 'pop3', 'imap']) {
    assert.equal(cleartextCheck.appliesTo(serviceInfo(name)), true, name);
    assert.equal(cleartextCheck.appliesTo(serviceInfo(name, { tls: true })), false, `${name} over TLS`);
  }
  assert.equal(cleartextCheck.appliesTo(serviceInfo('ssh')), false);
  assert.equal(cleartextCheck.appliesTo(serviceInfo('toString')), false);
});
