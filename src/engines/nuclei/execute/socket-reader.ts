/**
 * Reads from a connected socket the way nuclei's network protocol does (Go `conn.Read` with a
 * deadline): `read(n)` returns what has arrived, up to n bytes, waiting for the first byte at
 * most the timeout; `readAll` reads until the peer closes or the timeout passes. Bytes a peer
 * sends past the cap are dropped: a template reads a banner, not a download.
 */
import type net from 'node:net';

/** Bytes kept from one connection at most. */
export const MAX_BUFFERED_BYTES = 256 * 1024;

/** What a read gave: the bytes, and why it stopped short when it did (`timeout`, `closed`, an error). */
export interface ReadResult {
  data: Buffer;
  error?: string;
}

/** A socket's incoming bytes, buffered as they arrive and read with deadlines. */
export class SocketReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private closed = false;
  private failure: string | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      if (this.buffered < MAX_BUFFERED_BYTES) {
        const kept = chunk.subarray(0, MAX_BUFFERED_BYTES - this.buffered);
        this.chunks.push(kept);
        this.buffered += kept.length;
      }
      this.notify();
    });
    socket.on('end', () => this.finish(undefined));
    socket.on('close', () => this.finish(undefined));
    socket.on('error', (error: NodeJS.ErrnoException) => this.finish(error.code ?? error.message));
  }

  /** Writes bytes; resolves once they are handed to the kernel, or with the error. */
  write(data: Uint8Array): Promise<string | undefined> {
    if (this.closed) return Promise.resolve(this.failure ?? 'closed');
    return new Promise((resolve) => {
      this.socket.write(data, (error) => resolve(error ? ((error as NodeJS.ErrnoException).code ?? error.message) : undefined));
    });
  }

  /** Up to `n` bytes: what is buffered now, else the first bytes to arrive within `timeoutMs`. */
  async read(n: number, timeoutMs: number, signal: AbortSignal): Promise<ReadResult> {
    if (this.buffered === 0 && !this.closed) await this.waitFor(() => this.buffered > 0 || this.closed, timeoutMs, signal);
    if (this.buffered === 0) return { data: Buffer.alloc(0), error: this.failure ?? (this.closed ? 'closed' : 'timeout') };
    return { data: this.take(n) };
  }

  /** Everything until the peer closes, or what arrived when `timeoutMs` passes. */
  async readAll(timeoutMs: number, signal: AbortSignal): Promise<ReadResult> {
    if (!this.closed) await this.waitFor(() => this.closed, timeoutMs, signal);
    const data = this.take(this.buffered);
    if (data.length === 0) return { data, error: this.failure ?? (this.closed ? 'closed' : 'timeout') };
    return { data };
  }

  private take(n: number): Buffer {
    const all = Buffer.concat(this.chunks);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return out;
  }

  private finish(failure: string | undefined): void {
    if (!this.closed) this.failure = failure;
    this.closed = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private waitFor(done: () => boolean, timeoutMs: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', finish);
        this.wake = undefined;
        resolve();
      };
      const check = (): void => {
        if (done()) finish();
        else this.wake = check;
      };
      const timer = setTimeout(finish, timeoutMs);
      signal.addEventListener('abort', finish, { once: true });
      if (signal.aborted) return finish();
      check();
    });
  }
}
