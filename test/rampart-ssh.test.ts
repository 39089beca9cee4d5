/**
 * The SSH algorithm check against real OpenSSH servers (openssh-server) started on loopback, and
 * against scripted servers for what a current OpenSSH cannot be made to offer (Terrapin without
 * strict kex, SSH-1, a malformed KEXINIT). Nothing leaves 127.0.0.1.
 */
import assert from 'node:assert/strict';
import type net from 'node:net';
import { test } from 'node:test';
import type { CheckFinding } from '../src/engines/rampart/checks/check.js';
import { assessAuthMethods, sshAuthMethodsCheck } from '../src/engines/rampart/checks/ssh-auth.js';
import { parseKexInit, sshCheck, terrapinNotAffected } from '../src/engines/rampart/checks/ssh.js';
import { loopbackEndpoint, onLines, serviceInfo, startScriptedServer, startSshd } from './helpers/daemons.js';

const ssh = serviceInfo('ssh');

function byRule(findings: CheckFinding[], ruleId: string): CheckFinding | undefined {
  return findings.find((f) => f.ruleId === ruleId);
}

/** A server KEXINIT packet (unencrypted, padded to 8 bytes) offering these ten name-lists. */
function kexInitPacket(lists: string[]): Buffer {
  const parts = [Buffer.from([20]), Buffer.alloc(16, 7)];
  for (const list of lists) {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(Buffer.byteLength(list));
    parts.push(length, Buffer.from(list));
  }
  parts.push(Buffer.from([0, 0, 0, 0, 0])); // first_kex_packet_follows, reserved
  const payload = Buffer.concat(parts);
  let padding = 8 - ((5 + payload.length) % 8);
  if (padding < 4) padding += 8;
  const header = Buffer.alloc(5);
  header.writeUInt32BE(1 + payload.length + padding);
  header[4] = padding;
  return Buffer.concat([header, payload, Buffer.alloc(padding)]);
}

function offer(kex: string, hostKey: string, cipher: string, mac: string): string[] {
  return [kex, hostKey, cipher, cipher, mac, mac, 'none', 'none', '', ''];
}

/** A fake SSH server: identification, then (after the client's) the given KEXINIT; records what the client sent. */
async function startFakeSsh(t: Parameters<typeof startScriptedServer>[0], ident: string, packet: Buffer | null) {
  const received: Buffer[] = [];
  const server = await startScriptedServer(t, (socket: net.Socket) => {
    socket.write(`${ident}\r\n`);
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      if (packet && Buffer.concat(received).includes('\r\n')) {
        socket.write(packet);
        packet = null;
      }
    });
  });
  return { server, received: () => Buffer.concat(received) };
}

test('sshd offering CBC, hmac-sha1 and group14-sha1: weak cipher, MAC and kex findings', async (t) => {
  const sshd = await startSshd(t, ['Ciphers=aes128-cbc,aes256-ctr', 'MACs=hmac-sha1,hmac-sha2-256', 'KexAlgorithms=diffie-hellman-group14-sha1,curve25519-sha256']);
  if (!sshd) return;
  const findings = await sshCheck.run(loopbackEndpoint(sshd.port), ssh);

  const cipher = byRule(findings, 'rampart:ssh-weak-cipher');
  assert.ok(cipher, 'weak cipher finding');
  assert.match(cipher.evidence, /Weak: aes128-cbc\./);
  assert.doesNotMatch(cipher.evidence, /Weak: [^.]*aes256-ctr/);
  assert.match(cipher.evidence, /Server identification: SSH-2\.0-OpenSSH_/);
  assert.equal(cipher.threat, 'Low');
  assert.equal(cipher.cwe, 'CWE-327');
  assert.deepEqual(cipher.cve, []);

  const mac = byRule(findings, 'rampart:ssh-weak-mac');
  assert.ok(mac, 'weak MAC finding');
  assert.match(mac.evidence, /Weak: hmac-sha1\./);

  const kex = byRule(findings, 'rampart:ssh-weak-kex');
  assert.ok(kex, 'weak kex finding');
  assert.match(kex.evidence, /Weak: diffie-hellman-group14-sha1\./);
  assert.equal(kex.threat, 'Low');

  // Ed25519 host key only; this OpenSSH has strict kex (and no EtM MAC is offered with CBC here).
  assert.equal(byRule(findings, 'rampart:ssh-weak-hostkey'), undefined);
  assert.equal(byRule(findings, 'rampart:ssh-terrapin'), undefined);
});

test('sshd with its default algorithms: no weak cipher, kex or host key, no Terrapin', async (t) => {
  const sshd = await startSshd(t);
  if (!sshd) return;
  const notAffected = new Map<string, string>();
  const findings = await sshCheck.run(loopbackEndpoint(sshd.port), ssh, { notAffected: (cve, reason) => void notAffected.set(cve, reason) });
  for (const ruleId of ['rampart:ssh-weak-cipher', 'rampart:ssh-weak-kex', 'rampart:ssh-weak-hostkey', 'rampart:ssh-terrapin', 'rampart:ssh-protocol-v1']) {
    assert.equal(byRule(findings, ruleId), undefined, `${ruleId}: ${JSON.stringify(byRule(findings, ruleId))}`);
  }
  // Debian's 9.2p1 offers chacha20-poly1305 and, patched, strict kex: a protocol fact that beats the version.
  assert.match(notAffected.get('CVE-2023-48795') ?? '', /offers strict key exchange \(kex-strict-s-v00@openssh\.com\)/);
});

test('Terrapin facts: strict kex or no affected mode disproves it; chacha20 without strict kex does not', () => {
  const offer = (kex: string[], ciphers: string[], macs: string[] = ['hmac-sha2-256']) => ({ kex, hostKey: ['ssh-ed25519'], ciphers, macs, compression: ['none'] });
  assert.match(terrapinNotAffected(offer(['curve25519-sha256', 'kex-strict-s-v00@openssh.com'], ['chacha20-poly1305@openssh.com']))!, /strict key exchange/);
  assert.match(terrapinNotAffected(offer(['curve25519-sha256'], ['aes256-ctr', 'aes128-cbc']))!, /none of the modes/);
  assert.equal(terrapinNotAffected(offer(['curve25519-sha256'], ['chacha20-poly1305@openssh.com'])), null);
  assert.equal(terrapinNotAffected(offer(['curve25519-sha256'], ['aes128-cbc'], ['hmac-sha2-256-etm@openssh.com'])), null);
});

test('chacha20-poly1305 without strict kex is reported as Terrapin (CVE-2023-48795); the client identifies itself and disconnects', async (t) => {
  const packet = kexInitPacket(offer('curve25519-sha256,ext-info-s', 'ssh-ed25519,ssh-rsa', 'chacha20-poly1305@openssh.com,aes128-ctr', 'hmac-sha2-256-etm@openssh.com'));
  const { server, received } = await startFakeSsh(t, 'SSH-2.0-OpenSSH_9.3', packet);
  const findings = await sshCheck.run(loopbackEndpoint(server.port), ssh);

  const terrapin = byRule(findings, 'rampart:ssh-terrapin');
  assert.ok(terrapin, 'Terrapin finding');
  assert.deepEqual(terrapin.cve, ['CVE-2023-48795']);
  assert.match(terrapin.evidence, /lacks kex-strict-s-v00@openssh\.com/);
  const hostKey = byRule(findings, 'rampart:ssh-weak-hostkey');
  assert.ok(hostKey, 'ssh-rsa host key finding');
  assert.match(hostKey.evidence, /Weak: ssh-rsa\./);

  await server.allClosed();
  const sent = received();
  assert.ok(sent.subarray(0, 25).equals(Buffer.from('SSH-2.0-Rampart_Scanner\r\n')), sent.toString('latin1'));
  assert.equal(sent[25 + 5], 1, 'an SSH_MSG_DISCONNECT follows the identification');
});

test('CBC with an EtM MAC but strict kex offered: no Terrapin finding; 3DES and DSA are Medium', async (t) => {
  const packet = kexInitPacket(offer('curve25519-sha256,kex-strict-s-v00@openssh.com', 'ssh-dss', '3des-cbc,aes256-cbc', 'hmac-sha2-256-etm@openssh.com,hmac-md5'));
  const { server } = await startFakeSsh(t, 'SSH-2.0-Legacy_1.0', packet);
  const findings = await sshCheck.run(loopbackEndpoint(server.port), ssh);
  assert.equal(byRule(findings, 'rampart:ssh-terrapin'), undefined);
  assert.equal(byRule(findings, 'rampart:ssh-weak-cipher')?.threat, 'Medium');
  assert.equal(byRule(findings, 'rampart:ssh-weak-hostkey')?.threat, 'Medium');
  assert.equal(byRule(findings, 'rampart:ssh-weak-mac')?.threat, 'Medium');
});

test('CBC with an EtM MAC and no strict kex: Terrapin', async (t) => {
  const packet = kexInitPacket(offer('curve25519-sha256', 'ssh-ed25519', 'aes128-cbc', 'hmac-sha2-256-etm@openssh.com'));
  const { server } = await startFakeSsh(t, 'SSH-2.0-Legacy_1.0', packet);
  const findings = await sshCheck.run(loopbackEndpoint(server.port), ssh);
  assert.match(byRule(findings, 'rampart:ssh-terrapin')?.evidence ?? '', /a CBC cipher with an EtM MAC/);
});

test('an SSH-1 only server is reported as protocol v1; SSH-1.99 is not', async (t) => {
  const v1 = await startFakeSsh(t, 'SSH-1.5-OldSSH', null);
  const findings = await sshCheck.run(loopbackEndpoint(v1.server.port), ssh);
  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.threat]),
    [['rampart:ssh-protocol-v1', 'High']],
  );

  const packet = kexInitPacket(offer('curve25519-sha256,kex-strict-s-v00@openssh.com', 'ssh-ed25519', 'aes128-ctr', 'hmac-sha2-256'));
  const both = await startFakeSsh(t, 'SSH-1.99-Both', packet);
  assert.deepEqual(await sshCheck.run(loopbackEndpoint(both.server.port), ssh), []);
});

test('a silent server, a non-SSH server and a truncated KEXINIT give no finding and the socket is released', async (t) => {
  const silent = await startScriptedServer(t, () => undefined);
  assert.deepEqual(await sshCheck.run(loopbackEndpoint(silent.port, { readTimeoutMs: 200 }), ssh), []);
  await silent.allClosed();

  const http = await startScriptedServer(t, (socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
  assert.deepEqual(await sshCheck.run(loopbackEndpoint(http.port), ssh), []);

  const truncated = kexInitPacket(offer('diffie-hellman-group1-sha1', 'ssh-dss', '3des-cbc', 'hmac-md5')).subarray(0, 40);
  const broken = await startScriptedServer(t, (socket) => {
    socket.write('SSH-2.0-Broken\r\n');
    onLines(socket, () => socket.end(truncated));
  });
  assert.deepEqual(await sshCheck.run(loopbackEndpoint(broken.port), ssh), []);
});

test('aborting while the check waits for the server ends it with no finding', { timeout: 10_000 }, async (t) => {
  const controller = new AbortController();
  // The abort comes once our identification arrived, while the check waits for a KEXINIT that
  // never comes: only the signal can end that wait, the read timeout outlasting the test's.
  const server = await startScriptedServer(t, (socket) => {
    socket.write('SSH-2.0-Stalling\r\n');
    socket.once('data', () => controller.abort());
  });
  const findings = await sshCheck.run(loopbackEndpoint(server.port, { signal: controller.signal, readTimeoutMs: 600_000 }), ssh);
  assert.deepEqual(findings, []);
  assert.equal(controller.signal.aborted, true);
  await server.allClosed();
});

test('parseKexInit merges both directions and refuses other messages', () => {
  const packet = kexInitPacket(['k1,k2', 'h1', 'c1', 'c2', 'm1', 'm1,m2', 'none', 'zlib@openssh.com', '', '']);
  const payloadLength = packet.readUInt32BE(0) - 1 - packet[4]!;
  const payload = packet.subarray(5, 5 + payloadLength);
  assert.deepEqual(parseKexInit(payload), { kex: ['k1', 'k2'], hostKey: ['h1'], ciphers: ['c1', 'c2'], macs: ['m1', 'm2'], compression: ['none', 'zlib@openssh.com'] });
  assert.equal(parseKexInit(Buffer.concat([Buffer.from([21]), payload.subarray(1)])), null);
  assert.equal(parseKexInit(payload.subarray(0, 30)), null);
});

test('applies to plain ssh only', () => {
  assert.equal(sshCheck.appliesTo(ssh), true);
  assert.equal(sshCheck.appliesTo(serviceInfo('http')), false);
});

// ---------------------------------------------------------------------------------------------
// Authentication methods (a key exchange, then a `none` request)

test('sshd with password authentication on: Low password-auth finding on loopback, with the methods listed', async (t) => {
  const sshd = await startSshd(t, ['PasswordAuthentication=yes', 'KbdInteractiveAuthentication=no', 'UsePAM=no']);
  if (!sshd) return;
  const findings = await sshAuthMethodsCheck.run(loopbackEndpoint(sshd.port), ssh);
  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.threat, f.cwe]),
    [['rampart:ssh-password-auth', 'Low', 'CWE-307']],
  );
  assert.match(findings[0]!.evidence, /answered with the methods: publickey,password\. 127\.0\.0\.1 is not a public address/);
  assert.match(findings[0]!.description, /offers password authentication/);
});

// The same default algorithms as the test above, which proves the method list is reached with them.
test('sshd with password and keyboard-interactive authentication off: no finding', async (t) => {
  const sshd = await startSshd(t, ['PasswordAuthentication=no', 'KbdInteractiveAuthentication=no', 'UsePAM=no']);
  if (!sshd) return;
  assert.deepEqual(await sshAuthMethodsCheck.run(loopbackEndpoint(sshd.port), ssh), []);
});

test('each key exchange and cipher family the client speaks reaches the method list', async (t) => {
  for (const [kex, cipher, mac] of [
    ['ecdh-sha2-nistp256', 'aes256-ctr', 'hmac-sha2-512'],
    ['curve25519-sha256@libssh.org', 'aes192-ctr', 'hmac-sha1'],
  ] as const) {
    const sshd = await startSshd(t, [`KexAlgorithms=${kex}`, `Ciphers=${cipher}`, `MACs=${mac}`, 'PasswordAuthentication=no', 'KbdInteractiveAuthentication=yes', 'UsePAM=no']);
    if (!sshd) return;
    const findings = await sshAuthMethodsCheck.run(loopbackEndpoint(sshd.port), ssh);
    assert.match(findings[0]?.evidence ?? '', /the methods: publickey,keyboard-interactive\./, `${kex} ${cipher} ${mac}`);
    await sshd.stop();
  }
});

test('a server offering no algorithm the client speaks gives no finding and no error', async (t) => {
  const sshd = await startSshd(t, ['Ciphers=chacha20-poly1305@openssh.com', 'PasswordAuthentication=yes']);
  if (!sshd) return;
  assert.deepEqual(await sshAuthMethodsCheck.run(loopbackEndpoint(sshd.port), ssh), []);
});

test('on a public address the password-auth finding is Medium and says internet-facing', () => {
  const [finding] = assessAuthMethods('93.184.215.14', 'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3', ['publickey', 'password', 'keyboard-interactive']);
  assert.equal(finding?.threat, 'Medium');
  assert.equal(finding?.name, 'Internet-facing SSH server accepts password authentication');
  assert.match(finding?.evidence ?? '', /93\.184\.215\.14 is a public address/);
  assert.match(finding?.description ?? '', /offers password and keyboard-interactive authentication/);
  assert.deepEqual(assessAuthMethods('10.1.2.3', 'SSH-2.0-x', ['publickey'])[0], undefined);
  assert.equal(assessAuthMethods('10.1.2.3', 'SSH-2.0-x', ['keyboard-interactive'])[0]?.threat, 'Low');
});

test('a server that stops answering during the key exchange gives no method finding, and the socket is released', async (t) => {
  const packet = kexInitPacket(offer('curve25519-sha256', 'ssh-ed25519', 'aes128-ctr', 'hmac-sha2-256'));
  const fake = await startFakeSsh(t, 'SSH-2.0-OpenSSH_9.6', packet);
  assert.deepEqual(await sshAuthMethodsCheck.run(loopbackEndpoint(fake.server.port, { readTimeoutMs: 300 }), ssh), []);
  await fake.server.allClosed();
  // It got our identification, our KEXINIT (message 20) and our ECDH init (message 30), nothing more.
  const sent = fake.received();
  const afterIdent = sent.subarray(sent.indexOf('\r\n') + 2);
  const first = afterIdent.readUInt32BE(0) + 4;
  assert.deepEqual([afterIdent[5], afterIdent[first + 5]], [20, 30]);
  assert.equal(afterIdent.length, first + afterIdent.readUInt32BE(first) + 4);
});
