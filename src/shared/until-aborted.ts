/**
 * Waiting on work that does not itself follow an abort signal (a DNS look-up, a child's first
 * answer): the wait ends at the abort, the work is left to settle on its own.
 */

/** `work`'s value, or undefined as soon as `signal` aborts. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = (): void => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
