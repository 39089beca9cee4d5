/**
 * The port-scan stage: walks (address, port) pairs lazily, asks the address guard about each
 * address before its first probe, connects through a bounded worker pool under the job's rate
 * limit and each host's timing (timing.ts), hands every open port to the service stage at once
 * (`onOpenPort`), and reports host states and progress as probes complete. It sends nothing to
 * a service: a probe is a TCP connect, closed at once.
 *
 * Liveness: a host is up when any probe connected or was refused (a RST is an answer). Timeouts,
 * ICMP unreachables and local errors say nothing, so a host with only those is down.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { EngineEvent, EngineJob } from '../engine.js';
import type { ProbedHost } from './findings.js';
import { runPool } from './pool.js';
import { connectTcp } from './port-scan.js';
import { HostTiming } from './timing.js';
import type { SocketBudget } from './budget.js';
import type { PortSet } from './ports.js';
import type { TokenBucket } from './rate-limit.js';
import type { AddressGroup } from './targets.js';

/** Everything the stage needs; `emit` applies back-pressure, so it is awaited. */
export interface PortScanContext {
  groups: readonly AddressGroup[];
  ports: PortSet;
  /** Asked about each address before its first probe; every probe's socket comes from it. */
  egress: EngineJob['egress'];
  limits: EngineJob['limits'];
  signal: AbortSignal;
  emit(event: EngineEvent): Promise<void>;
  /** Called for each open port as it is found (awaited: the service stage applies back-pressure). */
  onOpenPort(host: ProbedHost, port: number): Promise<void>;
  /** Called once per address when all its probes are done, with whether it answered. */
  onHostDone?(host: ProbedHost, up: boolean): Promise<void>;
  /** Progress is scaled into 0..progressCeiling (the service stage reports the rest). */
  progressCeiling?: number;
  /** Shared with the service stage: bounds the sockets open at once. */
  budget: SocketBudget;
  /** The job's rate limit (RAMPART_SCAN_RATE), shared with the UDP probes; absent for none. */
  bucket: TokenBucket | undefined;
}

/** Per-address warnings before the rest are summed up: a refused /8 must not log 16M lines. */
const MAX_REFUSAL_WARNINGS = 100;

/** Hosts scanned side by side (their ports interleaved); bounds the memory of a large range. */
const HOST_GROUP = 64;

/** The ports in a random order (Fisher-Yates); at most 65,535 numbers. */
function shuffled(ports: Iterable<number>): number[] {
  const list = [...ports];
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}

/** How many refused addresses in a row before yielding, so an abort is seen during a long refused range. */
const REFUSALS_BETWEEN_YIELDS = 1024;

interface HostRecord extends ProbedHost {
  /** Probes handed out and not yet finished. */
  pending: number;
  /** Every port of the host has been handed out. */
  issued: boolean;
  up: boolean;
  timing: HostTiming;
}

/**
 * Runs the stage to completion, or until `signal` aborts; after an abort it reports nothing
 * more for the probes it cut short (no finding, no host state). Progress stays at most 99 here:
 * the caller reports 100 once everything is done.
 */
export async function scanPorts(context: PortScanContext): Promise<void> {
  const { ports, egress, limits, signal, emit } = context;
  const total = context.groups.reduce((sum, group) => sum + group.count, 0n) * BigInt(ports.count);
  const progress = new ProgressMeter(total, context.progressCeiling ?? 99);
  const { bucket } = context;
  const warnedErrorCodes = new Set<string>();
  // The scan-wide estimate that a host without answers of its own borrows.
  const scanTiming = new HostTiming(limits.connectTimeoutMs, limits.maxConcurrency);
  const order = shuffled(ports);
  let refusals = 0;

  const advance = async (probes: number): Promise<void> => {
    const percent = progress.advance(probes);
    if (percent !== null) await emit({ type: 'progress', percent });
  };
  const reportHost = async (host: HostRecord): Promise<void> => {
    await emit({ type: 'host', hostname: host.hostname, address: host.address, state: host.up ? 'up' : 'down' });
    await context.onHostDone?.({ hostname: host.hostname, address: host.address }, host.up);
  };

  /** Allowed addresses, one at a time; refusals are counted, warned about and skipped. */
  async function* allowedHosts(): AsyncGenerator<HostRecord, void, undefined> {
    let refusedInARow = 0;
    for (const group of context.groups) {
      for (const address of group.addresses()) {
        if (signal.aborted) return;
        const verdict = egress.check(address);
        if (!verdict.allowed) {
          refusals += 1;
          if (refusals <= MAX_REFUSAL_WARNINGS) {
            const message = `Skipped ${address} (${verdict.class}): refused by the address guard, nothing was sent to it.`;
            await emit({ type: 'log', level: 'warn', message });
          }
          await advance(ports.count);
          refusedInARow += 1;
          if (refusedInARow % REFUSALS_BETWEEN_YIELDS === 0) await yieldToEventLoop();
          continue;
        }
        refusedInARow = 0;
        yield {
          hostname: group.hostname ?? address,
          address,
          pending: 0,
          issued: false,
          up: false,
          timing: new HostTiming(limits.connectTimeoutMs, limits.maxConcurrency, scanTiming),
        };
      }
    }
  }

  /**
   * (host, port) pairs, a group of hosts at a time with their ports interleaved and in a shuffled
   * order: every host gets early probes (so its round-trip time is learned at once), a host that
   * drops everything costs its timeouts in parallel with the others, and no host sees the ports
   * in sequence.
   */
  async function* pairs(): AsyncGenerator<{ host: HostRecord; port: number }, void, undefined> {
    const hosts = allowedHosts();
    for (;;) {
      const group: HostRecord[] = [];
      for (let next = await hosts.next(); !next.done; next = group.length < HOST_GROUP ? await hosts.next() : { done: true, value: undefined }) {
        group.push(next.value);
      }
      if (group.length === 0) return;
      for (const port of order) {
        for (const host of group) {
          if (signal.aborted) return;
          host.pending += 1;
          yield { host, port };
        }
      }
      for (const host of group) {
        host.issued = true;
        // The last probe may have finished while this generator waited at its yield.
        if (host.pending === 0) await reportHost(host);
      }
    }
  }

  // `stop` is the pool's signal: it aborts with the job, and also when another probe failed.
  const probe = async ({ host, port }: { host: HostRecord; port: number }, stop: AbortSignal): Promise<void> => {
    if (bucket !== undefined) {
      try {
        await bucket.take(stop);
      } catch (error) {
        if (stop.aborted) return;
        throw error;
      }
    }
    if (!(await host.timing.acquire(stop))) return;
    const result = await context.budget.with(stop, async () => {
      const started = performance.now();
      const outcome = await connectTcp(egress, host.address, port, host.timing.timeoutMs(), stop);
      if (outcome.state === 'connected') outcome.socket.destroy();
      return { outcome, rttMs: performance.now() - started };
    });
    host.timing.release();
    if (result === undefined || result.outcome.state === 'aborted') return;
    const { outcome, rttMs } = result;
    if (outcome.state === 'connected' || outcome.state === 'closed') {
      host.up = true;
      host.timing.answered(rttMs);
      scanTiming.answered(rttMs);
    } else if (outcome.state === 'filtered') {
      host.timing.dropped();
    }
    // The slot is free again before the service stage is asked to take the port.
    if (outcome.state === 'connected') {
      await context.onOpenPort({ hostname: host.hostname, address: host.address }, port);
    } else if (outcome.state === 'error' && !warnedErrorCodes.has(outcome.code)) {
      warnedErrorCodes.add(outcome.code);
      const message =
        `Probes failed locally with ${outcome.code} (first at ${host.address}:${port}); those ports are ` +
        'reported as not open, so results may be incomplete. A lower maxConcurrency may help.';
      await emit({ type: 'log', level: 'warn', message });
    }
    host.pending -= 1;
    if (host.issued && host.pending === 0) await reportHost(host);
    await advance(1);
  };

  await runPool(pairs(), limits.maxConcurrency, probe, signal);
  if (signal.aborted || refusals <= MAX_REFUSAL_WARNINGS) return;
  const more = refusals - MAX_REFUSAL_WARNINGS;
  await emit({ type: 'log', level: 'warn', message: `Skipped ${more} more addresses refused by the address guard.` });
}

/** Integer percent of probes done, reported only when it changes; the total may be huge. */
class ProgressMeter {
  private done = 0n;
  private last = -1;

  constructor(
    private readonly total: bigint,
    private readonly ceiling: number,
  ) {}

  /** The new percent (scaled to the ceiling) when it changed, else null. */
  advance(probes: number): number | null {
    this.done += BigInt(probes);
    if (this.total === 0n) return null;
    const percent = Math.min(this.ceiling, Number((this.done * BigInt(this.ceiling)) / this.total));
    if (percent === this.last) return null;
    this.last = percent;
    return percent;
  }
}
