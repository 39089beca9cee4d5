/**
 * The unauthenticated-service checks against real daemons started on loopback (redis-server,
 * memcached, vsftpd, rsync) and scripted servers for MongoDB and Elasticsearch, each with an
 * open and a protected variant. Nothing leaves 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
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
import { INFERRED_WRITE_QOD, POSSIBLE_WRITE_QOD } from '../src/engines/rampart/checks/unauth-ftp.js';
import { parseListLine, writableGuess } from '../src/engines/rampart/checks/ftp-listing.js';
import { describeSensitive } from '../src/engines/rampart/checks/sensitive-names.js';
import { DEFAULT_MIN_QOD, QOD } from '../src/shared/finding.js';
import { loopbackEndpoint, onLines, serviceInfo, startMemcached, startRedis, startRsyncd, startScriptedServer, startVsftpd } from './helpers/daemons.js';
import { listenOnLoopback } from './helpers/servers.js';

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
  await listenOnLoopback(t, server);
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

/** Every path under `dir` with its size and modification time: what a scan must leave as it found it. */
async function snapshot(dir: string): Promise<string[]> {
  // Relative paths (Node 20.11 has no Dirent.parentPath).
  const entries = await readdir(dir, { recursive: true });
  const lines = await Promise.all(
    entries.map(async (relative) => {
      const info = await stat(path.join(dir, relative));
      return `${relative} ${info.size} ${info.mtimeMs}`;
    }),
  );
  return [`. ${(await stat(dir)).mtimeMs}`, ...lines.sort()];
}

/** Commands that change anything on an FTP server: the check must send none of them. */
const WRITE_COMMANDS = /"(STOR|STOU|APPE|DELE|MKD|XMKD|RMD|XRMD|RNFR|RNTO|SITE)\b/;

test('vsftpd with anonymous read-only access: Medium finding listing what is readable, a sensitive dump flagged, nothing written', async (t) => {
  const ftp = await startVsftpd(t, { files: { 'pub/notes.txt': 'notes\n', 'pub/data/backup.sql': '-- dump\n', 'pub/data/deeper/deepest/old.bak': 'x' } });
  if (!ftp) return;
  const before = await snapshot(ftp.root);
  const findings = await ftpAnonymousCheck.run(loopbackEndpoint(ftp.port), serviceInfo('ftp'));
  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.threat]),
    [
      ['rampart:ftp-anonymous', 'Medium'],
      ['rampart:ftp-sensitive-files', 'Medium'],
    ],
  );
  const [anonymous, sensitive] = findings;
  assert.match(anonymous?.evidence ?? '', /answered: 230/);
  assert.match(anonymous?.evidence ?? '', /3 file\(s\) in 3 listed directories; listing stopped at 2 levels or 20 directories: \/readme\.txt, \/pub\/notes\.txt, \/pub\/data\/backup\.sql\./);
  // Three levels down is past the bound: neither listed nor flagged.
  assert.doesNotMatch(anonymous?.evidence ?? '', /old\.bak/);
  assert.equal(sensitive?.evidence, 'Listed as anonymous: /pub/data/backup.sql (database dump).');
  assert.deepEqual(await snapshot(ftp.root), before);
  assert.doesNotMatch(await readFile(ftp.log, 'utf8'), WRITE_COMMANDS);
});

test('vsftpd with an anonymous upload directory (owned by ftp, shown as a uid): High writable finding guessed from the listing, QoD 50; nothing written', async (t) => {
  const ftp = await startVsftpd(t, { writable: true });
  if (!ftp) return;
  const before = await snapshot(ftp.root);
  const findings = await ftpAnonymousCheck.run(loopbackEndpoint(ftp.port), serviceInfo('ftp'));
  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.threat, f.qod]),
    [
      ['rampart:ftp-anonymous', 'Medium', undefined],
      ['rampart:ftp-anonymous-write', 'High', POSSIBLE_WRITE_QOD],
    ],
  );
  assert.ok(POSSIBLE_WRITE_QOD < DEFAULT_MIN_QOD, 'a guess from a numeric owner is hidden by default');
  const ftpUid = execFileSync('id', ['-u', 'ftp']).toString().trim();
  assert.equal(
    findings[1]?.evidence,
    `Not tested by writing (nothing was created). STAT: logged in as ftp. Possibly writable: /upload (drwxr-xr-x owner ${ftpUid}: its owner may write in it, and uid ${ftpUid} is not root; it may be the anonymous session's account).`,
  );
  assert.match(findings[1]?.description ?? '', /Inferred from the listed permissions and owners, not tested/);
  assert.deepEqual(await snapshot(ftp.root), before, 'the scan left the tree (and the upload directory) exactly as it was');
  assert.deepEqual(await readdir(path.join(ftp.root, 'upload')), []);
  const log = await readFile(ftp.log, 'utf8');
  assert.match(log, /"LIST"/);
  assert.ok(INFERRED_WRITE_QOD >= DEFAULT_MIN_QOD && INFERRED_WRITE_QOD < QOD.version, 'a probable write is shown by default, below a version match');
  assert.doesNotMatch(log, WRITE_COMMANDS);
});

test('an FTP server offering MLSD: its perm facts decide (over mode bits), the login directory included; nothing written', async (t) => {
  const listings: Record<string, string> = {
    '/': 'type=cdir;perm=flcdmpe;unix.mode=0755; .\r\ntype=pdir;perm=el; ..\r\ntype=file;perm=r;size=12; readme.txt\r\ntype=dir;perm=el;unix.mode=0777; pub\r\n',
    '/pub': 'type=cdir;perm=el; .\r\ntype=file;perm=r;size=9; id_rsa\r\ntype=dir;perm=flcdmpe;unix.mode=0700; incoming\r\n',
    '/pub/incoming': 'type=cdir;perm=flcdmpe; .\r\n',
  };
  // One passive data port: each data connection gets the listing of the directory last entered.
  const accepted: net.Socket[] = [];
  const waiting: Array<(socket: net.Socket) => void> = [];
  const data = net.createServer((socket) => (waiting.shift() ?? ((s: net.Socket) => accepted.push(s)))(socket));
  await listenOnLoopback(t, data);
  const dataSocket = (): Promise<net.Socket> => new Promise((resolve) => (accepted.length > 0 ? resolve(accepted.shift()!) : waiting.push(resolve)));
  const commands: string[] = [];
  const server = await startScriptedServer(t, (socket) => {
    let cwd = '/';
    socket.write('220 Fake MLSD FTP\r\n');
    onLines(socket, (line) => {
      commands.push(line);
      const [command, ...rest] = line.split(' ');
      const argument = rest.join(' ');
      if (command === 'USER') socket.write('331 Password please\r\n');
      else if (command === 'PASS') socket.write('230 Logged in\r\n');
      else if (command === 'FEAT') socket.write('211-Features:\r\n MLST type*;size*;perm*;unix.mode*;\r\n EPSV\r\n211 End\r\n');
      else if (command === 'PWD') socket.write('257 "/"\r\n');
      else if (command === 'CWD') socket.write(argument in listings ? ((cwd = argument), '250 OK\r\n') : '550 No\r\n');
      else if (command === 'EPSV') socket.write(`229 Entering Extended Passive Mode (|||${(data.address() as net.AddressInfo).port}|)\r\n`);
      else if (command === 'MLSD') {
        socket.write('150 Here it comes\r\n');
        void dataSocket().then((channel) => channel.end(listings[cwd] ?? '', () => socket.write('226 Done\r\n')));
      } else if (command === 'QUIT') socket.end('221 Bye\r\n');
      else socket.write('502 Not implemented\r\n');
    });
  });
  const findings = await ftpAnonymousCheck.run(loopbackEndpoint(server.port), serviceInfo('ftp'));
  assert.deepEqual(
    findings.map((f) => [f.ruleId, f.qod]),
    [
      ['rampart:ftp-anonymous', undefined],
      ['rampart:ftp-sensitive-files', undefined],
      ['rampart:ftp-anonymous-write', INFERRED_WRITE_QOD],
    ],
  );
  assert.match(findings[0]?.evidence ?? '', /2 file\(s\) in 3 listed directories: \/readme\.txt, \/pub\/id_rsa\./);
  assert.equal(findings[1]?.evidence, 'Listed as anonymous: /pub/id_rsa (key or certificate store).');
  assert.equal(
    findings[2]?.evidence,
    'Not tested by writing (nothing was created). STAT did not name the session account (assumed ftp/anonymous). Probably writable: ' +
      '/ (MLSD perm=flcdmpe: the server says this session may create files and make directories in it), ' +
      '/pub/incoming (MLSD perm=flcdmpe: the server says this session may create files and make directories in it).',
  );
  assert.ok(commands.includes('MLSD') && !commands.includes('LIST'));
  assert.deepEqual(commands.filter((command) => WRITE_COMMANDS.test(`"${command}`)), []);
});

test('FTP listings: Unix and MS-DOS lines parsed; world-writable directories probably writable, own-account ones possibly (hidden owners look like it), others not', () => {
  const unix = parseListLine('drwxrwxrwx    2 0        0            4096 Nov 27 14:00 incoming');
  assert.deepEqual(unix, { name: 'incoming', type: 'dir', mode: 'rwxrwxrwx', owner: '0', size: 4096 });
  assert.deepEqual(writableGuess(unix!, 'ftp'), { reason: 'drwxrwxrwx owner 0: every user may create files in it', strength: 'probable' });
  const own = parseListLine('drwxr-xr-x 2 ftp ftp 4096 Jan  3  2024 drop box');
  assert.equal(own?.name, 'drop box');
  // vsftpd's hide_ids shows every owner as ftp: a read-only server's pub would look the same.
  assert.equal(writableGuess(own!, null)?.strength, 'possible');
  assert.equal(writableGuess(own!, 'nobody'), null, 'owned by another named account than the session');
  assert.equal(writableGuess(parseListLine('drwxr-xr-x 2 0 0 4096 Jan  3  2024 pub')!, 'ftp'), null, 'root-owned');
  assert.equal(writableGuess(parseListLine('dr-xr-xr-x 2 109 0 4096 Jan  3  2024 pub')!, 'ftp'), null, 'no write bit');
  assert.equal(writableGuess(parseListLine('drwxr-xr-x 2 109 0 4096 Jan  3  2024 up')!, 'ftp')?.strength, 'possible');
  assert.equal(writableGuess(parseListLine('-rw-rw-rw- 1 ftp ftp 12 Jan  3  2024 file.txt')!, 'ftp'), null, 'only directories');
  assert.deepEqual(parseListLine('lrwxrwxrwx 1 0 0 7 Jan  3  2024 latest -> v1.2.3'), { name: 'latest', type: 'link', mode: 'rwxrwxrwx', owner: '0', size: 7 });
  assert.deepEqual(parseListLine('11-27-26  02:00PM       <DIR>          upload'), { name: 'upload', type: 'dir', mode: null, owner: null, size: null });
  assert.deepEqual(parseListLine('11-27-26  02:00PM                 1234 db.bak'), { name: 'db.bak', type: 'file', mode: null, owner: null, size: 1234 });
  assert.equal(parseListLine('total 8'), null);
  assert.deepEqual(describeSensitive(['/a/readme.txt', '/a/site.tar.gz', '/passwords.txt', '/etc/app.conf', '/x.old']), [
    '/a/site.tar.gz (archive)',
    '/passwords.txt (credentials)',
    '/etc/app.conf (configuration)',
    '/x.old (backup or old copy)',
  ]);
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
