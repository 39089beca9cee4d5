/**
 * What the event loop can serve. Every answer to a probe is read by the one JavaScript thread, so
 * when the CPU is busy (another process, TLS handshakes of the service stage) a wide scan makes
 * the loop fall behind: answers wait unread while timers expire. This samples the loop's lag (how
 * late a periodic timer fires) and bounds the port scan's probes in flight by it: halved while
 * the loop lags, grown back step by step while it keeps up (additive increase, multiplicative
 * decrease, as the per-host window in timing.ts). It also keeps what a run's notes say about
 * stalls.
 */
import { takeRoom } from './budget.js';

/** How often the lag is sampled. */
const SAMPLE_MS = 50;
/** Lag above which the loop is behind: the concurrency is halved. */
const HIGH_LAG_MS = 200;
/** Lag under which the loop keeps up: the concurrency grows again. */
const LOW_LAG_MS = 50;
/** A lag this long is a stall worth a note in the run. */
export const STALL_MS = 250;
/** The concurrency never falls below this (or the maximum, if smaller): a scan must progress. */
const MIN_LIMIT = 16;

export class LoopLoad {
  #limit: number;
  #lowest: number;
  #inFlight = 0;
  #waiters: (() => void)[] = [];
  #last = 0;
  #timer: NodeJS.Timeout | undefined;
  #maxLagMs = 0;
  #stalls = 0;
  readonly #floor: number;

  constructor(private readonly maxConcurrency: number) {
    this.#limit = maxConcurrency;
    this.#lowest = maxConcurrency;
    this.#floor = Math.max(1, Math.min(MIN_LIMIT, maxConcurrency));
  }

  /** Starts sampling (the timer does not keep the process alive). */
  start(): void {
    if (this.#timer) return;
    this.#last = performance.now();
    this.#timer = setInterval(() => this.#sample(), SAMPLE_MS).unref();
  }

  /** Stops sampling, counting a stall still under way (one the timer has not fired after yet). */
  stop(): void {
    if (!this.#timer) return;
    this.#sample();
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #sample(): void {
    const now = performance.now();
    const lag = now - this.#last - SAMPLE_MS;
    this.#last = now;
    this.observe(Math.max(0, lag));
  }

  /** One lag sample, in milliseconds (the sampler's; a seam for tests). */
  observe(lagMs: number): void {
    this.#maxLagMs = Math.max(this.#maxLagMs, lagMs);
    if (lagMs >= STALL_MS) this.#stalls += 1;
    if (lagMs > HIGH_LAG_MS) {
      this.#limit = Math.max(this.#floor, Math.floor(this.#limit / 2));
      this.#lowest = Math.min(this.#lowest, this.#limit);
    } else if (lagMs < LOW_LAG_MS && this.#limit < this.maxConcurrency) {
      this.#limit = Math.min(this.maxConcurrency, this.#limit + Math.max(1, Math.ceil(this.maxConcurrency / 32)));
      // Room appeared: wake as many waiters as it holds.
      for (let room = this.#limit - this.#inFlight; room > 0 && this.#waiters.length > 0; room -= 1) this.#waiters.shift()?.();
    }
  }

  /** Probes allowed in flight now. */
  get limit(): number {
    return this.#limit;
  }

  /** What the run's notes say: the longest lag seen, how many samples were stalls, the lowest limit. */
  get stats(): { maxLagMs: number; stalls: number; lowestLimit: number } {
    return { maxLagMs: Math.round(this.#maxLagMs), stalls: this.#stalls, lowestLimit: this.#lowest };
  }

  /** Waits for room under the current limit; false when the signal aborted first. */
  acquire(signal: AbortSignal): Promise<boolean> {
    const tryTake = (): boolean => {
      if (this.#inFlight >= this.#limit) return false;
      this.#inFlight += 1;
      return true;
    };
    return takeRoom(tryTake, this.#waiters, signal);
  }

  release(): void {
    this.#inFlight -= 1;
    this.#waiters.shift()?.();
  }
}
