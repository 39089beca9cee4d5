/**
 * The Rampart UDP probes against fake UDP servers the tests start on 127.0.0.1. Each fake answers
 * with the bytes the named real software sends, built by small encoders written here (not the
 * code under test), and checks the request it received. A real Net-SNMP agent runs too when the
 * `snmpd` package is installed. Nothing here sends a datagram beyond loopback.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { EngineError, type EngineLimits } from '../src/engines/engine.js';
import { TokenBucket } from '../src/engines/rampart/rate-limit.js';
import { serviceFinding } from '../src/engines/rampart/findings.js';
import { scanUdp, type UdpScanOptions } from '../src/engines/rampart/udp/udp-scan.js';
import { LOOPBACK_EGRESS } from './helpers/egress.js';

// ---------------------------------------------------------------------------------------------
// Helpers

const limits: EngineLimits = { connectTimeoutMs: 2000, readTimeoutMs: 1500, maxConcurrency: 4, ratePerSecond: 0 };

type Reply = (datagram: Buffer) => void;

interface FakeUdpServer {
  port: number;
  /** Every datagram received, in order. */
  received: Buffer[];
  /** Resolves with the first datagram received. */
  firstDatagram: Promise<Buffer>;
  close(): Promise<void>;
}

/** A UDP server on 127.0.0.1 whose `answer` may reply (any number of datagrams) to each request. */
async function startUdpServer(answer: (request: Buffer, reply: Reply) => void = () => undefined): Promise<FakeUdpServer> {
  const socket = dgram.createSocket('udp4');
  const received: Buffer[] = [];
  let resolveFirst: (datagram: Buffer) => void = () => undefined;
  const firstDatagram = new Promise<Buffer>((resolve) => (resolveFirst = resolve));
  socket.on('message', (request, peer) => {
    received.push(request);
    resolveFirst(request);
    answer(request, (datagram) => socket.send(datagram, peer.port, peer.address));
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return {
    port: socket.address().port,
    received,
    firstDatagram,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** A loopback UDP port nobody listens on: the kernel answers ICMP port unreachable. */
async function closedUdpPort(): Promise<number> {
  const server = await startUdpServer();
  await server.close();
  return server.port;
}

async function scan(ports: UdpScanOptions['ports'], overrides: Partial<UdpScanOptions> = {}) {
  return scanUdp('127.0.0.1', 'fake.test', { ports, limits, signal: new AbortController().signal, egress: LOOPBACK_EGRESS, ...overrides });
}

const count = (kind: string): number => process.getActiveResourcesInfo().filter((resource) => resource === kind).length;

/** Lets closed handles leave the loop (libuv frees them a turn or two after close). */
async function loopTurns(turns = 10): Promise<void> {
  for (let i = 0; i < turns; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

// ---------------------------------------------------------------------------------------------
// DNS: a reply encoder in the RFC 1035 wire format.

interface DnsQuestion {
  id: number;
  flags: number;
  /** The question section as sent (name, type, class). */
  question: Buffer;
  name: string;
  type: number;
  klass: number;
}

function readDnsQuery(query: Buffer): DnsQuestion {
  const labels: string[] = [];
  let offset = 12;
  while (query[offset] !== 0) {
    const length = query[offset]!;
    labels.push(query.subarray(offset + 1, offset + 1 + length).toString('ascii'));
    offset += 1 + length;
  }
  offset += 1;
  return {
    id: query.readUInt16BE(0),
    flags: query.readUInt16BE(2),
    question: query.subarray(12, offset + 4),
    name: labels.join('.'),
    type: query.readUInt16BE(offset),
    klass: query.readUInt16BE(offset + 2),
  };
}

/** A response to `query`: AA as given, RD copied, RA as given, and answers named by pointer 0xC00C. */
function encodeDnsResponse(
  query: DnsQuestion,
  options: { ra: boolean; aa: boolean; rcode: number; answers: { type: number; klass: number; ttl: number; data: Buffer }[] },
): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.id, 0);
  header.writeUInt16BE(0x8000 | (options.aa ? 0x0400 : 0) | (query.flags & 0x0100) | (options.ra ? 0x0080 : 0) | options.rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(options.answers.length, 6);
  const answers = options.answers.map(({ type, klass, ttl, data }) => {
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0);
    record.writeUInt16BE(type, 2);
    record.writeUInt16BE(klass, 4);
    record.writeUInt32BE(ttl, 6);
    record.writeUInt16BE(data.length, 10);
    return Buffer.concat([record, data]);
  });
  return Buffer.concat([header, query.question, ...answers]);
}

const txt = (text: string): Buffer => Buffer.concat([Buffer.from([text.length]), Buffer.from(text, 'ascii')]);

/** A recursive BIND 9: version.bind CH TXT with its version (AA set), example.com A from its cache with RA set. */
function bindLikeServer(): (request: Buffer, reply: Reply) => void {
  return (request, reply) => {
    const query = readDnsQuery(request);
    if (query.name === 'version.bind' && query.type === 16 && query.klass === 3) {
      reply(encodeDnsResponse(query, { ra: true, aa: true, rcode: 0, answers: [{ type: 16, klass: 3, ttl: 0, data: txt('9.18.24-1-Debian') }] }));
    } else if (query.name === 'example.com' && query.type === 1) {
      reply(encodeDnsResponse(query, { ra: true, aa: false, rcode: 0, answers: [{ type: 1, klass: 1, ttl: 300, data: Buffer.from([93, 184, 215, 14]) }] }));
    }
  };
}

/**
 * NSD, authoritative for example.com with `hide-version: yes`: version.bind REFUSED, and
 * example.com A answered from its zone with AA set and RA clear (NSD never recurses).
 */
function nsdLikeServer(request: Buffer, reply: Reply): void {
  const query = readDnsQuery(request);
  if (query.name === 'version.bind') reply(encodeDnsResponse(query, { ra: false, aa: false, rcode: 5, answers: [] }));
  else reply(encodeDnsResponse(query, { ra: false, aa: true, rcode: 0, answers: [{ type: 1, klass: 1, ttl: 86400, data: Buffer.from([192, 0, 2, 10]) }] }));
}

/** Unbound refusing a client outside its `access-control`: REFUSED to everything, RA still set. */
function unboundRefusingServer(request: Buffer, reply: Reply): void {
  reply(encodeDnsResponse(readDnsQuery(request), { ra: true, aa: false, rcode: 5, answers: [] }));
}

test('DNS: a recursive BIND gives the dns service with its version and an open-resolver finding', async () => {
  const server = await startUdpServer(bindLikeServer());
  try {
    const result = await scan({ dns: server.port });
    assert.equal(result.services.length, 1);
    const [{ port, service }] = result.services as [(typeof result.services)[number]];
    assert.equal(port, server.port);
    assert.equal(service.name, 'dns');
    assert.equal(service.product, 'BIND');
    assert.equal(service.version, '9.18.24');
    assert.equal(service.cpe, 'cpe:2.3:a:isc:bind:9.18.24:*:*:*:*:*:*:*');
    assert.equal(service.details.versionBind, '9.18.24-1-Debian');

    const byRule = new Map(result.findings.map((finding) => [finding.ruleId, finding]));
    assert.deepEqual([...byRule.keys()].sort(), ['rampart:udp-dns-exposed', 'rampart:udp-dns-open-resolver']);
    const resolver = byRule.get('rampart:udp-dns-open-resolver')!;
    assert.equal(resolver.threat, 'Medium');
    assert.equal(resolver.cwe, 'CWE-406');
    assert.equal(resolver.port, server.port);
    assert.match(resolver.evidence, /RA=1/);
    assert.equal(byRule.get('rampart:udp-dns-exposed')!.threat, 'Informational');

    // The recursion query asked for recursion (RD=1); the version query did not.
    const queries = server.received.map(readDnsQuery);
    assert.equal(queries.find((q) => q.name === 'example.com')!.flags & 0x0100, 0x0100);
    assert.equal(queries.find((q) => q.name === 'version.bind')!.flags & 0x0100, 0);
  } finally {
    await server.close();
  }
});

test('DNS: RA clear (authoritative NSD, version hidden) gives the service but no recursion finding', async () => {
  const server = await startUdpServer(nsdLikeServer);
  try {
    const result = await scan({ dns: server.port });
    assert.equal(result.services.length, 1);
    assert.equal(result.services[0]!.service.name, 'dns');
    assert.equal(result.services[0]!.service.version, null);
    assert.equal(result.services[0]!.service.details.recursionAvailable, 'false');
    assert.deepEqual(
      result.findings.map((finding) => finding.ruleId),
      ['rampart:udp-dns-exposed'],
    );
    assert.match(result.findings[0]!.evidence, /version\.bind CH TXT: rcode 5, no version; example\.com A with RD=1: RA=0, rcode 0/);
  } finally {
    await server.close();
  }
});

test('DNS: RA set on a REFUSED reply (recursion, but not for us) is no open resolver', async () => {
  const server = await startUdpServer(unboundRefusingServer);
  try {
    const result = await scan({ dns: server.port });
    assert.equal(server.received.length, 2);
    assert.deepEqual(
      result.findings.map((finding) => finding.ruleId),
      ['rampart:udp-dns-exposed'],
    );
  } finally {
    await server.close();
  }
});

// ---------------------------------------------------------------------------------------------
// NTP

/** A mode-4 NTPv4 reply as chronyd sends it: stratum 2, upstream 192.0.2.1, origin = the client's transmit time. */
function encodeNtpReply(request: Buffer): Buffer {
  const reply = Buffer.alloc(48);
  reply[0] = (0 << 6) | (4 << 3) | 4;
  reply[1] = 2; // stratum
  reply[2] = request[2]!; // poll
  reply[3] = 0xe9; // precision 2^-23
  reply.writeUInt32BE(0x00000a3d, 4); // root delay
  reply.writeUInt32BE(0x00000f5c, 8); // root dispersion
  Buffer.from([192, 0, 2, 1]).copy(reply, 12);
  const now = Math.floor(Date.now() / 1000) + 2_208_988_800;
  reply.writeUInt32BE(now - 60, 16); // reference timestamp
  request.copy(reply, 24, 40, 48); // origin = client's transmit
  reply.writeUInt32BE(now, 32); // receive
  reply.writeUInt32BE(now, 40); // transmit
  return reply;
}

test('NTP: an NTPv4 server reply gives the ntp service with VN, stratum and reference id', async () => {
  const server = await startUdpServer((request, reply) => {
    if (request.length === 48 && (request[0]! & 0x07) === 3) reply(encodeNtpReply(request));
  });
  try {
    const result = await scan({ ntp: server.port });
    assert.equal(result.services.length, 1);
    const { service } = result.services[0]!;
    assert.equal(service.name, 'ntp');
    assert.equal(service.version, '4');
    assert.equal(service.details.stratum, '2');
    assert.equal(service.details.referenceId, '192.0.2.1');
    assert.deepEqual(
      result.findings.map((finding) => [finding.ruleId, finding.threat]),
      [['rampart:udp-ntp-exposed', 'Informational']],
    );
    // A client request (mode 3, 48 bytes), never mode 6 or 7.
    assert.deepEqual(
      server.received.map((request) => [request.length, request[0]! & 0x07]),
      [[48, 3]],
    );
  } finally {
    await server.close();
  }
});

test('NTP: a reply that does not echo our transmit timestamp is not taken for an answer', async () => {
  const server = await startUdpServer((request, reply) => {
    const forged = encodeNtpReply(request);
    forged.fill(0, 24, 32);
    reply(forged);
  });
  try {
    const result = await scan({ ntp: server.port }, { limits: { ...limits, readTimeoutMs: 300 } });
    assert.equal(server.received.length, 1);
    assert.deepEqual(result.findings, []);
    // Something answered, but not as NTP: an open port of unknown service, no finding.
    assert.deepEqual(
      result.services.map((s) => s.service.name),
      ['unknown'],
    );
  } finally {
    await server.close();
  }
});

// ---------------------------------------------------------------------------------------------
// SNMP: a BER encoder and a reader for short requests.

function tlv(tag: number, content: Buffer): Buffer {
  const length = content.length < 0x80 ? Buffer.from([content.length]) : Buffer.from([0x81, content.length]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

function readTlvs(buffer: Buffer): { tag: number; content: Buffer }[] {
  const out: { tag: number; content: Buffer }[] = [];
  for (let offset = 0; offset < buffer.length; ) {
    const tag = buffer[offset]!;
    let length = buffer[offset + 1]!;
    let start = offset + 2;
    if (length === 0x81) {
      length = buffer[offset + 2]!;
      start += 1;
    }
    out.push({ tag, content: buffer.subarray(start, start + length) });
    offset = start + length;
  }
  return out;
}

/**
 * A Net-SNMP-like agent: silent for any community but `community` (as snmpd is), otherwise a
 * GetResponse echoing version, community, request id and OID, with sysDescr as OCTET STRING.
 */
function snmpAgent(community: string, sysDescr: string, seen: string[]): (request: Buffer, reply: Reply) => void {
  return (request, reply) => {
    const [message] = readTlvs(request);
    const [version, communityTlv, pdu] = readTlvs(message!.content);
    seen.push(communityTlv!.content.toString('latin1'));
    if (pdu!.tag !== 0xa0 || communityTlv!.content.toString('latin1') !== community) return;
    const [requestId, , , varbinds] = readTlvs(pdu!.content);
    const [varbind] = readTlvs(varbinds!.content);
    const [oid] = readTlvs(varbind!.content);
    const response = tlv(
      0xa2,
      Buffer.concat([
        tlv(0x02, requestId!.content),
        tlv(0x02, Buffer.from([0])),
        tlv(0x02, Buffer.from([0])),
        tlv(0x30, tlv(0x30, Buffer.concat([tlv(0x06, oid!.content), tlv(0x04, Buffer.from(sysDescr, 'utf8'))]))),
      ]),
    );
    reply(tlv(0x30, Buffer.concat([tlv(0x02, version!.content), tlv(0x04, communityTlv!.content), response])));
  };
}

test('SNMP: an agent answering only "public" gives a Medium default-community finding with sysDescr', async () => {
  const sysDescr = 'Linux core-sw1 5.10.0-28-amd64 #1 SMP Debian 5.10.209-2 x86_64';
  const seen: string[] = [];
  const server = await startUdpServer(snmpAgent('public', sysDescr, seen));
  try {
    const result = await scan({ snmp: server.port }, { limits: { ...limits, readTimeoutMs: 400 } });
    assert.deepEqual(seen.sort(), ['private', 'public']);
    assert.equal(result.services.length, 1);
    assert.equal(result.services[0]!.service.name, 'snmp');
    assert.equal(result.services[0]!.service.details.sysDescr, sysDescr);
    assert.equal(result.services[0]!.service.details.communities, 'public');
    assert.equal(result.findings.length, 1);
    const finding = result.findings[0]!;
    assert.equal(finding.ruleId, 'rampart:udp-snmp-default-community');
    assert.equal(finding.threat, 'Medium');
    assert.deepEqual(finding.cve, ['CVE-1999-0517']);
    assert.ok(finding.evidence.includes(sysDescr), finding.evidence);
    assert.match(finding.evidence, /"public"/);
    assert.doesNotMatch(finding.evidence, /"private"/);
    // A UDP finding says so, in its name and its evidence (SNMP, DNS, memcached also listen on TCP).
    assert.equal(finding.name, 'SNMP agent accepts a default community (UDP)');
    assert.ok(finding.evidence.startsWith(`UDP port ${server.port}: SNMPv2c GetRequest`), finding.evidence);
    // The request asked for sysDescr.0 and nothing else.
    const [message] = readTlvs(server.received[0]!);
    const [, , pdu] = readTlvs(message!.content);
    const [, , , varbinds] = readTlvs(pdu!.content);
    const [oid] = readTlvs(readTlvs(varbinds!.content)[0]!.content);
    assert.deepEqual([...oid!.content], [0x2b, 6, 1, 2, 1, 1, 1, 0]);
  } finally {
    await server.close();
  }
});

test('SNMP: an agent that accepts neither default community stays unreported', async () => {
  const seen: string[] = [];
  const server = await startUdpServer(snmpAgent('s3cr3t-c0mmunity', 'Linux', seen));
  try {
    const result = await scan({ snmp: server.port }, { limits: { ...limits, readTimeoutMs: 300 } });
    assert.equal(seen.length, 2);
    assert.deepEqual(result, { services: [], findings: [] });
  } finally {
    await server.close();
  }
});

test('SNMP: a real Net-SNMP agent (snmpd) with "rocommunity public"', async (t) => {
  const snmpd = ['/usr/sbin/snmpd', '/usr/local/sbin/snmpd'].find((candidate) => existsSync(candidate));
  if (!snmpd) {
    t.skip('snmpd not installed (Debian package "snmpd")');
    return;
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rampart-snmpd-'));
  const config = path.join(dir, 'snmpd.conf');
  await writeFile(config, 'rocommunity public 127.0.0.1\n');
  const port = await closedUdpPort();
  const child = spawn(snmpd, ['-Lo', '-f', '-C', '-c', config, `udp:127.0.0.1:${port}`], {
    // No MIB files to load (they are optional), and state kept in the temp directory.
    env: { ...process.env, MIBS: '', MIBDIRS: dir, SNMP_PERSISTENT_DIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  try {
    // snmpd logs its version once its ports are open.
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('NET-SNMP version')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`snmpd exited (${String(code)}): ${output}`)));
    });
    const result = await scan({ snmp: port }, { limits: { ...limits, readTimeoutMs: 500 } });
    assert.equal(result.findings.length, 1, JSON.stringify(result));
    assert.equal(result.findings[0]!.ruleId, 'rampart:udp-snmp-default-community');
    // Net-SNMP's default sysDescr is `uname -snrvm`.
    assert.ok(result.findings[0]!.evidence.includes(`${os.type()} ${os.hostname()}`), result.findings[0]!.evidence);
    assert.equal(result.services[0]!.service.details.communities, 'public');
  } finally {
    child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------------------------------------
// memcached, SSDP, NetBIOS

/** memcached 1.6 with `-U 11211`: the stats reply, framed and split over two datagrams. */
function memcachedServer(request: Buffer, reply: Reply): void {
  if (request.subarray(8).toString('ascii') !== 'stats\r\n') return;
  const lines = ['pid 4242', 'uptime 86400', 'time 1718000000', 'version 1.6.21', 'libevent 2.1.12-stable', 'pointer_size 64', 'curr_items 1534', 'bytes 734522'];
  const text = `${lines.map((line) => `STAT ${line}\r\n`).join('')}END\r\n`;
  const halves = [text.slice(0, 60), text.slice(60)];
  // The second datagram first: UDP does not keep order.
  for (const sequence of [1, 0]) {
    const frame = Buffer.alloc(8);
    request.copy(frame, 0, 0, 2); // request id
    frame.writeUInt16BE(sequence, 2);
    frame.writeUInt16BE(halves.length, 4);
    reply(Buffer.concat([frame, Buffer.from(halves[sequence]!, 'ascii')]));
  }
}

test('memcached: a UDP stats reply over two datagrams gives a High amplification finding', async () => {
  const server = await startUdpServer(memcachedServer);
  try {
    const result = await scan({ memcached: server.port });
    assert.equal(result.services.length, 1);
    const { service } = result.services[0]!;
    assert.equal(service.name, 'memcached');
    assert.equal(service.version, '1.6.21');
    assert.equal(service.cpe, 'cpe:2.3:a:memcached:memcached:1.6.21:*:*:*:*:*:*:*');
    assert.equal(result.findings.length, 1);
    const finding = result.findings[0]!;
    assert.equal(finding.ruleId, 'rampart:udp-memcached-amplification');
    assert.equal(finding.threat, 'High');
    assert.deepEqual(finding.cve, ['CVE-2018-1000115']);
    assert.match(finding.evidence, /8 STAT lines/);
    assert.match(finding.evidence, /version=1\.6\.21/);
    assert.match(finding.evidence, /curr_items=1534/);
    // One framed request: sequence 0 of 1 datagram, then the command.
    assert.equal(server.received.length, 1);
    assert.deepEqual([...server.received[0]!.subarray(2, 8)], [0, 0, 0, 1, 0, 0]);
  } finally {
    await server.close();
  }
});

/** MiniUPnPd's answer to an M-SEARCH (one of the several it sends for ssdp:all). */
function ssdpServer(request: Buffer, reply: Reply): void {
  const text = request.toString('ascii');
  if (!text.startsWith('M-SEARCH * HTTP/1.1\r\n') || !/\r\nMAN: "ssdp:discover"\r\n/i.test(text) || !/\r\nST: ssdp:all\r\n/i.test(text)) return;
  reply(
    Buffer.from(
      'HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=120\r\nST: upnp:rootdevice\r\n' +
        'USN: uuid:7f3a1c2e-52d1-4b0e-9a55-1f0c2d3e4f50::upnp:rootdevice\r\nEXT:\r\n' +
        'SERVER: OpenWRT/21.02.3 UPnP/1.1 MiniUPnPd/2.3.3\r\nLOCATION: http://192.168.1.1:5000/rootDesc.xml\r\n' +
        'OPT: "http://schemas.upnp.org/upnp/1/0/"; ns=01\r\n01-NLS: 1718000000\r\nBOOTID.UPNP.ORG: 1718000000\r\nCONFIGID.UPNP.ORG: 1337\r\n\r\n',
      'ascii',
    ),
  );
}

test('SSDP: an M-SEARCH 200 reply gives a Medium finding with SERVER and LOCATION', async () => {
  const server = await startUdpServer(ssdpServer);
  try {
    const result = await scan({ ssdp: server.port });
    assert.equal(result.services.length, 1);
    const { service } = result.services[0]!;
    assert.equal(service.name, 'ssdp');
    assert.equal(service.product, 'MiniUPnPd');
    assert.equal(service.version, '2.3.3');
    assert.equal(service.details.location, 'http://192.168.1.1:5000/rootDesc.xml');
    assert.equal(result.findings.length, 1);
    const finding = result.findings[0]!;
    assert.equal(finding.ruleId, 'rampart:udp-ssdp-exposed');
    assert.equal(finding.threat, 'Medium');
    assert.match(finding.evidence, /LOCATION: http:\/\/192\.168\.1\.1:5000\/rootDesc\.xml/);
    assert.match(finding.evidence, /SERVER: OpenWRT\/21\.02\.3 UPnP\/1\.1 MiniUPnPd\/2\.3\.3/);
  } finally {
    await server.close();
  }
});

/** A node-status entry: the name padded to 15 bytes, the suffix, the flags. */
function nameEntry(name: string, suffix: number, flags: number): Buffer {
  const entry = Buffer.alloc(18, 0x20);
  entry.write(name, 0, 'ascii');
  entry[15] = suffix;
  entry.writeUInt16BE(flags, 16);
  return entry;
}

/** Samba nmbd's NBSTAT reply: AA response, the question name repeated, two names, MAC 00…, zeroed statistics. */
function netbiosServer(request: Buffer, reply: Reply): void {
  const name = request.subarray(12, 12 + 34);
  if (name.subarray(1, 33).toString('ascii') !== `CK${'A'.repeat(30)}` || request.readUInt16BE(46) !== 0x21) return;
  const header = Buffer.alloc(12);
  request.copy(header, 0, 0, 2);
  header.writeUInt16BE(0x8400, 2);
  header.writeUInt16BE(1, 6); // ANCOUNT
  const rdata = Buffer.concat([
    Buffer.from([2]),
    nameEntry('FILESERVER', 0x00, 0x0400), // active, unique
    nameEntry('WORKGROUP', 0x00, 0x8400), // active, group
    Buffer.alloc(6), // unit id (Samba sends zeros)
    Buffer.alloc(40), // statistics
  ]);
  const record = Buffer.alloc(10);
  record.writeUInt16BE(0x21, 0);
  record.writeUInt16BE(1, 2);
  record.writeUInt16BE(rdata.length, 8);
  reply(Buffer.concat([header, name, record, rdata]));
}

test('NetBIOS: an NBSTAT reply with two names puts both in the evidence', async () => {
  const server = await startUdpServer(netbiosServer);
  try {
    const result = await scan({ netbiosNs: server.port });
    assert.equal(result.services.length, 1);
    const { service } = result.services[0]!;
    assert.equal(service.name, 'netbios-ns');
    assert.equal(service.details.computer, 'FILESERVER');
    assert.equal(service.details.domain, 'WORKGROUP');
    assert.equal(result.findings.length, 1);
    const finding = result.findings[0]!;
    assert.equal(finding.ruleId, 'rampart:udp-netbios-name-table');
    assert.equal(finding.threat, 'Low');
    assert.match(finding.evidence, /2 names: FILESERVER<00> unique, WORKGROUP<00> group/);
  } finally {
    await server.close();
  }
});

// ---------------------------------------------------------------------------------------------
// Silence, scheduling, abort

test('a silent port and a closed port give no service and no finding', async () => {
  const silent = await startUdpServer();
  const closed = await closedUdpPort();
  try {
    const result = await scan({ dns: silent.port, snmp: closed }, { limits: { ...limits, readTimeoutMs: 300 } });
    assert.equal(silent.received.length, 2, 'both DNS queries reached the silent server');
    assert.deepEqual(result, { services: [], findings: [] });
  } finally {
    await silent.close();
  }
});

test('every probe runs in one scan, with one rate-limit token per datagram', async () => {
  let takes = 0;
  class CountingBucket extends TokenBucket {
    override take(signal: AbortSignal): Promise<void> {
      takes += 1;
      return super.take(signal);
    }
  }
  const servers = await Promise.all([
    startUdpServer(bindLikeServer()),
    startUdpServer((request, reply) => reply(encodeNtpReply(request))),
    startUdpServer(snmpAgent('private', 'RouterOS CCR2004', [])),
    startUdpServer(memcachedServer),
    startUdpServer(ssdpServer),
    startUdpServer(netbiosServer),
  ]);
  const [dns, ntp, snmp, memcached, ssdp, netbiosNs] = servers.map((server) => server.port) as [number, number, number, number, number, number];
  try {
    const result = await scan(
      { dns, ntp, snmp, memcached, ssdp, netbiosNs },
      { limits: { ...limits, maxConcurrency: 2, readTimeoutMs: 400 }, bucket: new CountingBucket(10_000) },
    );
    assert.equal(takes, 8); // DNS 2, NTP 1, SNMP 2, memcached 1, SSDP 1, NetBIOS 1
    assert.deepEqual(
      result.services.map((s) => [s.port, s.service.name]),
      [
        [dns, 'dns'],
        [ntp, 'ntp'],
        [snmp, 'snmp'],
        [memcached, 'memcached'],
        [ssdp, 'ssdp'],
        [netbiosNs, 'netbios-ns'],
      ].sort(([a], [b]) => (a as number) - (b as number)),
    );
    const snmpFinding = result.findings.find((f) => f.ruleId === 'rampart:udp-snmp-default-community');
    assert.equal(snmpFinding?.port, snmp);
    assert.match(snmpFinding.evidence, /"private".*RouterOS CCR2004/);
  } finally {
    await Promise.all(servers.map((server) => server.close()));
  }
});

test('a bad port selection is a config error, before anything is sent', async () => {
  for (const ports of [{ dns: 0 }, { ntp: 70_000 }, [53, 1.5], { telnet: 23 } as unknown as { dns: number }]) {
    await assert.rejects(scan(ports), (error: unknown) => error instanceof EngineError && error.kind === 'config');
  }
});

test('an abort mid-scan returns promptly and closes every socket and timer', { timeout: 10_000 }, async () => {
  const servers = await Promise.all(Array.from({ length: 6 }, () => startUdpServer()));
  const [dns, ntp, snmp, memcached, ssdp, netbiosNs] = servers.map((server) => server.port) as [number, number, number, number, number, number];
  await loopTurns(); // earlier tests' closed sockets leave the loop first
  const sockets = count('UDPWrap');
  const timers = count('Timeout');
  const controller = new AbortController();
  try {
    // The read timeout far exceeds the test's timeout: only the abort can end this scan in time.
    const scanning = scanUdp('127.0.0.1', 'fake.test', {
      ports: { dns, ntp, snmp, memcached, ssdp, netbiosNs },
      limits: { ...limits, maxConcurrency: 6, readTimeoutMs: 600_000 },
      signal: controller.signal,
      egress: LOOPBACK_EGRESS,
    });
    await Promise.all(servers.map((server) => server.firstDatagram));
    assert.ok(count('UDPWrap') > sockets, 'the probes hold sockets while waiting');
    controller.abort();
    const result = await scanning;
    assert.deepEqual(result, { services: [], findings: [] });
    await loopTurns();
    assert.equal(count('UDPWrap'), sockets, 'every probe socket is closed');
    assert.equal(count('Timeout'), timers, 'no probe timer is left behind');
  } finally {
    await Promise.all(servers.map((server) => server.close()));
  }
});

test('the open-port finding of a UDP service speaks of UDP and a datagram, not of a TCP connection or a banner', () => {
  const service = { name: 'ntp', product: null, version: null, cpe: null, tls: false, banner: null, details: { stratum: '2' } };
  const finding = serviceFinding({ hostname: 'time.example', address: '192.0.2.7' }, 123, service, 400, 'udp');
  assert.equal(finding.protocol, 'udp');
  assert.equal(finding.name, 'Open port 123/udp: ntp');
  assert.match(finding.description, /^UDP port 123 answers datagrams/);
  assert.equal(finding.evidence, 'Port 123/udp on 192.0.2.7 answered a UDP probe datagram: ntp (ntp).\nstratum: 2');
  assert.doesNotMatch(`${finding.description} ${finding.evidence}`, /TCP|banner/i);
});
