/**
 * TLS on a silent port: a ClientHello through Node's TLS stack (no certificate check). When the
 * handshake succeeds, the protocol inside is asked next: `GET /` over the TLS session, whose
 * answer is either HTTP or the greeting of a server that speaks first (IMAPS, POP3S, SMTPS).
 */
import { DETECTION_SESSION, openSession } from '../protocols/session.js';
import type { NegotiatedTls } from '../protocols/session-tls.js';
import { requestRoot, responseComplete } from './http.js';
import type { Identified } from './info.js';
import type { Endpoint } from '../checks/check.js';

export interface TlsProbeResult {
  session: NegotiatedTls;
  /** What the service inside TLS was recognised as over HTTP, or null. */
  http: Identified | null;
  /** The bytes that came back on the TLS session (a greeting, when not HTTP). */
  answer: Buffer;
}

const HTTP_PREFIX = Buffer.from('HTTP/');

/** Complete at an HTTP response's end, or at the first line of anything that is not HTTP. */
function answerComplete(received: Buffer): boolean {
  if (received.length < HTTP_PREFIX.length) return false;
  return received.subarray(0, HTTP_PREFIX.length).equals(HTTP_PREFIX) ? responseComplete(received) : received.includes(0x0a);
}

/** The negotiated session and what answered inside it; null when no TLS handshake completed. */
export async function probeTls(endpoint: Endpoint): Promise<TlsProbeResult | null> {
  const session = await openSession(endpoint, { ...DETECTION_SESSION, tls: true });
  if (!session?.tls) {
    session?.close();
    return null;
  }
  try {
    const { answer, found } = await requestRoot(session, endpoint, true, answerComplete);
    return { session: session.tls, http: found, answer };
  } finally {
    session.close();
  }
}

/** `details` entries describing a TLS session. */
export function tlsDetails(session: NegotiatedTls): Record<string, string> {
  const details: Record<string, string> = { tls_cipher: session.cipher };
  if (session.protocol) details.tls_version = session.protocol;
  if (session.alpn) details.alpn = session.alpn;
  return details;
}
