/**
 * TLS on top of a connected socket, for `session.ts`. Two profiles, because the two users want
 * different handshakes and what each sends must not change: checks (`DEFAULT_TLS`) use Node's
 * defaults within the connect timeout; service detection (`LENIENT_TLS`) must still recognise
 * old servers, so it allows TLS 1.0 and every cipher, offers ALPN `http/1.1` (its next question
 * is `GET /`) and gives the handshake the read timeout. Neither verifies the certificate: we
 * probe, we do not trust.
 */
import net from 'node:net';
import tls from 'node:tls';
import type { Endpoint } from '../checks/check.js';

/** How a session's TLS handshake is made. */
export interface TlsProfile {
  /** Added to `tls.connect`'s options (they change the ClientHello). */
  options: Pick<tls.ConnectionOptions, 'ALPNProtocols' | 'minVersion' | 'ciphers'>;
  /** Which of the job's limits bounds the handshake. */
  handshakeLimit: 'connectTimeoutMs' | 'readTimeoutMs';
}

/** The checks' TLS: Node's defaults. */
export const DEFAULT_TLS: TlsProfile = { options: {}, handshakeLimit: 'connectTimeoutMs' };

/** Service detection's TLS: old protocol versions and weak ciphers allowed, ALPN `http/1.1`. */
export const LENIENT_TLS: TlsProfile = {
  options: { ALPNProtocols: ['http/1.1'], minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' },
  handshakeLimit: 'readTimeoutMs',
};

/** What a TLS handshake negotiated, for `details`. */
export interface NegotiatedTls {
  protocol: string | null;
  cipher: string;
  alpn: string | null;
}

/** The negotiated parameters of an established TLS socket. */
export function negotiated(secure: tls.TLSSocket): NegotiatedTls {
  const alpn = secure.alpnProtocol;
  return { protocol: secure.getProtocol(), cipher: secure.getCipher().name, alpn: typeof alpn === 'string' ? alpn : null };
}

/**
 * Wraps a connected socket in TLS within the profile's time limit; null (both sockets destroyed)
 * when the handshake fails, the peer closes, the time passes or the signal aborts.
 */
export function startTls(socket: net.Socket, endpoint: Endpoint, profile: TlsProfile): Promise<tls.TLSSocket | null> {
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
      ...profile.options,
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
      }
      resolve(ok ? secure : null);
    };
    const onSecure = (): void => settle(true);
    const onFail = (): void => settle(false);
    const timer = setTimeout(onFail, endpoint.limits[profile.handshakeLimit]);
    signal.addEventListener('abort', onFail, { once: true });
    secure.once('secureConnect', onSecure).once('error', onFail).once('close', onFail);
  });
}
