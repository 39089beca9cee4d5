/**
 * The port-scan stage: walks (address, port) pairs lazily, asks the address guard about each
 * address before its first probe, probes through a bounded worker pool under the job's rate
 * limit, and reports findings, host states and progress as probes complete.
 *
 * Liveness: a host is up when any probe connected or was refused (a RST is an answer). Timeouts,
 * ICMP unreachables and local errors say nothing, so a host with only those is down.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { EngineEvent, EngineJob } from '../engine.js';
import { openPortFinding, type ProbedHost } from './findings.js';
import { runPool } from './pool.js';
import { probeTcpPort } from './port-scan.js';
import type { PortSet } from './ports.js';
import { TokenBucket } from './rate-limit.js';
import type { AddressGroup } from './targets.js';

/** Everything the stage needs; `emit` applies back-pressure, so it is awaited. */
export interface PortScanContext {
  groups: readonly AddressGroup[];
  ports: PortSet;
  guard: EngineJob['guard'];
  limits: EngineJob['limits'];
  signal: AbortSignal;
  emit(event: EngineEvent): Promise<void>;
}

/** Per-address warnings before the rest are summed up: a refused /8 must not log 16M lines. */
const MAX_REFUSAL_WARNINGS = 100;

/** How many refused addresses in a row before yielding, so an abort is seen during a long refused range. */
const REFUSALS_BETWEEN_YIELDS = 1024;

interface HostRecord extends ProbedHost {
  /** Probes handed out and not yet finished. */
  pending: number;
  /** Every port of the host has been handed out. */
  issued: boolean;
  up: boolean;
}

/**
 * Runs the stage to completion, or until `signal` aborts; after an abort it reports nothing
 * more for the probes it cut short (no finding, no host state). Progress stays at most 99 here:
 * the caller reports 100 once everything is done.
 */
export async function scanPorts(context: PortScanContext): Promise<void> {
  const { ports, guard, limits, signal, emit } = context;
  const total = context.groups.reduce((sum, group) => sum + group.count, 0n) * BigInt(ports.count);
  const progress = new ProgressMeter(total);
  const bucket = limits.ratePerSecond > 0 ? new TokenBucket(limits.ratePerSecond) : undefined;
  const warnedErrorCodes = new Set<string>();
  let refusals = 0;

  const advance = async (probes: number): Promise<void> => {
    const percent = progress.advance(probes);
    if (percent !== null) await emit({ type: 'progress', percent });
  };
  const reportHost = (host: HostRecord): Promise<void> =>
    emit({ type: 'host', hostname: host.hostname, address: host.address, state: host.up ? 'up' : 'down' });

  async function* pairs(): AsyncGenerator<{ host: HostRecord; port: number }, void, undefined> {
    let refusedInARow = 0;
    for (const group of context.groups) {
      for (const address of group.addresses()) {
        if (signal.aborted) return;
        const verdict = guard.check(address);
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
        const host: HostRecord = { hostname: group.hostname ?? address, address, pending: 0, issued: false, up: false };
        for (const port of ports) {
          if (signal.aborted) return;
          host.pending += 1;
          yield { host, port };
        }
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
    const result = await probeTcpPort(host.address, port, { ...limits, signal: stop });
    if (result === null) return;
    if (result.state === 'open' || result.state === 'closed') host.up = true;
    if (result.state === 'open') {
      await emit({ type: 'finding', finding: openPortFinding(host, port, result.banner, limits.readTimeoutMs) });
    } else if (result.state === 'error' && !warnedErrorCodes.has(result.code)) {
      warnedErrorCodes.add(result.code);
      const message =
        `Probes failed locally with ${result.code} (first at ${host.address}:${port}); those ports are ` +
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

  constructor(private readonly total: bigint) {}

  /** The new percent (capped at 99) when it changed, else null. */
  advance(probes: number): number | null {
    this.done += BigInt(probes);
    if (this.total === 0n) return null;
    const percent = Math.min(99, Number((this.done * 100n) / this.total));
    if (percent === this.last) return null;
    this.last = percent;
    return percent;
  }
}
