/**
 * A queue between callbacks (a child process's streams and exit) and an async generator: events
 * pushed while nobody waits are kept in order; `end` finishes the iteration, with an error or not.
 */
export class EventQueue<T> {
  private readonly items: T[] = [];
  private ended = false;
  private failure: unknown = undefined;
  private wake: (() => void) | undefined;

  push(item: T): void {
    if (this.ended) return;
    this.items.push(item);
    this.notify();
  }

  /** No more items; the iteration throws `error` after the items already queued, when given. */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = error;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.ended) {
        if (this.failure !== undefined) throw this.failure;
        return;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}
