/**
 * One bounded conversation over a TCP connection (TLS on top when asked), shared by service
 * detection (`services/`) and the checks (`checks/`) that speak a protocol themselves (SSH, FTP,
 * SMTP, Redis, MongoDB...). Every read is bounded in time (the job's `readTimeoutMs` unless the
 * caller says less), in size (`maxBufferedBytes`: a server sending more is cut off) and by the
 * endpoint's abort signal; `close()` releases the socket, and `withSession` always calls it, so a
 * session never outlives its probe or check.
 *
 * Bytes received wait in one buffer until a read takes them, one read at a time (probes and
 * checks are sequential conversations). Two ways to read: `read(parse)` (and `readLine`,
 * `readBytes`) takes exactly what a parser recognised, for protocols read message by message;
 * `readUntil(complete)` takes everything received once `complete` accepts it, or whatever came
 * when the time, the peer or the size cap ended the wait, for one-shot answers.
 */
import type { Socket } from 'node:net';
import { connectTcp } from '../port-scan.js';
import type { Endpoint } from '../checks/check.js';
import { DEFAULT_TLS, LENIENT_TLS, negotiated, startTls, type NegotiatedTls, type TlsProfile } from './session-tls.js';

/** The most a session keeps unread by default: a hostile server cannot make a check buffer more. */
export const MAX_BUFFERED_BYTES = 256 * 1024;
/** Service detection's cap: the answers it parses are small, and a flood must not grow memory. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** What a parser made of the buffered bytes: a value and how many bytes it used, or null for "need more". */
export type Parsed<T> = { value: T; consumed: number } | null;

export interface SessionOptions {
  /** Speak TLS over the connection (certificate not verified: we probe, we do not trust). */
  tls?: boolean;
  /** How the TLS handshake is made; `DEFAULT_TLS` unless said. */
  tlsProfile?: TlsProfile;
  /** The most bytes kept unread; past it the rest is dropped and the connection closed. */
  maxBufferedBytes?: number;
}

/**
 * Service detection's sessions: lenient TLS (old servers must still be recognised) and a 64 KiB
 * cap. Spread it and add `tls` where the probe runs inside TLS.
 */
export const DETECTION_SESSION: SessionOptions = { tlsProfile: LENIENT_TLS, maxBufferedBytes: MAX_ANSWER_BYTES };

/** One open connection; see the module comment for how reads work. */
export class Session {
  private buffer: Buffer = Buffer.alloc(0);
  private ended = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly socket: Socket,
    private readonly endpoint: Endpoint,
    /** What the TLS handshake negotiated; null on a plain connection. */
    readonly tls: NegotiatedTls | null = null,
    private readonly maxBufferedBytes = MAX_BUFFERED_BYTES,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      // A server that floods us is cut off; what was read so far stays readable.
      if (this.buffer.length > this.maxBufferedBytes) {
        this.buffer = this.buffer.subarray(0, this.maxBufferedBytes);
        this.ended = true;
        socket.destroy();
      }
      this.notify();
    });
    const onEnd = (): void => {
      this.ended = true;
      this.notify();
    };
    // The error listener also keeps a reset while we read from crashing the process.
    socket.on('end', onEnd).on('close', onEnd).on('error', onEnd);
  }

  /** Sends bytes; a write to a closed connection is dropped (the next read then comes back empty). */
  write(data: string | Uint8Array): void {
    if (!this.ended && !this.socket.destroyed) this.socket.write(data);
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

  /**
   * Takes everything received once `complete` accepts it, or, when the read timeout passes, the
   * peer closes, the cap is reached or the signal aborts first, whatever came (maybe nothing).
   */
  async readUntil(complete: (received: Buffer) => boolean, timeoutMs = this.endpoint.limits.readTimeoutMs): Promise<Buffer> {
    const whole = await this.read((buffer) => (complete(buffer) ? { value: buffer, consumed: buffer.length } : null), timeoutMs);
    return whole ?? this.take(this.buffer.length);
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
    // Wait for the first byte without taking it, then take what is there by now.
    await this.read((buffer) => (buffer.length > 0 ? { value: true, consumed: 0 } : null), timeoutMs);
    return this.take(maxLength);
  }

  /** Destroys the socket; safe to call twice. */
  close(): void {
    this.ended = true;
    this.socket.destroy();
    this.notify();
  }

  /** Up to `length` buffered bytes, copied (the buffer may be a view of a socket's chunk). */
  private take(length: number): Buffer {
    const value = Buffer.from(this.buffer.subarray(0, length));
    this.buffer = this.buffer.subarray(value.length);
    return value;
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
 * Connects to the endpoint (TLS on top when `options.tls`) and returns a session, or null when
 * the port did not accept a connection in time, the TLS handshake failed or timed out, or the
 * signal aborted. The caller must `close()` it, best in a `finally` (or use `withSession`).
 */
export async function openSession(endpoint: Endpoint, options: SessionOptions = {}): Promise<Session | null> {
  // Every connection a check opens counts against the job's rate limit (RAMPART_SCAN_RATE).
  if (!(await takeToken(endpoint))) return null;
  const outcome = await connectTcp(endpoint.egress, endpoint.address, endpoint.port, endpoint.limits.connectTimeoutMs, endpoint.signal);
  if (outcome.state !== 'connected') return null;
  const cap = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  if (!options.tls) return new Session(outcome.socket, endpoint, null, cap);
  const secure = await startTls(outcome.socket, endpoint, options.tlsProfile ?? DEFAULT_TLS);
  return secure ? new Session(secure, endpoint, negotiated(secure), cap) : null;
}

/** Waits for the job's rate limit, when it has one; false when the scan was aborted meanwhile. */
export async function takeToken(endpoint: Endpoint): Promise<boolean> {
  if (endpoint.bucket === undefined) return true;
  return endpoint.bucket.take(endpoint.signal).then(
    () => true,
    () => false,
  );
}

/**
 * Runs `talk` over a fresh session and always closes it; resolves `fallback` when no session
 * could be opened.
 */
export async function withSession<T>(endpoint: Endpoint, options: SessionOptions, fallback: T, talk: (session: Session) => Promise<T>): Promise<T> {
  const session = await openSession(endpoint, options);
  if (!session) return fallback;
  try {
    return await talk(session);
  } finally {
    session.close();
  }
}

/** A `readUntil` that completes at the first line ending. */
export const untilLine = (received: Buffer): boolean => received.includes(0x0a);

/** A `readUntil` that completes once a whole line matches `pattern` (e.g. the last line of a multi-line reply). */
export function untilLineMatching(pattern: RegExp): (received: Buffer) => boolean {
  return (received) => received.toString('latin1').split(/\r?\n/).some((line, i, all) => i < all.length - 1 && pattern.test(line));
}
