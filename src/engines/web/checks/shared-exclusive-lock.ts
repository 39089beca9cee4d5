/**
 * A shared/exclusive lock, and the one the timing checks share per scan. Also used by the engine
 * (scan-site.ts) to keep a check of a whole form alone on that form.
 *
 * The timing lock keeps the scanner's own delays out of its timing measurements. On a server that answers one
 * request at a time, a sleep sent to one input delays every request behind it, and a check timing
 * another input would take that lag for a delay of its own (the way other scanners report
 * time-based injections that are not there).
 *
 * So timed exchanges share a lock per scan: baseline samples and first (screening) delay probes
 * hold it shared, as many at once as the scan runs; a confirmation (short delay, long delay and
 * control, in a row) holds it alone, so no other timed exchange, and no other sleep the scanner
 * asked for, runs during it. A waiting confirmation goes before shared holders that came later.
 */

/** A shared/exclusive lock, first come first served except that shared holders run together. */
export class SharedExclusiveLock {
  private shared = 0;
  private exclusive = false;
  private readonly waiting: Array<{ exclusive: boolean; start: () => void }> = [];

  /** Runs `work` alongside other shared work, once no exclusive work runs or waits before it. */
  runShared<T>(work: () => Promise<T>): Promise<T> {
    return this.run(false, work);
  }

  /** Runs `work` alone: after every earlier holder is done, before any later one starts. */
  runExclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.run(true, work);
  }

  private async run<T>(exclusive: boolean, work: () => Promise<T>): Promise<T> {
    await new Promise<void>((start) => {
      this.waiting.push({ exclusive, start });
      this.admit();
    });
    try {
      return await work();
    } finally {
      if (exclusive) this.exclusive = false;
      else this.shared--;
      this.admit();
    }
  }

  private admit(): void {
    for (let next = this.waiting[0]; next; next = this.waiting[0]) {
      if (this.exclusive || (next.exclusive && this.shared > 0)) return;
      this.waiting.shift();
      if (next.exclusive) this.exclusive = true;
      else this.shared++;
      next.start();
    }
  }
}

const locks = new WeakMap<object, SharedExclusiveLock>();

/** The timing lock of a scan (`scope`: its client). */
export function timingLockOf(scope: object): SharedExclusiveLock {
  let lock = locks.get(scope);
  if (!lock) {
    lock = new SharedExclusiveLock();
    locks.set(scope, lock);
  }
  return lock;
}
