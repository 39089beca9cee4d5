/**
 * One webhook delivery attempt: a single signed POST, bounded in time and in what it reads back.
 * Retries, back-off and the delivery record belong to the worker; this only reports what happened.
 *
 * Safety (DESIGN.md "Safety of scanning"): the URL's host is resolved once and every address is
 * checked by the address guard; the connection then goes to a checked address itself, with the
 * hostname used only for SNI, certificate verification and the Host header. Resolving the name a
 * second time at connect would let a DNS-rebinding receiver pass the check with a public address
 * and then be reached on an internal one.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import { resolveAndCheck, type AddressGuard } from '../shared/address-guard.js';

/** Retry-After is honoured up to a day: a receiver must not park a delivery for months. */
export const MAX_RETRY_AFTER_SECONDS = 24 * 60 * 60;
/** How much of a response body is kept: enough to show a receiver's error, no more. */
const MAX_RESPONSE_BYTES = 4096;
/** DNS gets at most this long, even when the attempt as a whole may take longer. */
const MAX_DNS_MS = 5000;

/** What to send, where, and under which limits. */
export interface DeliveryRequest {
  /** An https:// URL; any other scheme is refused without a connection. */
  url: string;
  /** The exact JSON text to POST (the signature covers these bytes). */
  body: string;
  /** Extra headers, typically the signature headers; content-type, user-agent and host are ours. */
  headers: Record<string, string>;
  guard: AddressGuard;
  /** Bounds the whole attempt: DNS, connect, TLS, and reading the response. */
  timeoutMs: number;
  /** An extra trusted CA (PEM), on top of Node's roots, e.g. a deployment's private CA. */
  ca?: string | Buffer;
  /** Replaces DNS (tests); returns every address of the host. */
  lookup?: (hostname: string) => Promise<string[]>;
  userAgent: string;
}

/** What one attempt produced. `status` is set whenever the receiver answered, even with an error. */
export interface DeliveryResult {
  /** The HTTP status, or null when no response arrived (refused, unreachable, TLS error, timeout). */
  status: number | null;
  /** The first MAX_RESPONSE_BYTES of the body as UTF-8 (a character cut at the end is dropped). */
  responseBody: string;
  durationMs: number;
  /** Why the attempt failed, or was cut short; null when the receiver answered in full. */
  error: string | null;
  /** From Retry-After on a 429 or 503, in seconds from now (capped at a day). */
  retryAfterSeconds: number | null;
  /** The address connected to (or last tried). */
  address: string | null;
}

type Outcome = Omit<DeliveryResult, 'durationMs'>;

const EMPTY: Outcome = { status: null, responseBody: '', error: null, retryAfterSeconds: null, address: null };

/** Sends one POST and reports the result. Never throws: every failure becomes `error`. */
export async function deliverOnce(request: DeliveryRequest): Promise<DeliveryResult> {
  const started = performance.now();
  let outcome: Outcome;
  try {
    outcome = await attempt(request, started + request.timeoutMs);
  } catch (error) {
    // Only a bug should land here (every expected failure is a result); still, never throw.
    outcome = { ...EMPTY, error: `delivery failed: ${error instanceof Error ? error.message : String(error)}` };
  }
  return { ...outcome, durationMs: Math.round(performance.now() - started) };
}

async function attempt(request: DeliveryRequest, deadline: number): Promise<Outcome> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { ...EMPTY, error: 'refused: the webhook URL is not a valid URL' };
  }
  if (url.protocol !== 'https:') {
    return { ...EMPTY, error: `refused: webhooks are delivered over https:// only, not ${url.protocol}//` };
  }
  let secureContext: tls.SecureContext | undefined;
  try {
    secureContext = request.ca === undefined ? undefined : secureContextFor(request.ca);
  } catch (error) {
    return { ...EMPTY, error: `the extra CA certificate could not be loaded: ${(error as Error).message}` };
  }
  const dnsMs = Math.max(1, Math.min(MAX_DNS_MS, request.timeoutMs));
  const resolved = await resolveAndCheck(url.hostname, request.guard, { timeoutMs: dnsMs, lookup: request.lookup });
  // The guard's own message names the address and its class, e.g. "... 10.0.0.1 (private) ...".
  if (!resolved.ok) return { ...EMPTY, error: resolved.message };

  const failures: string[] = [];
  const { addresses } = resolved;
  for (const [index, address] of addresses.entries()) {
    const remainingMs = deadline - performance.now();
    if (remainingMs <= 0) return { ...EMPTY, address, error: `timed out after ${request.timeoutMs} ms` };
    // Each untried address gets a fair share of the time left, so one black-holed address (a
    // dropped SYN) cannot use up the attempt while a working one waits behind it.
    const connectMs = remainingMs / (addresses.length - index);
    const result = await postToAddress(url, address, request, { remainingMs, connectMs, secureContext });
    if (result.connected || index === addresses.length - 1) {
      if (!result.connected && failures.length > 0) {
        failures.push(`${address} (${result.outcome.error})`);
        return { ...result.outcome, error: `could not connect to any address: ${failures.join('; ')}` };
      }
      return result.outcome;
    }
    failures.push(`${address} (${result.outcome.error})`);
  }
  // resolveAndCheck never returns ok with no addresses; this satisfies the type checker.
  return { ...EMPTY, error: 'refused: the host has no address' };
}

interface AddressResult {
  /** Whether TCP connected: after that, a failure is the receiver's and no other address is tried. */
  connected: boolean;
  outcome: Outcome;
}

/** State of the response as it arrives, so a deadline can still report what was received. */
interface Received {
  status: number;
  retryAfterSeconds: number | null;
  chunks: Buffer[];
  bytes: number;
}

function postToAddress(
  url: URL,
  address: string,
  request: DeliveryRequest,
  limits: { remainingMs: number; connectMs: number; secureContext: tls.SecureContext | undefined },
): Promise<AddressResult> {
  return new Promise((resolve) => {
    const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    let connected = false;
    let received: Received | undefined;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];

    const options: https.RequestOptions & Pick<tls.ConnectionOptions, 'secureContext'> = {
      // The checked address itself: Node does no DNS lookup for an IP host, so nothing can rebind.
      host: address,
      port: url.port === '' ? 443 : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      // SNI and the certificate check use the name from the URL; an IP literal gets no SNI (RFC
      // 6066 forbids it) and is checked against the certificate's IP entries.
      servername: isIP(hostname) ? '' : hostname,
      headers: buildHeaders(url, request),
      // A fresh connection each time: a pooled socket could have been opened to another address.
      agent: false,
      secureContext: limits.secureContext,
      // Deliveries carry signed event data: a global NODE_TLS_REJECT_UNAUTHORIZED=0 left over from
      // debugging must not quietly send them to an unverified receiver.
      rejectUnauthorized: true,
    };
    const req = https.request(options);

    const settle = (error: string | null): void => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      // Destroying the request closes the socket: nothing more is read, however much is coming.
      req.destroy();
      resolve({ connected, outcome: toOutcome(address, received, error) });
    };

    req.on('socket', (socket) => socket.once('connect', () => (connected = true)));
    req.on('error', (error) => settle(describeRequestError(error, hostname, connected)));
    req.on('response', (res: IncomingMessage) => {
      received = { status: res.statusCode ?? 0, retryAfterSeconds: retryAfterFor(res), chunks: [], bytes: 0 };
      const body = received;
      res.on('data', (chunk: Buffer) => {
        const room = MAX_RESPONSE_BYTES - body.bytes;
        body.chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        body.bytes += Math.min(chunk.length, room);
        if (body.bytes >= MAX_RESPONSE_BYTES) settle(null);
      });
      res.on('end', () => settle(null));
      res.on('error', (error) => settle(`the response was cut off: ${error.message}`));
      res.on('close', () => settle(res.complete ? null : 'the response was cut off'));
    });

    timers.push(
      setTimeout(() => {
        const stage = received ? ' while reading the response body' : '';
        settle(`timed out after ${request.timeoutMs} ms${stage}`);
      }, limits.remainingMs),
    );
    if (limits.connectMs < limits.remainingMs) {
      timers.push(
        setTimeout(() => {
          if (!connected) settle(`no connection within ${Math.round(limits.connectMs)} ms`);
        }, limits.connectMs),
      );
    }
    req.end(request.body);
  });
}

/** Our headers win over the caller's, whatever their case: Host is what pins the name. */
function buildHeaders(url: URL, request: DeliveryRequest): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  headers['user-agent'] = request.userAgent;
  headers['content-length'] = String(Buffer.byteLength(request.body));
  headers.host = url.host;
  return headers;
}

function retryAfterFor(res: IncomingMessage): number | null {
  if (res.statusCode !== 429 && res.statusCode !== 503) return null;
  return parseRetryAfter(res.headers['retry-after'], Date.now());
}

function toOutcome(address: string, received: Received | undefined, error: string | null): Outcome {
  if (!received) return { ...EMPTY, address, error };
  // stream: true holds back a multi-byte character cut at the 4 KB mark instead of writing U+FFFD.
  const responseBody = new TextDecoder('utf-8').decode(Buffer.concat(received.chunks), { stream: true });
  return { status: received.status, responseBody, error, retryAfterSeconds: received.retryAfterSeconds, address };
}

/** The last trust store built: parsing Node's ~140 roots costs tens of ms of blocked event loop. */
let cachedTrust: { extra: Buffer; context: tls.SecureContext } | undefined;

/**
 * Node's roots, the deployment's NODE_EXTRA_CA_CERTS and the extra CA. Passing `ca` replaces
 * Node's default trust, and `tls.rootCertificates` lacks NODE_EXTRA_CA_CERTS, so that file is read
 * here too, to keep DESIGN.md's promise that it adds a private CA. Throws for a CA that is no PEM.
 */
function secureContextFor(ca: string | Buffer): tls.SecureContext {
  const extra = Buffer.from(ca);
  if (cachedTrust?.extra.equals(extra)) return cachedTrust.context;
  const cas: (string | Buffer)[] = [...tls.rootCertificates, extra];
  const file = process.env.NODE_EXTRA_CA_CERTS;
  try {
    if (file) cas.push(readFileSync(file));
  } catch {
    // Node itself only warns at start-up when that file is unreadable; do no more.
  }
  cachedTrust = { extra, context: tls.createSecureContext({ ca: cas }) };
  return cachedTrust.context;
}

/** OpenSSL verification codes meaning "this certificate is not one we may trust for this host". */
const CERTIFICATE_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_UNTRUSTED', 'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'CERT_REVOKED', 'INVALID_CA',
  'CERT_CHAIN_TOO_LONG', 'INVALID_PURPOSE', 'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** A message the webhook's owner can act on, from a request error. */
function describeRequestError(error: Error, hostname: string, connected: boolean): string {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return `certificate not trusted: it is not valid for ${hostname} (${error.message})`;
  }
  if (CERTIFICATE_CODES.has(code)) return `certificate not trusted: ${error.message} (${code})`;
  if (code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS')) return `TLS handshake failed: ${error.message}`;
  const detail = code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
  return connected ? `the connection failed before a response: ${detail}` : `could not connect: ${detail}`;
}

/**
 * Seconds to wait from a Retry-After value: delta-seconds or an HTTP-date (RFC 9110 10.2.3),
 * capped at MAX_RETRY_AFTER_SECONDS; null when absent or unreadable. A date in the past means 0.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  const text = value?.trim();
  if (!text) return null;
  let seconds: number;
  if (/^[0-9]+$/.test(text)) {
    seconds = Number(text);
  } else {
    // Date.parse reads nearly anything ("-5" is the year 5 BC); an HTTP-date starts with a day name.
    if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /.test(text)) return null;
    // The asctime form names no zone, and Date.parse would take it as local time; it is GMT.
    const at = Date.parse(/^\w+ \w+ +\d+ [\d:]+ \d+$/.test(text) ? `${text} GMT` : text);
    if (Number.isNaN(at)) return null;
    seconds = Math.max(0, Math.ceil((at - nowMs) / 1000));
  }
  return Math.min(seconds, MAX_RETRY_AFTER_SECONDS);
}
