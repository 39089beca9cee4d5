/**
 * The job's socket budget: at most `limits.maxConcurrency` connections open at once across the
 * port scan and the service stage. Port probes give their slot back before handing an open port
 * on, so the two stages never wait on each other in a circle.
 */
/**
 * Takes room with `tryTake` (which checks and takes in one synchronous step: an await between the
 * two would let several waiters take the same room), waiting for a wake-up from `waiters` while
 * there is none. Resolves false when the signal aborted first.
 */
export async function takeRoom(tryTake: () => boolean, waiters: (() => void)[], signal: AbortSignal): Promise<boolean> {
  for (;;) {
    if (signal.aborted) return false;
    if (tryTake()) return true;
    await new Promise<void>((resolve) => {
      const onAbort = () => resolve();
      signal.addEventListener('abort', onAbort, { once: true });
      waiters.push(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }
}

export class SocketBudget {
  #free: number;
  #waiters: (() => void)[] = [];

  constructor(size: number) {
    this.#free = Math.max(1, size);
  }

  /** Takes a slot; false when the signal aborted first. */
  async acquire(signal: AbortSignal): Promise<boolean> {
    const tryTake = (): boolean => {
      if (this.#free === 0) return false;
      this.#free -= 1;
      return true;
    };
    return takeRoom(tryTake, this.#waiters, signal);
  }

  release(): void {
    this.#free += 1;
    this.#waiters.shift()?.();
  }

  /** Runs `work` holding a slot; resolves undefined when the signal aborted before a slot was free. */
  async with<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T | undefined> {
    if (!(await this.acquire(signal))) return undefined;
    try {
      return await work();
    } finally {
      this.release();
    }
  }
}
