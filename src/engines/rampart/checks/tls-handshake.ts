/**
 * One bounded TLS handshake for the TLS check: connect to the literal address through the egress
 * (which checks it with the guard), complete (or fail) the handshake, note what was negotiated and the peer's certificate chain, and close. Nothing is
 * sent after the handshake. The socket and timer are always released before the promise settles.
 */
import net from 'node:net';
import tls from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { connectTcp } from '../port-scan.js';
import type { Endpoint } from './check.js';

/**
 * OpenSSL 3 refuses TLS 1.0/1.1 and weak suites at its default security level even when asked
 * for them; level 0 lets the client *offer* them, which is all a scanner needs.
 */
export const LEGACY_CIPHERS = 'DEFAULT@SECLEVEL=0';

/** What the client offers in one handshake. */
export interface HandshakeOffer {
  minVersion: tls.SecureVersion;
  maxVersion: tls.SecureVersion;
  /** An OpenSSL cipher string for TLS 1.2 and below (TLS 1.3 suites are configured apart). */
  ciphers?: string;
}

/** A completed handshake. */
export interface HandshakeSuccess {
  ok: true;
  /** e.g. `TLSv1.2`. */
  protocol: string;
  /** OpenSSL name of the negotiated suite, e.g. `ECDHE-RSA-AES128-GCM-SHA256`. */
  cipher: string;
  /** The chain verified against Node's CA store (the peer was never rejected for it). */
  authorized: boolean;
  authorizationError: string | null;
  /** The leaf first, then the certificates the server sent (and the store completed), no repeats. */
  chain: X509Certificate[];
  /** The leaf in the legacy object form `tls.checkServerIdentity` expects. */
  peer: tls.PeerCertificate | null;
}

/** A handshake that did not complete: refused, reset, timed out, or the offer was impossible. */
export interface HandshakeFailure {
  ok: false;
  /** `aborted`, `timeout`, `unsupported-offer` (our OpenSSL cannot offer it), or the error code. */
  reason: string;
}

/** The outcome of `tryHandshake`: check `ok` first. */
export type HandshakeResult = HandshakeSuccess | HandshakeFailure;

/**
 * Performs one handshake with `offer` against `endpoint.address`, giving `endpoint.hostname` as
 * SNI unless it is an IP literal (RFC 6066 forbids IPs there). The whole attempt is bounded by
 * the connect plus read timeouts and ends at once when `endpoint.signal` aborts.
 */
export async function tryHandshake(endpoint: Endpoint, offer: HandshakeOffer): Promise<HandshakeResult> {
  if (endpoint.signal.aborted) return { ok: false, reason: 'aborted' };
  const started = Date.now();
  const outcome = await connectTcp(endpoint.egress, endpoint.address, endpoint.port, endpoint.limits.connectTimeoutMs, endpoint.signal);
  if (outcome.state !== 'connected') return { ok: false, reason: connectFailure(outcome) };
  const raw = outcome.socket;
  let socket: tls.TLSSocket;
  try {
    socket = tls.connect({
      socket: raw,
      // Names the peer for the identity check (SNI comes from `servername`); no connection is made from it.
      host: endpoint.address,
      ...(net.isIP(endpoint.hostname) === 0 ? { servername: endpoint.hostname } : {}),
      minVersion: offer.minVersion,
      maxVersion: offer.maxVersion,
      ...(offer.ciphers === undefined ? {} : { ciphers: offer.ciphers }),
      // We judge the certificate ourselves; verification still runs and sets `authorized`.
      rejectUnauthorized: false,
    });
  } catch {
    raw.destroy();
    // "No cipher match": this OpenSSL build cannot offer the suites (Node's leaves out 3DES and RC4).
    return { ok: false, reason: 'unsupported-offer' };
  }
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: HandshakeResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      endpoint.signal.removeEventListener('abort', onAbort);
      socket.off('secureConnect', onSecure);
      socket.destroy();
      raw.destroy();
      resolve(result);
    };
    const onAbort = (): void => settle({ ok: false, reason: 'aborted' });
    const onSecure = (): void => settle(describe(socket));
    // The whole attempt, connect included, keeps its bound of connect plus read timeouts.
    const left = Math.max(0, endpoint.limits.connectTimeoutMs + endpoint.limits.readTimeoutMs - (Date.now() - started));
    const timer = setTimeout(() => settle({ ok: false, reason: 'timeout' }), left);
    // Errors after settling (a late RST) must not crash the process.
    socket.on('error', (error: NodeJS.ErrnoException) => settle({ ok: false, reason: error.code ?? 'error' }));
    socket.once('close', () => settle({ ok: false, reason: 'closed' }));
    socket.once('secureConnect', onSecure);
    endpoint.signal.addEventListener('abort', onAbort, { once: true });
    if (endpoint.signal.aborted) onAbort();
  });
}

/** The reason a handshake never started: the connect's outcome in the words the TLS check used before. */
function connectFailure(outcome: Exclude<Awaited<ReturnType<typeof connectTcp>>, { state: 'connected' }>): string {
  switch (outcome.state) {
    case 'aborted':
      return 'aborted';
    case 'filtered':
      return 'timeout';
    case 'closed':
      return 'ECONNREFUSED';
    default:
      return outcome.code;
  }
}

function describe(socket: tls.TLSSocket): HandshakeSuccess {
  const detailed = socket.getPeerCertificate(true);
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  // Walk issuerCertificate links: a root links to itself, so stop at the first repeat.
  for (let cert: tls.DetailedPeerCertificate | undefined = detailed; cert?.raw !== undefined; cert = cert.issuerCertificate) {
    const x509 = parseCertificate(cert.raw);
    if (x509 === null || seen.has(x509.fingerprint256)) break;
    seen.add(x509.fingerprint256);
    chain.push(x509);
  }
  const error = socket.authorizationError as unknown;
  return {
    ok: true,
    protocol: socket.getProtocol() ?? 'unknown',
    cipher: socket.getCipher()?.name ?? 'unknown',
    authorized: socket.authorized,
    authorizationError: error === null || error === undefined ? null : String(error),
    chain,
    peer: detailed.raw === undefined ? null : detailed,
  };
}

function parseCertificate(raw: Buffer): X509Certificate | null {
  try {
    return new X509Certificate(raw);
  } catch {
    return null;
  }
}

/**
 * What `judgeCertificate` needs, from certificates read without a completed handshake (a server
 * whose suites Node's TLS cannot offer: `fetchCertificates` in `tls-hello.ts`). Nothing was
 * verified by a handshake, so `authorized` is false and trust comes from the bundled roots only.
 */
export function handshakeFromCertificates(protocol: string, cipher: string, certificates: Buffer[]): HandshakeSuccess | null {
  const chain: X509Certificate[] = [];
  for (const der of certificates) {
    const cert = parseCertificate(der);
    if (cert === null) break;
    chain.push(cert);
  }
  const leaf = chain[0];
  if (leaf === undefined) return null;
  const commonName = /^CN=(.*)$/m.exec(leaf.subject)?.[1];
  // The two fields `tls.checkServerIdentity` reads from the legacy certificate object.
  const peer = { subject: commonName === undefined ? {} : { CN: commonName }, subjectaltname: leaf.subjectAltName ?? '' } as unknown as tls.PeerCertificate;
  return {
    ok: true,
    protocol,
    cipher,
    authorized: false,
    authorizationError: 'not verified by a handshake (the chain was read from a ClientHello exchange with suites Node cannot offer)',
    chain,
    peer,
  };
}
