import { setMaxListeners } from 'node:events';

/**
 * A fixed pool of async workers pulling from one shared iterator: at most `concurrency` items
 * are in work at once, and memory stays bounded because items are pulled one at a time rather
 * than listed up front. Shared by the Rampart engine (port scan, DNS resolution) and the nuclei engine (template runs).
 */

/**
 * Runs `work` on every item of `source`, at most `concurrency` at a time. Stops pulling new items
 * once `signal` aborts or a worker throws; the signal handed to `work` also aborts on the first
 * failure, so the items still in flight stop early instead of running out their timeouts.
 * Resolves when every started item has settled, then rethrows the first failure, if any. The
 * source is closed (`return()`) at the end so that a generator's `finally` blocks run even when
 * the pool stopped early.
 */
export async function runPool<T>(
  source: Iterator<T> | AsyncIterator<T>,
  concurrency: number,
  work: (item: T, signal: AbortSignal) => Promise<void>,
  signal: AbortSignal,
): Promise<void> {
  let failure: { error: unknown } | undefined;
  let exhausted = false;
  const stop = new AbortController();
  // Every item in flight listens to it: hundreds of listeners are expected, not a leak.
  setMaxListeners(0, stop.signal);
  const onAbort = (): void => stop.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const fail = (error: unknown): void => {
    failure ??= { error };
    stop.abort(error);
  };

  const worker = async (): Promise<void> => {
    while (!exhausted && !stop.signal.aborted) {
      let next: IteratorResult<T>;
      try {
        // An async generator queues concurrent next() calls, so sharing it between workers is safe.
        next = await source.next();
      } catch (error) {
        fail(error);
        return;
      }
      if (next.done === true) {
        exhausted = true;
        return;
      }
      try {
        await work(next.value, stop.signal);
      } catch (error) {
        fail(error);
        return;
      }
    }
  };

  const workers: Promise<void>[] = [];
  for (let i = 0; i < Math.max(1, concurrency); i += 1) workers.push(worker());
  try {
    await Promise.all(workers);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (!exhausted) await source.return?.();
  if (failure !== undefined) throw failure.error;
}
