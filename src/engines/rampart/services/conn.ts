/**
 * One bounded conversation with a service: connect (plain TCP or TLS) with the job's connect
 * timeout, then write requests and read answers, each read bounded by the read timeout, the
 * abort signal and a size cap. Probes never see a socket, so none can leak one: `close()` in a
 * `finally` is the only duty they have.
 */
import net from 'node:net';
import tls from 'node:tls';
import { connectTcp } from '../port-scan.js';
import type { Endpoint } from '../checks/check.js';

/** The most one conversation buffers: answers we parse are small, and a flood must not grow memory. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** What a TLS handshake negotiated, for `details`. */
export interface TlsSession {
  protocol: string | null;
  cipher: string;
  alpn: string | null;
}

export interface Conversation {
  /** Set when the conversation runs inside TLS. */
  readonly tls: TlsSession | null;
  write(data: string | Uint8Array): void;
  /**
   * Resolves with the bytes received since the last read once `complete` accepts them, or when the
   * peer closes, the read timeout passes, the cap is reached or the signal aborts (whatever came).
   */
  read(complete: (received: Buffer) => boolean): Promise<Buffer>;
  /** Destroys the socket; safe to call twice. */
  close(): void;
}

/**
 * Connects to the endpoint (TLS when asked: no certificate check, SNI only for a host name, old
 * protocol versions allowed so that old servers are still recognised). Null when the port did not
 * connect, the handshake failed or timed out, or the signal aborted.
 */
export async function openConversation(endpoint: Endpoint, options: { tls: boolean }): Promise<Conversation | null> {
  const outcome = await connectTcp(endpoint.address, endpoint.port, endpoint.limits.connectTimeoutMs, endpoint.signal);
  if (outcome.state !== 'connected') return null;
  if (!options.tls) return new StreamConversation(outcome.socket, null, endpoint);
  return startTls(outcome.socket, endpoint);
}

function startTls(socket: net.Socket, endpoint: Endpoint): Promise<Conversation | null> {
  const { signal } = endpoint;
  if (signal.aborted) {
    socket.destroy();
    return Promise.resolve(null);
  }
  return new Promise((resolve) => {
    const secure = tls.connect({
      socket,
      rejectUnauthorized: false,
      // An IP address is not a valid SNI name (RFC 6066 3): send none rather than a wrong one.
      ...(net.isIP(endpoint.hostname) === 0 ? { servername: endpoint.hostname } : {}),
      ALPNProtocols: ['http/1.1'],
      minVersion: 'TLSv1',
      ciphers: 'DEFAULT:@SECLEVEL=0',
    });
    // Errors after we settled (a reset while reading) must not crash the process.
    secure.on('error', () => undefined);
    const settle = (ok: boolean): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onFail);
      secure.off('secureConnect', onSecure).off('error', onFail).off('close', onFail);
      if (!ok) {
        secure.destroy();
        socket.destroy();
        resolve(null);
        return;
      }
      const cipher = secure.getCipher();
      const alpn = secure.alpnProtocol;
      resolve(
        new StreamConversation(
          secure,
          { protocol: secure.getProtocol(), cipher: cipher.name, alpn: typeof alpn === 'string' ? alpn : null },
          endpoint,
        ),
      );
    };
    const onSecure = (): void => settle(true);
    const onFail = (): void => settle(false);
    const timer = setTimeout(onFail, endpoint.limits.readTimeoutMs);
    signal.addEventListener('abort', onFail, { once: true });
    secure.once('secureConnect', onSecure).once('error', onFail).once('close', onFail);
  });
}

class StreamConversation implements Conversation {
  private received: Buffer = Buffer.alloc(0);
  private ended = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly socket: net.Socket,
    readonly tls: TlsSession | null,
    private readonly endpoint: Endpoint,
  ) {
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      if (this.received.length < MAX_ANSWER_BYTES) this.received = Buffer.concat([this.received, chunk]);
      this.wake?.();
    });
    const onEnd = (): void => {
      this.ended = true;
      this.wake?.();
    };
    socket.on('end', onEnd).on('close', onEnd);
  }

  write(data: string | Uint8Array): void {
    if (!this.ended && !this.socket.destroyed) this.socket.write(data);
  }

  read(complete: (received: Buffer) => boolean): Promise<Buffer> {
    const { signal, limits } = this.endpoint;
    return new Promise((resolve) => {
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', finish);
        this.wake = null;
        const out = this.received;
        this.received = Buffer.alloc(0);
        resolve(out);
      };
      const check = (): void => {
        if (signal.aborted || this.ended || this.received.length >= MAX_ANSWER_BYTES || complete(this.received)) finish();
      };
      const timer = setTimeout(finish, limits.readTimeoutMs);
      signal.addEventListener('abort', finish, { once: true });
      this.wake = check;
      check();
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

/** A read that completes at the first line ending. */
export const untilLine = (received: Buffer): boolean => received.includes(0x0a);

/** A read that completes once a line matches `pattern` (e.g. the last line of a multi-line reply). */
export function untilLineMatching(pattern: RegExp): (received: Buffer) => boolean {
  return (received) => received.toString('latin1').split(/\r?\n/).some((line, i, all) => i < all.length - 1 && pattern.test(line));
}

/** Opens a conversation, runs `talk` on it and always closes it; null when it did not connect. */
export async function withConversation<T>(
  endpoint: Endpoint,
  options: { tls: boolean },
  talk: (conversation: Conversation) => Promise<T>,
): Promise<T | null> {
  const conversation = await openConversation(endpoint, options);
  if (!conversation) return null;
  try {
    return await talk(conversation);
  } finally {
    conversation.close();
  }
}
