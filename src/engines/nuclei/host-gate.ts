/**
 * The run's HostGate (execute/contract.ts): per-host politeness shared by every protocol. Each
 * host gets a concurrency limit and a request rate (evenly spaced slots, so a burst of templates
 * never hits a host all at once), and the run an overall rate when the deployment sets one. A host
 * that fails `maxErrors` exchanges in a row (timeouts, resets, refusals; nuclei's `-mhe`) is
 * skipped for the rest of the run: waiting and later requests reject with HostSkippedError, and
 * `onSkip` is told once so the run says so in one note.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { HostSkippedError, type HostGate } from './execute/contract.js';

/** How a gate is set up. */
export interface HostGateOptions {
  /** Requests in flight to one host. */
  concurrency: number;
  /** Requests per second to one host; 0 for no limit. */
  ratePerHost: number;
  /** Requests per second over every host; 0 for no limit. */
  rateOverall: number;
  /** Consecutive network errors after which a host is skipped. */
  maxErrors: number;
  signal: AbortSignal;
  /** Called once per skipped host, with the error that tipped it over. */
  onSkip?: (host: string, errors: number, last: unknown) => void;
  /** The clock (ms); tests may pin it. */
  now?: () => number;
}

interface HostState {
  inFlight: number;
  waiters: Array<{ resolve: () => void; reject: (error: Error) => void }>;
  errors: number;
  skipped: boolean;
  slots: SlotClock;
}

/** Hands out evenly spaced send times at a rate: each call reserves the next slot. */
class SlotClock {
  #next = 0;
  constructor(
    private readonly interval: number,
    private readonly now: () => number,
  ) {}

  /** Milliseconds to wait before the reserved slot. */
  reserve(): number {
    if (this.interval <= 0) return 0;
    const now = this.now();
    const at = Math.max(now, this.#next);
    this.#next = at + this.interval;
    return at - now;
  }
}

/** Creates the gate of one run. */
export function createHostGate(options: HostGateOptions): HostGate {
  const now = options.now ?? (() => performance.now());
  const hosts = new Map<string, HostState>();
  const overall = new SlotClock(options.rateOverall > 0 ? 1000 / options.rateOverall : 0, now);
  const stateOf = (host: string): HostState => {
    let state = hosts.get(host);
    if (!state) {
      state = { inFlight: 0, waiters: [], errors: 0, skipped: false, slots: new SlotClock(options.ratePerHost > 0 ? 1000 / options.ratePerHost : 0, now) };
      hosts.set(host, state);
    }
    return state;
  };
  const release = (state: HostState): void => {
    state.inFlight -= 1;
    state.waiters.shift()?.resolve();
  };

  return {
    async run<T>(host: string, send: () => Promise<T>): Promise<T> {
      const state = stateOf(host);
      if (state.skipped) throw new HostSkippedError(host);
      options.signal.throwIfAborted();
      if (state.inFlight >= options.concurrency) {
        await new Promise<void>((resolve, reject) => state.waiters.push({ resolve, reject }));
      }
      state.inFlight += 1;
      try {
        const wait = Math.max(state.slots.reserve(), overall.reserve());
        if (wait > 0) await delay(wait, undefined, { signal: options.signal });
        if (state.skipped) throw new HostSkippedError(host);
        return await send();
      } finally {
        release(state);
      }
    },
    answered(host) {
      stateOf(host).errors = 0;
    },
    networkError(host, error) {
      const state = stateOf(host);
      state.errors += 1;
      if (state.skipped || state.errors < options.maxErrors) return;
      state.skipped = true;
      // Requests waiting for room stop now rather than each time out on a dead host.
      for (const waiter of state.waiters.splice(0)) waiter.reject(new HostSkippedError(host));
      options.onSkip?.(host, state.errors, error);
    },
    isSkipped: (host) => hosts.get(host)?.skipped ?? false,
  };
}
