/**
 * The unauthenticated-service checks against real daemons started on loopback (redis-server,
 * memcached, vsftpd, rsync) and scripted servers for MongoDB and Elasticsearch, each with an
 * open and a protected variant. Nothing leaves 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { decodeBson, encodeBson } from '../src/engines/rampart/protocols/bson.js';
import {
  elasticsearchNoAuthCheck,
  ftpAnonymousCheck,
  memcachedNoAuthCheck,
  mongodbNoAuthCheck,
  redisNoAuthCheck,
  rsyncModulesCheck,
  unauthChecks,
} from '../src/engines/rampart/checks/unauth.js';
import { loopbackEndpoint, serviceInfo, startMemcached, startRedis, startRsyncd, startScriptedServer, startVsftpd } from './helpers/daemons.js';

// ---------------------------------------------------------------------------------------------
// Redis, memcached

test('Redis without a password: Critical finding with version and mode', async (t) => {
  const redis = await startRedis(t);
  if (!redis) return;
  const findings = await redisNoAuthCheck.run(loopbackEndpoint(redis.port), serviceInfo('redis'));
  assert.equal(findings.length, 1);
  const [finding] = findings;
  assert.equal(finding?.ruleId, 'rampart:redis-noauth');
  assert.equal(finding?.threat, 'Critical');
  assert.equal(finding?.cvssBase, 9.8);
  assert.equal(finding?.cvssVector, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H');
  assert.equal(finding?.cwe, 'CWE-306');
  assert.match(finding?.evidence ?? '', /redis_version:\d+\.\d+/);
  assert.match(finding?.evidence ?? '', /redis_mode:standalone/);
});

test('Redis with requirepass: no finding', async (t) => {
  const redis = await startRedis(t, { password: 'x' });
  if (!redis) return;
  assert.deepEqual(await redisNoAuthCheck.run(loopbackEndpoint(redis.port), serviceInfo('redis')), []);
});

test('memcached open over TCP: Medium finding with its version', async (t) => {
  const memcached = await startMemcached(t);
  if (!memcached) return;
  const findings = await memcachedNoAuthCheck.run(loopbackEndpoint(memcached.port), serviceInfo('memcached'));
  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.threat]),
    [['rampart:memcached-noauth', 'Medium']],
  );
  assert.match(findings[0]?.evidence ?? '', /version \d+\.\d+/);
});

test('a server answering stats with an error is not reported as memcached', async (t) => {
  const server = await startScriptedServer(t, (socket) => socket.on('data', () => socket.write('CLIENT_ERROR unauthenticated\r\n')));
  assert.deepEqual(await memcachedNoAuthCheck.run(loopbackEndpoint(server.port), serviceInfo('memcached')), []);
});

// ---------------------------------------------------------------------------------------------
// MongoDB (scripted: replies shaped like mongod's, encoded here independently of the check)

class Int32 {
  constructor(readonly value: number) {}
}
type TestBson = string | number | bigint | boolean | null | Int32 | TestBson[] | { [key: string]: TestBson };

/** A BSON encoder written apart from the one under test; numbers are doubles, as mongod sends `ok`. */
function testBson(document: { [key: string]: TestBson } | TestBson[]): Buffer {
  const parts: Buffer[] = [];
  for (const [key, value] of Object.entries(document)) {
    const name = Buffer.from(`${key}\0`);
    const fixed = (type: number, bytes: Buffer) => parts.push(Buffer.from([type]), name, bytes);
    if (typeof value === 'string') {
      const text = Buffer.from(`${value}\0`);
      const length = Buffer.alloc(4);
      length.writeInt32LE(text.length);
      fixed(0x02, Buffer.concat([length, text]));
    } else if (typeof value === 'number') {
      const bytes = Buffer.alloc(8);
      bytes.writeDoubleLE(value);
      fixed(0x01, bytes);
    } else if (typeof value === 'bigint') {
      const bytes = Buffer.alloc(8);
      bytes.writeBigInt64LE(value);
      fixed(0x12, bytes);
    } else if (value instanceof Int32) {
      const bytes = Buffer.alloc(4);
      bytes.writeInt32LE(value.value);
      fixed(0x10, bytes);
    } else if (typeof value === 'boolean') fixed(0x08, Buffer.from([value ? 1 : 0]));
    else if (value === null) fixed(0x0a, Buffer.alloc(0));
    else fixed(Array.isArray(value) ? 0x04 : 0x03, testBson(value));
  }
  const body = Buffer.concat(parts);
  const size = Buffer.alloc(4);
  size.writeInt32LE(body.length + 5);
  return Buffer.concat([size, body, Buffer.from([0])]);
}

/** A scripted mongod: records each OP_MSG body it receives and answers it with `reply`. */
async function startFakeMongo(t: TestContext, reply: { [key: string]: TestBson }) {
  const requests: Buffer[] = [];
  const server = await startScriptedServer(t, (socket: net.Socket) => {
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      if (pending.length < 4 || pending.length < pending.readInt32LE(0)) return;
      requests.push(pending);
      const document = testBson(reply);
      const header = Buffer.alloc(21);
      header.writeInt32LE(21 + document.length, 0);
      header.writeInt32LE(77, 4);
      header.writeInt32LE(pending.readInt32LE(4), 8); // responseTo: the request's id
      header.writeInt32LE(2013, 12);
      socket.write(Buffer.concat([header, document]));
    });
  });
  return { server, requests };
}

test('MongoDB answering listDatabases without auth: Critical finding naming the databases; the request is a well-formed OP_MSG', async (t) => {
  const { server, requests } = await startFakeMongo(t, {
    databases: [
      { name: 'admin', sizeOnDisk: 40960, empty: false },
      { name: 'customers', sizeOnDisk: 8192000, empty: false },
    ],
    totalSize: 8232960,
    totalSizeMb: 7n,
    ok: 1,
  });
  const findings = await mongodbNoAuthCheck.run(loopbackEndpoint(server.port), serviceInfo('mongodb'));
  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.threat, f.cwe]),
    [['rampart:mongodb-noauth', 'Critical', 'CWE-306']],
  );
  assert.match(findings[0]?.evidence ?? '', /2 database\(s\): admin, customers/);

  const request = requests[0];
  assert.ok(request);
  assert.equal(request.readInt32LE(12), 2013, 'opCode OP_MSG');
  assert.equal(request.readUInt32LE(16), 0, 'no flag bits');
  assert.equal(request[20], 0, 'a body section');
  // The command document, encoded by hand: int32 listDatabases, boolean nameOnly, string $db.
  assert.deepEqual(request.subarray(21), testBson({ listDatabases: new Int32(1), nameOnly: true, $db: 'admin' }));
});

test('MongoDB answering Unauthorized: no finding', async (t) => {
  const { server } = await startFakeMongo(t, { ok: 0, errmsg: 'command listDatabases requires authentication', code: new Int32(13), codeName: 'Unauthorized' });
  assert.deepEqual(await mongodbNoAuthCheck.run(loopbackEndpoint(server.port), serviceInfo('mongodb')), []);
});

test('a malformed MongoDB reply gives no finding', async (t) => {
  const server = await startScriptedServer(t, (socket) =>
    socket.once('data', (request: Buffer) => {
      const header = Buffer.alloc(26);
      header.writeInt32LE(26, 0);
      header.writeInt32LE(request.readInt32LE(4), 8);
      header.writeInt32LE(2013, 12);
      header.writeInt32LE(999, 21); // a BSON length past the end
      socket.write(header);
    }),
  );
  assert.deepEqual(await mongodbNoAuthCheck.run(loopbackEndpoint(server.port), serviceInfo('mongodb')), []);
});

test('BSON: the decoder reads what mongod sends and the encoder round-trips', () => {
  const decoded = decodeBson(testBson({ s: 'é', d: 1.5, i: new Int32(-3), l: 2n ** 40n, b: true, n: null, a: ['x', { y: 1 }] }));
  assert.deepEqual(decoded, { s: 'é', d: 1.5, i: -3, l: 2 ** 40, b: true, n: null, a: ['x', { y: 1 }] });
  assert.deepEqual(decodeBson(encodeBson({ a: [1, 'two'], d: { e: false }, f: 0.25 })), { a: [1, 'two'], d: { e: false }, f: 0.25 });
  assert.throws(() => decodeBson(Buffer.from([5, 0, 0, 0, 1])), /BSON/);
});

// ---------------------------------------------------------------------------------------------
// Elasticsearch (scripted)

async function startFakeElasticsearch(t: TestContext, answer: (path: string) => { status: number; body: unknown }) {
  const seen: http.IncomingMessage[] = [];
  const server = http.createServer((request, response) => {
    seen.push(request);
    const { status, body } = answer(request.url ?? '/');
    const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json' };
    if (status === 401) headers['www-authenticate'] = 'Basic realm="security" charset="UTF-8"';
    response.writeHead(status, headers).end(JSON.stringify(body));
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.address() as net.AddressInfo).port, seen };
}

const ES_ROOT = { name: 'node-1', cluster_name: 'prod-logs', version: { number: '8.13.4', build_flavor: 'default' }, tagline: 'You Know, for Search' };

test('Elasticsearch answering 200 without credentials: Critical finding with version, cluster and indices', async (t) => {
  const es = await startFakeElasticsearch(t, (path) =>
    path.startsWith('/_cat/indices') ? { status: 200, body: [{ index: 'customers' }, { index: 'orders' }] } : { status: 200, body: ES_ROOT },
  );
  const findings = await elasticsearchNoAuthCheck.run(loopbackEndpoint(es.port), serviceInfo('elasticsearch'));
  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.threat]),
    [['rampart:elasticsearch-noauth', 'Critical']],
  );
  const evidence = findings[0]?.evidence ?? '';
  assert.match(evidence, /version 8\.13\.4/);
  assert.match(evidence, /cluster_name prod-logs/);
  assert.match(evidence, /2 index\(es\): customers, orders/);
  assert.ok(es.seen.length >= 1 && es.seen.every((request) => request.headers.authorization === undefined), 'no credentials sent');
});

test('Elasticsearch answering 401: no finding', async (t) => {
  const es = await startFakeElasticsearch(t, () => ({ status: 401, body: { error: { type: 'security_exception' }, status: 401 } }));
  assert.deepEqual(await elasticsearchNoAuthCheck.run(loopbackEndpoint(es.port), serviceInfo('elasticsearch')), []);
});

test('a 200 that is not a cluster answer gives no Elasticsearch finding', async (t) => {
  const es = await startFakeElasticsearch(t, () => ({ status: 200, body: { hello: 'world' } }));
  assert.deepEqual(await elasticsearchNoAuthCheck.run(loopbackEndpoint(es.port), serviceInfo('elasticsearch')), []);
});

// ---------------------------------------------------------------------------------------------
// Anonymous FTP (vsftpd), rsync

test('vsftpd with anonymous read-only access: Medium finding, upload refused, nothing left behind', async (t) => {
  const ftp = await startVsftpd(t);
  if (!ftp) return;
  const findings = await ftpAnonymousCheck.run(loopbackEndpoint(ftp.port), serviceInfo('ftp'));
  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.threat]),
    [['rampart:ftp-anonymous', 'Medium']],
  );
  assert.match(findings[0]?.evidence ?? '', /answered: 230/);
  assert.deepEqual(await readdir(ftp.root), ['readme.txt']);
});

test('vsftpd with an anonymous upload directory: High writable finding; the test file was stored there, then deleted', async (t) => {
  const ftp = await startVsftpd(t, { writable: true });
  if (!ftp) return;
  const findings = await ftpAnonymousCheck.run(loopbackEndpoint(ftp.port), serviceInfo('ftp'));
  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.threat]),
    [
      ['rampart:ftp-anonymous', 'Medium'],
      ['rampart:ftp-anonymous-write', 'High'],
    ],
  );
  const evidence = findings[1]?.evidence ?? '';
  assert.match(evidence, / in \/upload completed: 226/);
  assert.match(evidence, /removed again with DELE/);
  const fileName = /(rampart-write-test-[0-9a-f]{16}\.txt)/.exec(evidence)?.[1];
  assert.ok(fileName, evidence);
  assert.deepEqual((await readdir(ftp.root)).sort(), ['readme.txt', 'upload']);
  assert.deepEqual(await readdir(path.join(ftp.root, 'upload')), []);
  const log = await readFile(ftp.log, 'utf8');
  assert.match(log, new RegExp(`"STOR ${fileName}"`));
  assert.match(log, new RegExp(`"DELE ${fileName}"`));
});

test('an FTP server refusing anonymous login: no finding', async (t) => {
  const server = await startScriptedServer(t, (socket) => {
    socket.write('220 Welcome\r\n');
    socket.on('data', (chunk: Buffer) => socket.write(chunk.toString().startsWith('USER') ? '331 Password please\r\n' : '530 Login incorrect\r\n'));
  });
  assert.deepEqual(await ftpAnonymousCheck.run(loopbackEndpoint(server.port), serviceInfo('ftp')), []);
});

test('rsync daemon listing its modules: Medium finding naming them', async (t) => {
  const rsync = await startRsyncd(t, { pub: 'Public files', backups: 'Nightly backups' });
  if (!rsync) return;
  const findings = await rsyncModulesCheck.run(loopbackEndpoint(rsync.port), serviceInfo('rsync'));
  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.threat]),
    [['rampart:rsync-modules-listed', 'Medium']],
  );
  assert.match(findings[0]?.evidence ?? '', /2 module\(s\): pub \(Public files\), backups \(Nightly backups\)/);
});

test('an rsync daemon with no listable module: no finding', async (t) => {
  const rsync = await startRsyncd(t, {});
  if (!rsync) return;
  assert.deepEqual(await rsyncModulesCheck.run(loopbackEndpoint(rsync.port), serviceInfo('rsync')), []);
});

// ---------------------------------------------------------------------------------------------

test('each check applies to its own service only; rule ids are distinct', () => {
  const names = ['redis', 'memcached', 'mongodb', 'elasticsearch', 'ftp', 'rsync'];
  for (const check of unauthChecks) {
    const applies = names.filter((name) => check.appliesTo(serviceInfo(name)));
    assert.equal(applies.length, 1, `${check.id}: ${applies.join(',')}`);
  }
  assert.equal(new Set(unauthChecks.map((c) => c.id)).size, unauthChecks.length);
  assert.equal(ftpAnonymousCheck.appliesTo(serviceInfo('ftp', { tls: true })), false);
});

test('a closed port gives no finding from any check', async (t) => {
  const server = await startScriptedServer(t, (socket) => socket.destroy());
  for (const check of unauthChecks) {
    const name = ['redis', 'memcached', 'mongodb', 'elasticsearch', 'ftp', 'rsync'].find((n) => check.appliesTo(serviceInfo(n)))!;
    assert.deepEqual(await check.run(loopbackEndpoint(server.port), serviceInfo(name)), [], check.id);
  }
});
