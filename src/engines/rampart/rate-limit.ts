/**
 * A token bucket for the job's global rate of connection attempts. Callers are served in arrival
 * order, so no probe starves behind luckier ones.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Time as the bucket sees it; injectable so tests can run the bucket on a fake clock. */
export interface Clock {
  /** Milliseconds, monotonic. */
  now(): number;
  /** Waits `ms` milliseconds; rejects (and clears its timer) when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** The real clock: `performance.now()` and an abortable timer that never outlives its wait. */
export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) => sleep(ms, undefined, { signal }),
};

/**
 * Allows `ratePerSecond` takes per second on average. The burst is a twentieth of a second's
 * worth (at least one token): enough to absorb timer jitter at high rates without letting a scan
 * start with a spike of connection attempts.
 */
export class TokenBucket {
  private readonly capacity: number;
  private tokens: number;
  private last: number;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly ratePerSecond: number,
    private readonly clock: Clock = systemClock,
  ) {
    if (!(ratePerSecond > 0)) throw new RangeError('ratePerSecond must be positive');
    this.capacity = Math.max(1, ratePerSecond / 20);
    this.tokens = this.capacity;
    this.last = clock.now();
  }

  /** Resolves when the caller may make one attempt; rejects if `signal` aborts first. */
  take(signal: AbortSignal): Promise<void> {
    const turn = this.queue.then(() => this.acquire(signal));
    // The next caller waits for this one's turn to end, however it ends.
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async acquire(signal: AbortSignal): Promise<void> {
    for (;;) {
      signal.throwIfAborted();
      const now = this.clock.now();
      this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) * this.ratePerSecond) / 1000);
      this.last = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await this.clock.sleep(Math.ceil(((1 - this.tokens) * 1000) / this.ratePerSecond), signal);
    }
  }
}
