/**
 * No lost ports (issue 14): the port scan against loopback listeners, one of which drops SYNs for
 * real (a listener whose accept queue is full: Linux drops a SYN it has no room for, and the
 * client's kernel would only send it again a second later). Proves that a timed-out probe is sent
 * again, that a port that answered once is reported, that a scan which lost probes says so and
 * says when it may be incomplete, and that an event-loop stall does not turn an open port into a
 * filtered one. No timing assertions: stalls are made on purpose, answers are made to go missing.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { test, type TestContext } from 'node:test';
import { EngineError, type EngineEvent, type EngineJob } from '../src/engines/engine.js';
import { SocketBudget } from '../src/engines/rampart/budget.js';
import { LoopLoad } from '../src/engines/rampart/loop-load.js';
import { connectTcp, connectTimed } from '../src/engines/rampart/port-scan.js';
import { resolvePorts } from '../src/engines/rampart/ports.js';
import { createRampartEngine } from '../src/engines/rampart/rampart.engine.js';
import { scanPorts } from '../src/engines/rampart/scan.js';
import { planTargets } from '../src/engines/rampart/targets.js';
import type { AddressGuard } from '../src/shared/address-guard.js';
import { createEgress, type Egress } from '../src/shared/egress.js';

const loopbackGuard: AddressGuard = {
  check: (address) => (address.startsWith('127.') ? { allowed: true, class: 'loopback' } : { allowed: false, class: 'public' }),
};

/** A listener that answers (and closes) every connection. */
async function openPort(t: TestContext): Promise<number> {
  const server = net.createServer((socket) => socket.destroy());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => server.close());
  return (server.address() as net.AddressInfo).port;
}

/**
 * A port that drops every SYN: a listener in a child process that never accepts (its thread
 * sleeps in Atomics.wait, without spinning), its accept queue (backlog 1) filled by two
 * connections the test holds open. Linux drops a SYN while the queue is full.
 */
async function blackholePort(t: TestContext): Promise<number> {
  const script =
    "const s=require('net').createServer();s.listen({port:0,host:'127.0.0.1',backlog:1},()=>" +
    'process.stdout.write(s.address().port+"\\n",()=>Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0)))';
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  const [data] = (await once(child.stdout, 'data')) as [Buffer];
  const port = Number(data.toString().trim());
  for (let i = 0; i < 2; i++) {
    const filler = net.connect(port, '127.0.0.1');
    t.after(() => filler.destroy());
    await once(filler, 'connect');
  }
  return port;
}

/**
 * The real egress, except that the first connection to each port in `dropFirst` goes to the
 * blackhole instead: that port's first SYN is lost, the next ones reach its listener.
 */
function lossyEgress(blackhole: number, dropFirst: number[]): { egress: Egress; attempts: Map<number, number> } {
  const real = createEgress({ guard: loopbackGuard });
  const attempts = new Map<number, number>();
  const egress: Egress = {
    ...real,
    openSocket(address, port) {
      const n = (attempts.get(port) ?? 0) + 1;
      attempts.set(port, n);
      return real.openSocket(address, n === 1 && dropFirst.includes(port) ? blackhole : port);
    },
  };
  return { egress, attempts };
}

/** The engine reduced to the port scan, as bench/portscan runs it (no banner, detection, checks or UDP). */
const engine = createRampartEngine({
  checks: [],
  udp: false,
  detect: async () => ({ name: 'unknown', product: null, version: null, cpe: null, tls: false, banner: null, details: {} }),
});

async function scan(egress: Egress, ports: number[]): Promise<EngineEvent[]> {
  const job: EngineJob = {
    targets: [{ kind: 'ip', value: '127.0.0.1' }],
    ports,
    guard: loopbackGuard,
    egress,
    signal: new AbortController().signal,
    // The ceiling bounds every timeout (and so the test's length): 300 ms, below the kernel's 1 s SYN retransmission.
    limits: { connectTimeoutMs: 300, readTimeoutMs: 0, maxConcurrency: 8, ratePerSecond: 0 },
    vulnerabilities: { syncedAt: new Date(), forCpe: async () => [] },
  };
  const events: EngineEvent[] = [];
  for await (const event of engine.run(job)) events.push(event);
  return events;
}

const openPortsOf = (events: EngineEvent[]): number[] =>
  events.flatMap((e) => (e.type === 'finding' && e.finding.port !== null ? [e.finding.port] : [])).sort((a, b) => a - b);
const warningsOf = (events: EngineEvent[]): string[] => events.flatMap((e) => (e.type === 'log' && e.level === 'warn' ? [e.message] : []));
/** The notes about lost probes (a loaded test machine may add one about a stall of its own). */
const lossNotesOf = (events: EngineEvent[]): string[] => warningsOf(events).filter((w) => w.startsWith('Probes to'));
const incompleteOf = (events: EngineEvent[]): string[] => events.flatMap((e) => (e.type === 'incomplete' ? [e.message] : []));

test('a port whose first SYN is lost is sent again and reported open; the notes say probes were lost', async (t) => {
  const blackhole = await blackholePort(t);
  const open = await openPort(t);
  const { egress, attempts } = lossyEgress(blackhole, [open]);
  const events = await scan(egress, [open]);
  // Two probes (one lost, one answered), then the service stage's banner connection.
  assert.equal(attempts.get(open), 3, 'one retransmission');
  assert.deepEqual(openPortsOf(events), [open]);
  assert.deepEqual(lossNotesOf(events), [`Probes to 127.0.0.1 were lost: port(s) ${open} answered only when retried. Every other probe was answered.`]);
  assert.deepEqual(incompleteOf(events), [], 'every probe was answered in the end: nothing is missing');
});

test('a port that never answers is tried again, and on a host that lost probes the run is incomplete', async (t) => {
  const blackhole = await blackholePort(t);
  const open = await openPort(t);
  const { egress, attempts } = lossyEgress(blackhole, [open]);
  const events = await scan(egress, [open, blackhole]);
  assert.deepEqual(openPortsOf(events), [open]);
  assert.ok(attempts.get(blackhole)! >= 2, `the silent port was retried (${attempts.get(blackhole)} attempts)`);
  assert.deepEqual(lossNotesOf(events), [
    `Probes to 127.0.0.1 were lost: port(s) ${open} answered only when retried. 1 other probe(s) got no answer even when retried: on a host that loses probes they may be open ports.`,
  ]);
  assert.deepEqual(incompleteOf(events), ['The port scan may have missed open ports: 1 probe(s) went unanswered on host(s) that lose probes.']);
});

test('a silent port on a host that loses nothing is filtered: retried once, and the run complete', async (t) => {
  const blackhole = await blackholePort(t);
  const open = await openPort(t);
  const { egress, attempts } = lossyEgress(blackhole, []);
  const events = await scan(egress, [open, blackhole]);
  assert.deepEqual(openPortsOf(events), [open]);
  assert.equal(attempts.get(blackhole), 2, 'one retransmission, as nmap');
  assert.equal(attempts.get(open), 2, "one probe and the service stage's banner connection");
  assert.deepEqual(lossNotesOf(events), []);
  assert.deepEqual(incompleteOf(events), []);
});

/** Blocks the thread for `ms` milliseconds, as a busy CPU or a long synchronous task does. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

test('a loop stall after the connect left does not make an open port filtered', async (t) => {
  const open = await openPort(t);
  // Start in the check phase (after setImmediate): the next loop turn runs its timers before it polls for I/O.
  await new Promise((resolve) => setImmediate(resolve));
  const egress = createEgress({ guard: loopbackGuard });
  const pending = connectTcp(egress, '127.0.0.1', open, 20, new AbortController().signal);
  // Queued after Node's own connect tick: the SYN has left (and on loopback been answered) when the thread stalls.
  process.nextTick(() => stall(200));
  const outcome = await pending;
  if (outcome.state === 'connected') outcome.socket.destroy();
  assert.equal(outcome.state, 'connected', 'the answer waiting to be read wins over the timer that expired during the stall');
});

const STALL_MS = 1500;

test('a probe is timed from when its connect left, not from when it was queued behind a stall', async (t) => {
  const open = await openPort(t);
  const egress = createEgress({ guard: loopbackGuard });
  const pending = connectTimed(egress, '127.0.0.1', open, 20, new AbortController().signal);
  // The thread stalls before Node issues the connect (on its next tick): the probe is still queued.
  stall(STALL_MS);
  const { outcome, rttMs } = await pending;
  if (outcome.state === 'connected') outcome.socket.destroy();
  assert.equal(outcome.state, 'connected');
  // Timed from the queueing, the round trip would hold the whole stall; a loopback connect takes
  // milliseconds, so the stall is long enough that no loaded machine gets near it.
  assert.ok(rttMs < STALL_MS, `round trip ${rttMs} ms`);
});

test('a host:port target (Nuclei scans only) is a config error for the Rampart engine', async () => {
  await assert.rejects(
    planTargets([{ kind: 'service', value: '127.0.0.1:8080' }], { resolveHost: async () => [], timeoutMs: 1000, signal: new AbortController().signal }),
    (error: unknown) => error instanceof EngineError && error.kind === 'config' && /"127\.0\.0\.1:8080" names a port/.test(error.message),
  );
});

test('a loop stall during the port scan lowers the probes in flight and is noted', async (t) => {
  const open = await openPort(t);
  const plan = await planTargets([{ kind: 'ip', value: '127.0.0.1' }], { resolveHost: async () => [], timeoutMs: 1000, signal: new AbortController().signal });
  const loop = new LoopLoad(64);
  const events: EngineEvent[] = [];
  await scanPorts({
    groups: plan.groups,
    ports: resolvePorts([open]),
    egress: createEgress({ guard: loopbackGuard }),
    limits: { connectTimeoutMs: 1000, readTimeoutMs: 0, maxConcurrency: 64, ratePerSecond: 0 },
    signal: new AbortController().signal,
    emit: async (event) => void events.push(event),
    // The service stage (here: a synchronous stall) shares the thread with the scan.
    onOpenPort: async () => stall(400),
    budget: new SocketBudget(64),
    bucket: undefined,
    loop,
  });
  assert.ok(loop.stats.maxLagMs >= 300, `lag measured ${loop.stats.maxLagMs} ms`);
  // Halved at least once (a loaded test machine may lag more on its own).
  assert.ok(loop.stats.lowestLimit <= 32, `lowest limit ${loop.stats.lowestLimit}`);
  const notes = warningsOf(events).filter((w) => w.startsWith("The scanner's event loop stalled"));
  assert.equal(notes.length, 1, warningsOf(events).join('\n'));
  assert.match(notes[0]!, /stalled \d+ time\(s\) during the port scan, for up to \d+ ms \(a busy CPU\): probes in flight were lowered to (32|16) of 64/);
  assert.deepEqual(incompleteOf(events), [], 'a stall alone loses nothing');
});

test('the loop bound halves while the loop lags and grows back while it keeps up', async () => {
  const loop = new LoopLoad(64);
  loop.observe(250);
  assert.equal(loop.limit, 32);
  loop.observe(500);
  assert.equal(loop.limit, 16);
  loop.observe(500);
  assert.equal(loop.limit, 16, 'never below 16');
  loop.observe(100);
  assert.equal(loop.limit, 16, 'a middling lag holds the limit');
  for (let i = 0; i < 30; i++) loop.observe(0);
  assert.equal(loop.limit, 64, 'back to the maximum, and no further');
  assert.deepEqual(loop.stats, { maxLagMs: 500, stalls: 3, lowestLimit: 16 });

  // Room that appears wakes the probes waiting for it.
  const signal = new AbortController().signal;
  for (let i = 0; i < 32; i++) assert.equal(await loop.acquire(signal), true);
  for (let i = 0; i < 12; i++) loop.observe(300);
  assert.equal(loop.limit, 16);
  let woken = false;
  const waiting = loop.acquire(signal).then((taken) => (woken = taken));
  loop.observe(0);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(woken, false, 'still over the limit');
  for (let i = 0; i < 8; i++) loop.observe(0);
  assert.equal(loop.limit, 34);
  assert.equal(await waiting, true);
});
