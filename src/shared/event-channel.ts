/**
 * A bounded queue from an engine's workers to its async iterator (Rampart and nuclei engines). Bounded so that a slow
 * consumer (the orchestrator writing to the database) slows the scan down instead of letting
 * events pile up in memory.
 */
import { setMaxListeners } from 'node:events';

/** A single-consumer async queue with back-pressure. */
export class EventChannel<T extends object> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private readonly spaceWaiters: Array<() => void> = [];
  private itemWaiter: (() => void) | undefined;
  private closed = false;
  private failure: { error: unknown } | undefined;

  constructor(private readonly capacity: number) {}

  /**
   * Queues an item; resolves once there is room for it. After `close` or `cancel` the item is
   * dropped and the call resolves at once, so producers never hang on a consumer that left.
   */
  async push(item: T): Promise<void> {
    while (!this.closed && this.items.length >= this.capacity) {
      await new Promise<void>((resolve) => this.spaceWaiters.push(resolve));
    }
    if (this.closed) return;
    this.items.push(item);
    this.wakeConsumer();
  }

  /** No more items: the consumer drains what is queued, then ends (or throws `error`). */
  close(error?: unknown): void {
    if (this.closed) return;
    this.closed = true;
    if (error !== undefined) this.failure = { error };
    this.releaseProducers();
    this.wakeConsumer();
  }

  /** The consumer left: drop what is queued and end the iteration without draining. */
  cancel(): void {
    this.items.length = 0;
    this.close();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) {
        this.spaceWaiters.shift()?.();
        yield item;
        continue;
      }
      if (this.closed) {
        if (this.failure !== undefined) throw this.failure.error;
        return;
      }
      await new Promise<void>((resolve) => {
        this.itemWaiter = resolve;
      });
    }
  }

  private wakeConsumer(): void {
    const waiter = this.itemWaiter;
    this.itemWaiter = undefined;
    waiter?.();
  }

  private releaseProducers(): void {
    for (const waiter of this.spaceWaiters.splice(0)) waiter();
  }
}

/**
 * An engine's run as an iteration: `produce` works under its own stop signal and pushes events
 * into a bounded channel; the iteration yields them until the producer ends (a failure is thrown
 * as `toError` makes it) and returns quietly once `signal` aborts. The stop signal also fires when
 * the consumer leaves early (break / return()), and the iteration ends only after the producer has
 * let go of its sockets and timers.
 */
export async function* streamEvents<T extends object>(
  signal: AbortSignal,
  capacity: number,
  produce: (stop: AbortSignal, push: (item: T) => Promise<void>) => Promise<void>,
  toError: (error: unknown) => unknown,
): AsyncGenerator<T, void, undefined> {
  const stop = new AbortController();
  // Every worker of a run listens on it: no listener-count warning.
  setMaxListeners(0, stop.signal);
  const channel = new EventChannel<T>(capacity);
  const onAbort = (): void => {
    stop.abort(signal.reason);
    channel.cancel();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  const producer = produce(stop.signal, (item) => channel.push(item)).then(
    () => channel.close(),
    (error: unknown) => channel.close(toError(error)),
  );
  try {
    for await (const item of channel) {
      if (signal.aborted) return;
      yield item;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    stop.abort();
    channel.cancel();
    await producer;
  }
}
