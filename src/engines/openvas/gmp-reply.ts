/**
 * One GMP reply being read: GMP has no length prefix and no delimiter, so the reply ends when its
 * root element closes. Each reply gets its own saxes parser that only tracks the depth (whatever
 * sizes the chunks arrive in, a tag split across two reads included), and the reply's text is
 * handed on as it comes: a report of many megabytes streams into the importer instead of being
 * held whole. The queue of text not yet read is bounded: past `maxQueuedChars` the connection
 * pauses the socket until the reader catches up.
 */
import { SaxesParser } from 'saxes';
import { EngineError } from '../engine.js';

/** The root element of a reply, as soon as it opened. */
export interface ReplyHead {
  name: string;
  attrs: Record<string, string>;
}

/** What the connection hands back for one command. */
export interface GmpReplyStream {
  /** The reply's root element; rejects when the connection fails first. */
  head: Promise<ReplyHead>;
  /** The reply's text, chunk by chunk, until its root element closes. */
  chunks: AsyncIterable<string>;
}

/** What the reader needs of its connection: flow control, and the end of the reply. */
export interface ReplyHooks {
  pause(): void;
  resume(): void;
  /** The root closed (or the reply failed): the next command may go. */
  finished(): void;
}

export class ReplyReader {
  private readonly parser = new SaxesParser({ xmlns: false });
  private readonly decoder = new TextDecoder('utf-8');
  private readonly queue: string[] = [];
  private queuedChars = 0;
  private depth = 0;
  private paused = false;
  private discarding = false;
  private wake: (() => void) | null = null;
  private headSettle!: { resolve: (head: ReplyHead) => void; reject: (error: Error) => void };
  /** Set when the root element closed. */
  done = false;
  failure: Error | null = null;
  readonly head: Promise<ReplyHead>;

  constructor(
    readonly command: string,
    private readonly hooks: ReplyHooks,
    private readonly maxQueuedChars: number,
  ) {
    this.head = new Promise((resolve, reject) => (this.headSettle = { resolve, reject }));
    // An unread head must not become an unhandled rejection when the connection fails.
    this.head.catch(() => undefined);
    this.parser.on('opentag', (tag) => {
      if (this.depth++ === 0) {
        const attrs: Record<string, string> = {};
        for (const [key, value] of Object.entries(tag.attributes)) attrs[key] = String(value);
        this.headSettle.resolve({ name: tag.name, attrs });
      }
    });
    this.parser.on('closetag', () => {
      if (--this.depth === 0) this.done = true;
    });
    this.parser.on('error', (error) => {
      // After the root closed only whitespace may follow; anything else is gvmd's protocol error.
      this.failure ??= new EngineError('internal', `gvmd's answer to ${this.command} is not well-formed XML: ${error.message}`);
    });
  }

  /** Bytes from the socket. Returns true once the reply is complete (or failed). */
  feed(bytes: Buffer): boolean {
    const text = this.decoder.decode(bytes, { stream: true });
    this.parser.write(text);
    if (this.failure) {
      this.fail(this.failure);
      return true;
    }
    if (!this.discarding) {
      this.queue.push(text);
      this.queuedChars += text.length;
      if (this.queuedChars > this.maxQueuedChars && !this.done) {
        this.paused = true;
        this.hooks.pause();
      }
    }
    if (this.done) this.hooks.finished();
    this.notify();
    return this.done;
  }

  /** The connection failed before the reply was complete. */
  fail(error: Error): void {
    if (this.done && this.failure === null) return;
    this.failure = error;
    this.done = true;
    this.headSettle.reject(error);
    this.hooks.finished();
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** The reply's text; leaving early discards the rest (still read off the socket, so the next command finds it clean). */
  async *chunks(): AsyncGenerator<string> {
    try {
      for (;;) {
        const next = this.queue.shift();
        if (next !== undefined) {
          this.queuedChars -= next.length;
          if (this.paused && this.queuedChars <= this.maxQueuedChars / 2) {
            this.paused = false;
            this.hooks.resume();
          }
          yield next;
          continue;
        }
        if (this.failure) throw this.failure;
        if (this.done) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      if (!this.done) {
        this.discarding = true;
        this.queue.length = 0;
        this.queuedChars = 0;
        if (this.paused) {
          this.paused = false;
          this.hooks.resume();
        }
      }
    }
  }
}
