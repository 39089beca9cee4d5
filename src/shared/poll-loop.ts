/**
 * A background loop that calls `tick` until stopped: at once again while `tick` reports work
 * done, otherwise after `pollMs` or as soon as `notify()` says there is something new. Used by
 * the outbox workers (report email, webhook deliveries); `tick` errors go to `onError` and the
 * loop goes on.
 */
export class PollLoop {
  readonly #tick: () => Promise<boolean>;
  readonly #pollMs: number;
  readonly #onError: (error: unknown) => void;
  #stopped = true;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;

  constructor(tick: () => Promise<boolean>, pollMs: number, onError: (error: unknown) => void) {
    this.#tick = tick;
    this.#pollMs = pollMs;
    this.#onError = onError;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#loop = this.#run();
  }

  /** Runs the next tick now instead of at the end of the poll interval. */
  notify(): void {
    this.#wake?.();
  }

  /** Stops after the tick in progress, if any. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#loop;
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      let busy = false;
      try {
        busy = await this.#tick();
      } catch (error) {
        this.#onError(error);
      }
      if (busy) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.#pollMs);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }
}
