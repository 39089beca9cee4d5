/**
 * A small request/response conversation over one TCP (optionally TLS) connection, shared by the
 * checks that speak a protocol themselves (SSH, Redis, FTP, mail...). Every read is bounded in
 * time (`readTimeoutMs`) and size (`MAX_BUFFERED_BYTES`), every wait ends when the endpoint's
 * signal aborts, and `close()` releases the socket; a session never outlives its check.
 *
 * Named `unauth-session` for file ownership reasons only: it knows nothing of authentication and
 * could move to a neutral `checks/session.ts`.
 */
import type { Socket } from 'node:net';
import net from 'node:net';
import tls from 'node:tls';
import { connectTcp } from '../port-scan.js';
import type { Endpoint } from './check.js';

/** The most a session keeps unread: a hostile server cannot make a check buffer more. */
export const MAX_BUFFERED_BYTES = 256 * 1024;

/** What a parser made of the buffered bytes: a value and how many bytes it used, or null for "need more". */
export type Parsed<T> = { value: T; consumed: number } | null;

/**
 * One open connection: bytes received are buffered until a `read*` call consumes them; one read
 * at a time (checks are sequential conversations).
 */
export class Session {
  private buffer: Buffer = Buffer.alloc(0);
  private ended = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly socket: Socket,
    private readonly endpoint: Endpoint,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      // A server that floods us is cut off; what was read so far stays readable.
      if (this.buffer.length > MAX_BUFFERED_BYTES) {
        this.buffer = this.buffer.subarray(0, MAX_BUFFERED_BYTES);
        this.ended = true;
        socket.destroy();
      }
      this.notify();
    });
    const onEnd = (): void => {
      this.ended = true;
      this.notify();
    };
    socket.on('end', onEnd).on('close', onEnd).on('error', onEnd);
  }

  /** Sends bytes; a write to a closed socket is ignored (the next read then returns null). */
  write(data: string | Buffer): void {
    if (!this.socket.destroyed) this.socket.write(data);
  }

  /**
   * Waits until `parse` recognises a value at the start of the buffer, then consumes it.
   * Resolves null on timeout, abort, or when the peer closed before a whole value arrived.
   */
  async read<T>(parse: (buffer: Buffer) => Parsed<T>, timeoutMs = this.endpoint.limits.readTimeoutMs): Promise<T | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = parse(this.buffer);
      if (parsed) {
        this.buffer = this.buffer.subarray(parsed.consumed);
        return parsed.value;
      }
      const left = deadline - Date.now();
      if (this.ended || this.endpoint.signal.aborted || left <= 0) return null;
      await this.waitForData(left);
    }
  }

  /** Reads one line (LF-terminated, CR stripped) of at most `maxLength` bytes, as latin1 text. */
  readLine(maxLength = 8192): Promise<string | null> {
    return this.read((buffer) => {
      const end = buffer.indexOf(0x0a);
      if (end < 0) return buffer.length > maxLength ? { value: buffer.subarray(0, maxLength).toString('latin1'), consumed: buffer.length } : null;
      const line = buffer.subarray(0, Math.min(end, maxLength)).toString('latin1');
      return { value: line.endsWith('\r') ? line.slice(0, -1) : line, consumed: end + 1 };
    });
  }

  /** Reads exactly `length` bytes. */
  readBytes(length: number): Promise<Buffer | null> {
    return this.read((buffer) => (buffer.length >= length ? { value: Buffer.from(buffer.subarray(0, length)), consumed: length } : null));
  }

  /** Whatever arrives within `timeoutMs` (or until the peer closes), up to `maxLength` bytes. */
  async readAvailable(maxLength: number, timeoutMs = this.endpoint.limits.readTimeoutMs): Promise<Buffer> {
    const deadline = Date.now() + timeoutMs;
    while (this.buffer.length === 0 && !this.ended && !this.endpoint.signal.aborted && Date.now() < deadline) {
      await this.waitForData(deadline - Date.now());
    }
    const value = Buffer.from(this.buffer.subarray(0, maxLength));
    this.buffer = this.buffer.subarray(value.length);
    return value;
  }

  /** Destroys the socket; safe to call twice. */
  close(): void {
    this.ended = true;
    this.socket.destroy();
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private waitForData(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.endpoint.signal;
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal.addEventListener('abort', done, { once: true });
      this.wake = done;
    });
  }
}

/**
 * Connects to the endpoint (TLS on top when `useTls`, certificate not verified: we probe, we do
 * not trust) and returns a session, or null when the port did not accept a connection in time or
 * the signal aborted. The caller must `close()` it, best in a `finally`.
 */
export async function openSession(endpoint: Endpoint, options: { useTls?: boolean } = {}): Promise<Session | null> {
  const outcome = await connectTcp(endpoint.address, endpoint.port, endpoint.limits.connectTimeoutMs, endpoint.signal);
  if (outcome.state !== 'connected') return null;
  if (!options.useTls) return new Session(outcome.socket, endpoint);
  const secure = await startTls(outcome.socket, endpoint);
  return secure ? new Session(secure, endpoint) : null;
}

/** Wraps a connected socket in TLS within the connect timeout; null (socket destroyed) on failure. */
export function startTls(socket: Socket, endpoint: Endpoint): Promise<tls.TLSSocket | null> {
  return new Promise((resolve) => {
    const secure = tls.connect({
      socket,
      rejectUnauthorized: false,
      // SNI must be a host name, never an address literal.
      ...(net.isIP(endpoint.hostname) === 0 ? { servername: endpoint.hostname } : {}),
    });
    const settle = (ok: boolean): void => {
      clearTimeout(timer);
      endpoint.signal.removeEventListener('abort', onAbort);
      secure.off('secureConnect', onSecure).off('error', onError);
      secure.on('error', () => undefined);
      if (!ok) {
        secure.destroy();
        socket.destroy();
      }
      resolve(ok ? secure : null);
    };
    const onSecure = (): void => settle(true);
    const onError = (): void => settle(false);
    const onAbort = (): void => settle(false);
    const timer = setTimeout(() => settle(false), endpoint.limits.connectTimeoutMs);
    endpoint.signal.addEventListener('abort', onAbort, { once: true });
    secure.once('secureConnect', onSecure).once('error', onError);
  });
}

/**
 * Runs `talk` over a fresh session and always closes it; resolves `fallback` when no session
 * could be opened.
 */
export async function withSession<T>(endpoint: Endpoint, options: { useTls?: boolean }, fallback: T, talk: (session: Session) => Promise<T>): Promise<T> {
  const session = await openSession(endpoint, options);
  if (!session) return fallback;
  try {
    return await talk(session);
  } finally {
    session.close();
  }
}

/** Printable text of received bytes for evidence (CR/LF kept readable, control bytes escaped), cut at `max` chars. */
export function printable(text: string, max = 300): string {
  const clean = text.replace(/[^\x20-\x7e]/g, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
  return clean.length > max ? `${clean.slice(0, max)}...` : clean;
}
