/**
 * The port-scan stage: walks (address, port) pairs lazily, asks the address guard about each
 * address before its first probe, connects through a bounded worker pool under the job's rate
 * limit and each host's timing (timing.ts), hands every open port to the service stage at once
 * (`onOpenPort`), and reports host states and progress as probes complete. It sends nothing to
 * a service: a probe is a TCP connect, closed at once.
 *
 * Liveness: a host is up when any probe connected or was refused (a RST is an answer). Timeouts,
 * ICMP unreachables and local errors say nothing, so a host with only those is down.
 *
 * No lost ports: a probe that got no answer (or failed locally) is sent again with a grown
 * timeout, as nmap retransmits; a host where a retransmission was answered has shown that it
 * loses probes, and gets more of them. The probes in flight are bounded by what the event loop
 * can serve (loop-load.ts). When a host's scan degraded the run's notes say so, and when ports
 * may be missing (probes never answered on a host that loses probes, probes that kept failing
 * locally) the engine says the run is incomplete.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { EngineEvent, EngineJob } from '../engine.js';
import type { ProbedHost } from './findings.js';
import { runPool } from '../../shared/pool.js';
import { connectTimed, REFUSED_BY_GUARD, type ConnectOutcome } from './port-scan.js';
import { HostTiming } from './timing.js';
import { LoopLoad } from './loop-load.js';
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
  /** Bounds the probes in flight by the event loop's lag; default a new one, sampling the real loop. */
  loop?: LoopLoad;
}

/** Retransmissions of an unanswered probe (nmap's first retransmission). */
const RETRIES = 1;
/** Retransmissions on a host that answered a retransmission: it loses probes (nmap raises its cap too). */
const LOSSY_HOST_RETRIES = 3;
/** Degraded hosts named one by one in the notes before the rest are counted. */
const MAX_DEGRADED_NOTES = 5;
/** Ports named in a host's note. */
const MAX_PORTS_NAMED = 10;

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
  /** Retransmissions allowed per probe; raised when the host answered one. */
  retries: number;
  /** Ports that answered only when retransmitted. */
  rescued: number[];
  /** Probes never answered after every retransmission. */
  unanswered: number;
}

/** How a host's scan degraded, for the notes. */
interface Degraded {
  address: string;
  rescued: number[];
  unanswered: number;
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
  const loop = context.loop ?? new LoopLoad(limits.maxConcurrency);
  const degraded: Degraded[] = [];
  let degradedHosts = 0;
  let maybeMissing = 0;
  const localFailures = new Map<string, number>();

  const advance = async (probes: number): Promise<void> => {
    const percent = progress.advance(probes);
    if (percent !== null) await emit({ type: 'progress', percent });
  };
  const reportHost = async (host: HostRecord): Promise<void> => {
    if (host.rescued.length > 0) {
      degradedHosts += 1;
      if (degraded.length < MAX_DEGRADED_NOTES) degraded.push({ address: host.address, rescued: host.rescued, unanswered: host.unanswered });
      // A host that lost probes may have lost the answers of open ports too.
      maybeMissing += host.unanswered;
    }
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
          retries: RETRIES,
          rescued: [],
          unanswered: 0,
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

  /** One connection attempt under the rate limit, the host's window, the loop's bound and the socket budget. */
  const attempt = async (host: HostRecord, port: number, timeoutMs: () => number, stop: AbortSignal): Promise<ConnectOutcome | undefined> => {
    if (bucket !== undefined) {
      try {
        await bucket.take(stop);
      } catch (error) {
        if (stop.aborted) return undefined;
        throw error;
      }
    }
    if (!(await host.timing.acquire(stop))) return undefined;
    try {
      if (!(await loop.acquire(stop))) return undefined;
      // Released in the finally blocks below, whatever the attempt's outcome.
      try {
        const result = await context.budget.with(stop, async () => {
          const timed = await connectTimed(egress, host.address, port, timeoutMs(), stop);
          if (timed.outcome.state === 'connected') timed.outcome.socket.destroy();
          return timed;
        });
        if (result === undefined || result.outcome.state === 'aborted') return undefined;
        const { outcome, rttMs } = result;
        if (outcome.state === 'connected' || outcome.state === 'closed') {
          host.up = true;
          host.timing.answered(rttMs);
          scanTiming.answered(rttMs);
        }
        return outcome;
      } finally {
        loop.release();
      }
    } finally {
      host.timing.release();
    }
  };

  // `stop` is the pool's signal: it aborts with the job, and also when another probe failed.
  const probe = async ({ host, port }: { host: HostRecord; port: number }, stop: AbortSignal): Promise<void> => {
    let tries = 0;
    let outcome: ConnectOutcome | undefined;
    for (;;) {
      // Taken when the connect leaves: the host's estimate by then, doubled per retransmission.
      const retransmission = tries;
      const timeoutMs = (): number => host.timing.retryTimeoutMs(retransmission);
      outcome = await attempt(host, port, timeoutMs, stop);
      if (outcome === undefined) return;
      const retryable = outcome.state === 'filtered' || (outcome.state === 'error' && outcome.code !== REFUSED_BY_GUARD);
      if (!retryable || tries >= host.retries) break;
      tries += 1;
    }
    const answered = outcome.state === 'connected' || outcome.state === 'closed';
    if (answered && tries > 0) {
      // Answered a retransmission: this host loses probes, so the others deserve more tries, and
      // fewer at once. A timeout alone is no loss: a firewall drops on purpose (nmap's view too).
      host.retries = LOSSY_HOST_RETRIES;
      host.timing.dropped();
      if (host.rescued.length < MAX_PORTS_NAMED + 1) host.rescued.push(port);
    } else if (outcome.state === 'filtered') {
      host.unanswered += 1;
    }
    // The slot is free again before the service stage is asked to take the port.
    if (outcome.state === 'connected') {
      await context.onOpenPort({ hostname: host.hostname, address: host.address }, port);
    } else if (outcome.state === 'error') {
      localFailures.set(outcome.code, (localFailures.get(outcome.code) ?? 0) + 1);
      if (!warnedErrorCodes.has(outcome.code)) {
        warnedErrorCodes.add(outcome.code);
        const message =
          `Probes failed locally with ${outcome.code} even when retried (first at ${host.address}:${port}); those ports ` +
          'are reported as not open, so results may be incomplete. A lower maxConcurrency may help.';
        await emit({ type: 'log', level: 'warn', message });
      }
    }
    host.pending -= 1;
    if (host.issued && host.pending === 0) await reportHost(host);
    await advance(1);
  };

  /** The notes of a degraded scan, and whether it is incomplete (ports may be missing). */
  const reportDegradation = async (): Promise<void> => {
    for (const host of degraded) {
      const named = host.rescued.slice(0, MAX_PORTS_NAMED).join(', ') + (host.rescued.length > MAX_PORTS_NAMED ? ', ...' : '');
      const lost =
        host.unanswered > 0
          ? ` ${host.unanswered} other probe(s) got no answer even when retried: on a host that loses probes they may be open ports.`
          : ' Every other probe was answered.';
      await emit({ type: 'log', level: 'warn', message: `Probes to ${host.address} were lost: port(s) ${named} answered only when retried.${lost}` });
    }
    if (degradedHosts > degraded.length) {
      await emit({ type: 'log', level: 'warn', message: `Probes to ${degradedHosts - degraded.length} more host(s) were lost and answered only when retried.` });
    }
    const { maxLagMs, stalls, lowestLimit } = loop.stats;
    if (stalls > 0) {
      const message =
        `The scanner's event loop stalled ${stalls} time(s) during the port scan, for up to ${maxLagMs} ms (a busy CPU): ` +
        `probes in flight were lowered to ${lowestLimit} of ${limits.maxConcurrency}, and a probe's timeout counted only once the answers that had arrived were read.`;
      await emit({ type: 'log', level: 'warn', message });
    }
    const failed = [...localFailures.values()].reduce((sum, n) => sum + n, 0);
    if (maybeMissing > 0 || failed > 0) {
      const parts = [
        ...(maybeMissing > 0 ? [`${maybeMissing} probe(s) went unanswered on host(s) that lose probes`] : []),
        ...(failed > 0 ? [`${failed} probe(s) failed locally (${[...localFailures.keys()].join(', ')})`] : []),
      ];
      await emit({ type: 'incomplete', message: `The port scan may have missed open ports: ${parts.join('; ')}.` });
    }
  };

  loop.start();
  try {
    await runPool(pairs(), limits.maxConcurrency, probe, signal);
  } finally {
    loop.stop();
  }
  if (signal.aborted) return;
  if (refusals > MAX_REFUSAL_WARNINGS) {
    const more = refusals - MAX_REFUSAL_WARNINGS;
    await emit({ type: 'log', level: 'warn', message: `Skipped ${more} more addresses refused by the address guard.` });
  }
  await reportDegradation();
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
