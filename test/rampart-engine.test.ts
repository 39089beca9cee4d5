/**
 * The Rampart engine against real TCP servers the tests start on loopback, plus unit tests of
 * its pieces whose behaviour a loopback scan cannot show (CIDR laziness, the rate limiter, the
 * worker pool). Nothing here sends a packet beyond 127.0.0.0/8 and ::1; DNS is a fake resolver.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { test } from 'node:test';
import { EngineError, type EngineEvent, type EngineJob, type EngineLimits, type Finding } from '../src/engines/engine.js';
import { escapeBanner } from '../src/engines/rampart/banner.js';
import { runPool } from '../src/shared/pool.js';
import { DEFAULT_TCP_PORTS, resolvePorts } from '../src/engines/rampart/ports.js';
import { createRampartEngine } from '../src/engines/rampart/rampart.engine.js';
import { applyOptions } from '../src/engines/rampart/options.js';
import { Value } from 'typebox/value';
import { TokenBucket, type Clock } from '../src/engines/rampart/rate-limit.js';
import { cidrSize, expandCidr, parseCidr, type ResolveHost } from '../src/engines/rampart/targets.js';
import type { AddressGuard } from '../src/shared/address-guard.js';
import { createEgress } from '../src/shared/egress.js';

// ---------------------------------------------------------------------------------------------
// Helpers

interface TestServer {
  port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Resolves with the first accepted socket. */
  firstConnection: Promise<net.Socket>;
  /** Resolves with the n-th accepted socket (1-based). */
  nthConnection(n: number): Promise<net.Socket>;
  /** Resolves once every socket accepted so far has closed. */
  allClosed(): Promise<void>;
  close(): Promise<void>;
}

async function startServer(onConnection: (socket: net.Socket) => void = () => undefined, host = '127.0.0.1'): Promise<TestServer> {
  const sockets: net.Socket[] = [];
  let resolveFirst: (socket: net.Socket) => void = () => undefined;
  const firstConnection = new Promise<net.Socket>((resolve) => (resolveFirst = resolve));
  const closed = new WeakMap<net.Socket, Promise<unknown>>();
  const nthWaiters: { n: number; resolve: (socket: net.Socket) => void }[] = [];
  const server = net.createServer((socket) => {
    sockets.push(socket);
    for (const w of nthWaiters.filter((w) => w.n === sockets.length)) w.resolve(socket);
    // A connect scan closes at once, which the server may see as a reset: wait for 'close' only.
    closed.set(socket, new Promise((resolve) => socket.once('close', resolve)));
    socket.on('error', () => undefined);
    resolveFirst(socket);
    onConnection(socket);
  });
  server.listen(0, host);
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    get connections() {
      return sockets.length;
    },
    firstConnection,
    nthConnection: (n: number) =>
      sockets[n - 1] ? Promise.resolve(sockets[n - 1]!) : new Promise<net.Socket>((resolve) => nthWaiters.push({ n, resolve })),
    allClosed: async () => {
      await Promise.all(sockets.map((socket) => (socket.closed ? undefined : closed.get(socket))));
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port with nothing listening: we listened there a moment ago. */
async function closedPort(): Promise<number> {
  const server = await startServer();
  await server.close();
  return server.port;
}

const isLoopback = (address: string): boolean => address.startsWith('127.') || address === '::1';

/** Allows loopback (127.0.0.0/8 and ::1) only. */
const loopbackGuard: AddressGuard = {
  check: (address) => (isLoopback(address) ? { allowed: true, class: 'loopback' } : { allowed: false, class: 'public' }),
};

/** Refuses everything, as a managed scan refuses loopback. */
function refuseAllGuard(checked: string[]): AddressGuard {
  return {
    check: (address) => {
      checked.push(address);
      return { allowed: false, class: isLoopback(address) ? 'loopback' : 'public' };
    },
  };
}

function makeJob(job: Partial<Omit<EngineJob, 'limits'>> & { limits?: Partial<EngineLimits> }): EngineJob {
  return {
    targets: job.targets ?? [{ kind: 'ip', value: '127.0.0.1' }],
    ports: job.ports ?? [],
    guard: job.guard ?? loopbackGuard,
    // The same guard behind the egress the engine connects through.
    egress: job.egress ?? createEgress({ guard: job.guard ?? loopbackGuard }),
    signal: job.signal ?? new AbortController().signal,
    limits: { connectTimeoutMs: 2000, readTimeoutMs: 200, maxConcurrency: 8, ratePerSecond: 0, ...job.limits },
    // An empty but synced database, so the engine does not warn that none is synced.
    vulnerabilities: job.vulnerabilities ?? { syncedAt: new Date(), forCpe: async () => [] },
    ...(job.options ? { options: job.options } : {}),
  };
}

async function collect(events: AsyncIterable<EngineEvent>): Promise<EngineEvent[]> {
  const out: EngineEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const findingsOf = (events: EngineEvent[]): Finding[] =>
  events.flatMap((event) => (event.type === 'finding' ? [event.finding] : []));
const hostsOf = (events: EngineEvent[]) => events.filter((event) => event.type === 'host');
/** The warnings, but for a note of the loop stalling (a loaded test machine may stall it on its own; rampart-portscan.test.ts tests that note). */
const warningsOf = (events: EngineEvent[]): string[] =>
  events.flatMap((event) => (event.type === 'log' && event.level === 'warn' && !event.message.startsWith("The scanner's event loop stalled") ? [event.message] : []));
const percentsOf = (events: EngineEvent[]): number[] =>
  events.flatMap((event) => (event.type === 'progress' ? [event.percent] : []));

/** Progress only moves forward, once per change, and a completed scan ends with 100. */
function assertProgressCompletes(events: EngineEvent[]): void {
  const percents = percentsOf(events);
  for (let i = 1; i < percents.length; i += 1) assert.ok(percents[i]! > percents[i - 1]!, `progress ${percents.join(',')}`);
  assert.deepEqual(events.at(-1), { type: 'progress', percent: 100 });
}

const take = <T>(iterable: Iterable<T>, count: number): T[] => {
  const out: T[] = [];
  for (const item of iterable) {
    if (out.length === count) break;
    out.push(item);
  }
  return out;
};

/**
 * Watches the client sockets the engine opens (they are all `net.Socket`s): how many were live
 * (not yet destroyed) at most when one began connecting, and the first one opened.
 */
function spyOnConnects(t: { after(fn: () => void): void }): { most(): number; first: Promise<net.Socket> } {
  const live = new Set<net.Socket>();
  let most = 0;
  let resolveFirst: (socket: net.Socket) => void = () => undefined;
  const first = new Promise<net.Socket>((resolve) => (resolveFirst = resolve));
  const original = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    for (const socket of live) if (socket.destroyed) live.delete(socket);
    live.add(this);
    most = Math.max(most, live.size);
    resolveFirst(this);
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof original;
  t.after(() => {
    net.Socket.prototype.connect = original;
  });
  return { most: () => most, first };
}

const activeTimers = (): number => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

const engine = createRampartEngine();

// ---------------------------------------------------------------------------------------------
// Scanning loopback servers

test('finds exactly the open ports, with their banners, and reports the host up', { timeout: 20_000 }, async (t) => {
  const ssh = await startServer((socket) => socket.write('SSH-2.0-OpenSSH_9.6\r\n'));
  const silent = await startServer();
  const chatty = await startServer((socket) => socket.write('A'.repeat(4096)));
  t.after(() => Promise.all([ssh.close(), silent.close(), chatty.close()]));
  const closed = [await closedPort(), await closedPort()];

  const events = await collect(engine.run(makeJob({ ports: [ssh.port, closed[0]!, silent.port, closed[1]!, chatty.port] })));

  const findings = findingsOf(events);
  assert.deepEqual(findings.map((f) => f.port).sort(), [ssh.port, silent.port, chatty.port].sort());
  const sshFinding = findings.find((f) => f.port === ssh.port)!;
  assert.deepEqual(
    { ...sshFinding, evidence: undefined, description: undefined, solution: undefined },
    {
      hostname: '127.0.0.1',
      hostIp: '127.0.0.1',
      port: ssh.port,
      protocol: 'tcp',
      service: 'ssh',
      ruleId: 'rampart:open-port',
      name: `Open port ${ssh.port}/tcp: OpenSSH 9.6`,
      threat: 'Informational',
      cvssBase: null,
      cvssVector: null,
      cve: [],
      cwe: null,
      references: [],
      evidence: undefined,
      description: undefined,
      solution: undefined,
    },
  );
  assert.match(sshFinding.evidence, /SSH-2\.0-OpenSSH_9\.6\\r\\n/);
  assert.match(sshFinding.solution, /firewall/);
  const silentFinding = findings.find((f) => f.port === silent.port)!;
  assert.equal(silentFinding.service, 'unknown');
  assert.match(silentFinding.evidence, /No banner within 200 ms/);
  const chattyFinding = findings.find((f) => f.port === chatty.port)!;
  assert.match(chattyFinding.evidence, /Banner: A{1024}$/m);
  assert.equal(chattyFinding.service, 'unknown');

  assert.deepEqual(hostsOf(events), [{ type: 'host', hostname: '127.0.0.1', address: '127.0.0.1', state: 'up' }]);
  assert.deepEqual(warningsOf(events), []);
  assert.equal(ssh.connections, 4, 'a connect probe, the banner read, then the SSH algorithms and authentication-methods checks');
  assertProgressCompletes(events);
});

test('a host whose probed ports are all closed is up: a RST is an answer', async () => {
  const events = await collect(engine.run(makeJob({ ports: [await closedPort(), await closedPort()] })));
  assert.deepEqual(findingsOf(events), []);
  assert.deepEqual(hostsOf(events), [{ type: 'host', hostname: '127.0.0.1', address: '127.0.0.1', state: 'up' }]);
});

test('127.0.0.0/30 probes 127.0.0.1 and 127.0.0.2, not the network and broadcast addresses', async (t) => {
  const open = await startServer();
  t.after(() => open.close());
  const events = await collect(
    engine.run(makeJob({ targets: [{ kind: 'cidr', value: '127.0.0.0/30' }], ports: [open.port, await closedPort()] })),
  );
  const hosts = hostsOf(events).sort((a, b) => (a.address < b.address ? -1 : 1));
  assert.deepEqual(hosts, [
    { type: 'host', hostname: '127.0.0.1', address: '127.0.0.1', state: 'up' },
    { type: 'host', hostname: '127.0.0.2', address: '127.0.0.2', state: 'up' },
  ]);
  // The server listens on 127.0.0.1 only, so 127.0.0.2 answers every port with a RST.
  assert.deepEqual(
    findingsOf(events).map((f) => [f.hostIp, f.port]),
    [['127.0.0.1', open.port]],
  );
  assertProgressCompletes(events);
});

test('IPv6 loopback ::1', async (t) => {
  let server: TestServer;
  try {
    server = await startServer((socket) => socket.end('SSH-2.0-test\r\n'), '::1');
  } catch (error) {
    t.skip(`IPv6 loopback is not available here: ${(error as Error).message}`);
    return;
  }
  t.after(() => server.close());
  const events = await collect(engine.run(makeJob({ targets: [{ kind: 'ip', value: '::1' }], ports: [server.port] })));
  assert.deepEqual(
    findingsOf(events).map((f) => [f.hostname, f.hostIp, f.port, f.service]),
    [['::1', '::1', server.port, 'ssh']],
  );
  assert.deepEqual(hostsOf(events), [{ type: 'host', hostname: '::1', address: '::1', state: 'up' }]);
});

test('host names and URLs are resolved; a name that does not resolve is reported down', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const asked: string[] = [];
  const resolveHost: ResolveHost = async (hostname) => {
    asked.push(hostname);
    if (hostname === 'app.test' || hostname === 'web.test') return ['127.0.0.1'];
    if (hostname === 'slow.test') return new Promise<string[]>(() => undefined); // never answers
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  };
  const job = makeJob({
    targets: [
      { kind: 'hostname', value: 'app.test' },
      { kind: 'url', value: 'https://web.test:8443/login' },
      { kind: 'hostname', value: 'gone.test' },
      { kind: 'hostname', value: 'slow.test' },
    ],
    ports: [server.port],
    limits: { connectTimeoutMs: 100 },
  });
  const events = await collect(createRampartEngine({ resolveHost }).run(job));

  assert.deepEqual(asked.sort(), ['app.test', 'gone.test', 'slow.test', 'web.test']);
  assert.deepEqual(
    findingsOf(events).map((f) => [f.hostname, f.hostIp, f.port]).sort(),
    [
      ['app.test', '127.0.0.1', server.port],
      ['web.test', '127.0.0.1', server.port],
    ],
  );
  assert.deepEqual(
    hostsOf(events).map((h) => [h.hostname, h.state]).sort(),
    [
      ['app.test', 'up'],
      ['gone.test', 'down'],
      ['slow.test', 'down'],
      ['web.test', 'up'],
    ],
  );
  const warnings = warningsOf(events);
  assert.ok(warnings.some((w) => w.includes('gone.test') && w.includes('ENOTFOUND')), warnings.join('\n'));
  assert.ok(warnings.some((w) => w.includes('slow.test') && w.includes('no answer within 100 ms')), warnings.join('\n'));
  assertProgressCompletes(events);
});

test('a guard that refuses everything: nothing is contacted, one warning per address', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const checked: string[] = [];
  const job = makeJob({
    targets: [
      { kind: 'ip', value: '127.0.0.1' },
      { kind: 'cidr', value: '127.0.0.0/30' },
      { kind: 'hostname', value: 'local.test' },
    ],
    ports: [server.port],
    guard: refuseAllGuard(checked),
  });
  const events = await collect(createRampartEngine({ resolveHost: async () => ['127.0.0.3'] }).run(job));

  assert.equal(server.connections, 0);
  // The egress remembers a verdict: the guard is asked once per address, each target still warned about.
  assert.deepEqual(checked, ['127.0.0.1', '127.0.0.2', '127.0.0.3']);
  const warnings = warningsOf(events);
  assert.equal(warnings.length, 4);
  ['127.0.0.1', '127.0.0.1', '127.0.0.2', '127.0.0.3'].forEach((address, i) => {
    assert.ok(warnings[i]!.includes(address) && warnings[i]!.includes('loopback'), warnings[i]);
  });
  assert.deepEqual(findingsOf(events), []);
  assert.deepEqual(hostsOf(events), []);
  assertProgressCompletes(events);
});

test('refusals of a large range are summed up after the first hundred warnings', async () => {
  const checked: string[] = [];
  const job = makeJob({ targets: [{ kind: 'cidr', value: '127.0.1.0/24' }], ports: 'all', guard: refuseAllGuard(checked) });
  const events = await collect(engine.run(job));
  assert.equal(checked.length, 254);
  const warnings = warningsOf(events);
  assert.equal(warnings.length, 101);
  assert.match(warnings[99]!, /127\.0\.1\.100 \(loopback\)/);
  assert.match(warnings[100]!, /154 more addresses/);
  assertProgressCompletes(events);
});

test('progress counts (address, port) pairs and ends at 100', async () => {
  const ports = [await closedPort(), await closedPort(), await closedPort()];
  const events = await collect(
    engine.run(makeJob({ targets: [{ kind: 'cidr', value: '127.0.0.0/28' }], ports, limits: { maxConcurrency: 2 } })),
  );
  assert.equal(hostsOf(events).length, 14);
  assertProgressCompletes(events);
  // 14 hosts x 3 ports = 42 pairs: one pair moves progress by more than one percent, so most show.
  assert.ok(percentsOf(events).length >= 30, percentsOf(events).join(','));
});

test('the rate limit still lets the scan through', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  const events = await collect(engine.run(makeJob({ ports: [server.port, await closedPort()], limits: { ratePerSecond: 1000 } })));
  assert.deepEqual(
    findingsOf(events).map((f) => f.port),
    [server.port],
  );
});

test('never more than maxConcurrency sockets at once', async (t) => {
  const servers = await Promise.all(Array.from({ length: 10 }, () => startServer()));
  t.after(() => Promise.all(servers.map((s) => s.close())));
  const spy = spyOnConnects(t);

  const events = await collect(
    engine.run(makeJob({ ports: servers.map((s) => s.port), limits: { maxConcurrency: 3, readTimeoutMs: 50 } })),
  );
  assert.equal(findingsOf(events).length, 10);
  assert.equal(spy.most(), 3);
});

test('aborting mid-scan destroys the sockets and ends the iteration', { timeout: 20_000 }, async (t) => {
  const silent = await startServer();
  t.after(() => silent.close());
  const spy = spyOnConnects(t);
  const timersBefore = activeTimers();
  const controller = new AbortController();
  const events: EngineEvent[] = [];
  const scan = (async () => {
    const job = makeJob({ ports: [silent.port], signal: controller.signal, limits: { readTimeoutMs: 60_000 } });
    for await (const event of engine.run(job)) events.push(event);
  })();

  // The port scan connects and closes; the service stage then connects again and waits for a
  // banner. Abort during that 60 s wait: the second connection is the one that must be dropped.
  await silent.firstConnection;
  await spy.first;
  const bannerWait = await silent.nthConnection(2);
  await new Promise((resolve) => setImmediate(resolve));
  const serverSawClose = new Promise((resolve) => bannerWait.once('close', resolve));
  controller.abort();
  await scan; // a hang here (until the 60 s banner wait) would time the test out
  await serverSawClose;

  assert.deepEqual(events.filter((e) => e.type === 'finding'), [], 'no finding after the abort');
  assert.ok(!events.some((e) => e.type === 'progress' && e.percent === 100), 'the scan did not claim to finish');
  assert.equal(activeTimers(), timersBefore);
});

test('leaving the iteration early stops the scan and releases its sockets', { timeout: 20_000 }, async (t) => {
  const silent = await startServer();
  t.after(() => silent.close());
  const closed = await closedPort();
  const job = makeJob({ ports: [closed, silent.port], limits: { readTimeoutMs: 60_000, maxConcurrency: 2 } });
  const timersBefore = activeTimers();
  for await (const event of engine.run(job)) {
    // The identity comes first (contract v2); the scan itself starts with progress.
    if (event.type === 'engine') continue;
    assert.equal(event.type, 'progress');
    break;
  }
  await silent.allClosed();
  assert.equal(activeTimers(), timersBefore);
});

test('a bad job is a config error', async () => {
  const bad: Array<Partial<Omit<EngineJob, 'limits'>> & { limits?: Partial<EngineLimits> }> = [
    { ports: [0] },
    { ports: [65536] },
    { ports: [22.5] },
    { ports: [] },
    { ports: [22], limits: { maxConcurrency: 0 } },
    { ports: [22], limits: { connectTimeoutMs: -1 } },
    { ports: [22], targets: [{ kind: 'cidr', value: '10.0.0.0/33' }] },
    { ports: [22], targets: [{ kind: 'ip', value: 'not-an-ip' }] },
    { ports: [22], targets: [{ kind: 'url', value: 'not a url' }] },
  ];
  for (const job of bad) {
    await assert.rejects(collect(engine.run(makeJob(job))), (error: unknown) => {
      assert.ok(error instanceof EngineError, String(error));
      assert.equal(error.kind, 'config');
      return true;
    });
  }
});

// ---------------------------------------------------------------------------------------------
// The pieces

test('engine identity', async () => {
  assert.equal(engine.name, 'rampart');
  assert.match(engine.version, /^\d+\.\d+\.\d+$/);
  // The first event says what ran.
  const events = await collect(engine.run(makeJob({ ports: [await closedPort()] })));
  assert.deepEqual(events[0], { type: 'engine', name: 'rampart', version: engine.version });
});

test('the options of a job replace the port set and lower the limits, never above the caps', async () => {
  const server = await startServer((socket) => socket.write('SSH-2.0-OpenSSH_9.6\r\n'));
  const closed = await closedPort();
  // The deployment would probe only the closed port; the scan's options name the open one.
  const events = await collect(engine.run(makeJob({ ports: [closed], options: { ports: [server.port], max_concurrency: 1 } })));
  await server.close();
  assert.deepEqual(findingsOf(events).map((f) => f.port), [server.port], 'the port of the options was probed');
  const job = makeJob({ ports: [closed], limits: { maxConcurrency: 4, ratePerSecond: 10, connectTimeoutMs: 500 }, options: { max_concurrency: 64, rate_per_second: 5, connect_timeout_ms: 9000 } });
  assert.deepEqual(applyOptions(job), { ports: [closed], limits: { ...job.limits, maxConcurrency: 4, ratePerSecond: 5, connectTimeoutMs: 500 }, emptyPasswordLogins: true });
  // A deployment without a rate limit takes the scan's own.
  assert.equal(applyOptions(makeJob({ limits: { ratePerSecond: 0 }, options: { rate_per_second: 7 } })).limits.ratePerSecond, 7);
  // The schema's bounds are the deployment's caps.
  const capped = createRampartEngine({ caps: { ratePerSecond: 100, maxConcurrency: 8, connectTimeoutMs: 1000 } });
  assert.equal(Value.Check(capped.optionsSchema!, { ports: 'all', rate_per_second: 100, max_concurrency: 8, connect_timeout_ms: 1000 }), true);
  assert.equal(Value.Check(capped.optionsSchema!, { rate_per_second: 101 }), false);
  assert.equal(Value.Check(capped.optionsSchema!, { max_concurrency: 9 }), false);
  assert.equal(Value.Check(capped.optionsSchema!, { ports: [0] }), false);
  assert.equal(Value.Check(capped.optionsSchema!, { colour: 'red' }), false);
});

test('CIDR ranges expand lazily, skipping IPv4 network and broadcast addresses', () => {
  assert.deepEqual(take(expandCidr('10.0.0.0/8'), 3), ['10.0.0.1', '10.0.0.2', '10.0.0.3']);
  assert.equal(cidrSize(parseCidr('10.0.0.0/8')), 16_777_214n);
  // 2^128 addresses: only a lazy walk can hand out the first three.
  assert.deepEqual(take(expandCidr('::/0'), 3), ['::', '::1', '::2']);
  assert.equal(cidrSize(parseCidr('::/0')), 2n ** 128n);
  assert.deepEqual([...expandCidr('192.0.2.0/30')], ['192.0.2.1', '192.0.2.2']);
  assert.deepEqual([...expandCidr('192.0.2.0/31')], ['192.0.2.0', '192.0.2.1']);
  assert.deepEqual([...expandCidr('192.0.2.7/32')], ['192.0.2.7']);
  assert.deepEqual(take(expandCidr('10.1.2.3/24'), 1), ['10.1.2.1']); // host bits are cleared
  assert.deepEqual(take(expandCidr('0.0.0.0/0'), 1), ['0.0.0.1']);
  assert.deepEqual([...expandCidr('255.255.255.252/30')], ['255.255.255.253', '255.255.255.254']);
  assert.deepEqual([...expandCidr('2001:db8::/126')], ['2001:db8::', '2001:db8::1', '2001:db8::2', '2001:db8::3']);
  assert.deepEqual([...expandCidr('2001:DB8:0:0:1:0:0:1/128')], ['2001:db8::1:0:0:1']);
  assert.deepEqual([...expandCidr('::ffff:c000:200/127')], ['::ffff:192.0.2.0', '::ffff:192.0.2.1']);
  for (const bad of ['10.0.0.0/33', '10.0.0.0', 'nonsense/8', '::/129', 'fe80::1%eth0/64']) {
    assert.throws(() => parseCidr(bad), (error: unknown) => error instanceof EngineError && error.kind === 'config');
  }
});

test('port sets: the default list, every port lazily, an explicit list', () => {
  // All 1,024 system ports plus the curated higher ones (about 1,200 in all).
  assert.ok(DEFAULT_TCP_PORTS.length >= 1100 && DEFAULT_TCP_PORTS.length <= 1300, String(DEFAULT_TCP_PORTS.length));
  for (const port of [1, 22, 443, 1024, 2379, 6379, 6443, 9200, 10250, 11211, 15672, 27017]) assert.ok(DEFAULT_TCP_PORTS.includes(port), String(port));
  DEFAULT_TCP_PORTS.forEach((port, i) => {
    assert.ok(Number.isInteger(port) && port >= 1 && port <= 65535);
    if (i > 0) assert.ok(port > DEFAULT_TCP_PORTS[i - 1]!, 'sorted and unique');
  });
  const mustHave = [22, 80, 443, 5432, 6379, 9200, 27017, 11211, 5672, 15672, 9092, 2375, 2379, 8500, 9000, 5984, 7474, 8086, 9042, 6443, 10250];
  for (const port of mustHave) assert.ok(DEFAULT_TCP_PORTS.includes(port), `default list lacks ${port}`);
  assert.equal(resolvePorts('default').count, DEFAULT_TCP_PORTS.length);

  const all = resolvePorts('all');
  assert.equal(all.count, 65535);
  assert.deepEqual(take(all, 3), [1, 2, 3]);
  const explicit = resolvePorts([443, 80, 443]);
  assert.equal(explicit.count, 2);
  assert.deepEqual([...explicit], [443, 80]);
});

test('banners are escaped for evidence', () => {
  assert.equal(escapeBanner(Buffer.from('a\\b\r\n\t\x00\xff', 'latin1')), 'a\\\\b\\r\\n\\t\\x00\\xff');
});

test('the worker pool keeps exactly its limit in flight', async () => {
  let active = 0;
  let most = 0;
  let done = 0;
  const waiting: Array<() => void> = [];
  async function* items(): AsyncGenerator<number> {
    for (let i = 0; i < 20; i += 1) yield i;
  }
  const pool = runPool(
    items(),
    3,
    async () => {
      active += 1;
      most = Math.max(most, active);
      await new Promise<void>((resolve) => waiting.push(resolve));
      active -= 1;
      done += 1;
    },
    new AbortController().signal,
  );
  while (done < 20) {
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(active, Math.min(3, 20 - done));
    waiting.shift()?.();
  }
  await pool;
  assert.equal(most, 3);
});

test('the worker pool stops pulling when aborted', async () => {
  const controller = new AbortController();
  const started: number[] = [];
  await runPool(
    [1, 2, 3, 4, 5][Symbol.iterator](),
    1,
    async (item) => {
      started.push(item);
      if (item === 2) controller.abort();
    },
    controller.signal,
  );
  assert.deepEqual(started, [1, 2]);
});

test('a failing item aborts the items in flight and the pool rethrows it', async () => {
  const seenAbort: unknown[] = [];
  const pool = runPool(
    [1, 2, 3, 4][Symbol.iterator](),
    2,
    async (item, signal) => {
      if (item === 2) throw new Error('boom');
      // Item 1 would wait forever unless the pool's signal tells it to stop.
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      seenAbort.push(item);
    },
    new AbortController().signal,
  );
  await assert.rejects(pool, /boom/);
  assert.deepEqual(seenAbort, [1]);
});

test('the token bucket paces takes at the rate', async () => {
  let now = 0;
  const clock: Clock = {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  };
  const signal = new AbortController().signal;
  const bucket = new TokenBucket(10, clock);
  for (let i = 0; i < 21; i += 1) await bucket.take(signal);
  assert.equal(now, 2000); // one free token, then 20 more at 100 ms each
  await Promise.all(Array.from({ length: 5 }, () => bucket.take(signal)));
  assert.equal(now, 2500);
  await assert.rejects(bucket.take(AbortSignal.abort()), { name: 'AbortError' });
});
