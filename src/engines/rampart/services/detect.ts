/**
 * Service detection: what listens on an open TCP port, told by protocol, never by port number
 * (the port only orders the probes). First the unprompted banner, followed up on a fresh
 * connection where one harmless command tells more (FTP or SMTP, STARTTLS offered); then, for a
 * silent service, one probe after another, each on its own connection and bounded by the job's
 * timeouts: TLS (and the protocol inside it), HTTP (whose answer also tells SMUX), Redis,
 * memcached, PostgreSQL, MongoDB.
 *
 * Every probe sends a small, fixed number of requests that read nothing and change nothing: no
 * login, no password, no data command.
 */
import type { Endpoint, ServiceInfo } from '../checks/check.js';
import { escapeBanner } from '../banner.js';
import { DETECTION_SESSION, withSession } from '../protocols/session.js';
import { readNumericReply } from '../protocols/reply.js';
import { identifyMysql, probePostgres } from './databases.js';
import { greetingSuggestsFtp, probeFtp } from './ftp.js';
import { requestRoot } from './http.js';
import { toServiceInfo, unescapeBanner, type Identified } from './info.js';
import { identifyRedisGreeting, probeMemcached, probeRedis } from './kv.js';
import { probeImap, probePop3, probeSmtp } from './mail.js';
import { identifyRsync, identifySmux, identifyTelnet, identifyVnc } from './misc.js';
import { probeMongo } from './mongodb.js';
import { identifyNats, probeAmqp, probeMqtt } from './brokers.js';
import { identifySsh } from './ssh.js';
import { probeTls, tlsDetails } from './tls.js';

/**
 * Identifies the service on an open port. `banner` is what the service sent unprompted, as
 * `escapeBanner` wrote it (null or empty when it was silent). Always resolves: `name: 'unknown'`
 * when no probe recognised the service; on abort, promptly, with what was known by then (callers
 * check their signal before using it).
 */
export async function detectService(endpoint: Endpoint, banner: string | null): Promise<ServiceInfo> {
  const shown = banner === '' ? null : banner;
  const unknown = toServiceInfo({ name: 'unknown' }, shown, false);
  if (endpoint.signal.aborted) return unknown;
  if (shown !== null) {
    const found = await identifyGreeting(endpoint, unescapeBanner(shown), false);
    return found ? toServiceInfo(found, shown, false) : unknown;
  }
  for (const probe of orderProbes(endpoint.port)) {
    if (endpoint.signal.aborted) break;
    const info = await SILENT_PROBES[probe](endpoint);
    if (info) return info;
  }
  return unknown;
}

/**
 * Names the service behind a greeting; follow-up questions go on fresh connections (inside TLS
 * when `tls`). Null when the greeting is not one we know.
 */
async function identifyGreeting(endpoint: Endpoint, bytes: Buffer, tls: boolean): Promise<Identified | null> {
  const text = bytes.toString('latin1');
  const passive = identifySsh(text) ?? identifyMysql(bytes) ?? identifyTelnet(bytes) ?? identifyRsync(text);
  if (passive) return passive;
  const other = identifyVnc(text) ?? identifyRedisGreeting(text) ?? identifyNats(text);
  if (other) return other;
  if (/^220[ -]/.test(text)) return (await probeFtpOrSmtp(endpoint, tls)) ?? guessFrom220(text);
  if (/^\+OK\b/.test(text)) return (await probePop3(endpoint, tls)) ?? { name: 'pop3' };
  if (/^\* (OK|PREAUTH)\b/i.test(text)) return (await probeImap(endpoint, tls)) ?? { name: 'imap' };
  return null;
}

/**
 * FTP and SMTP both greet with `220`. The greeting's wording decides which question comes first
 * (`FEAT` or `EHLO`); the answer decides: an FTP server rejects EHLO, an SMTP server FEAT.
 */
function probeFtpOrSmtp(endpoint: Endpoint, tls: boolean): Promise<Identified | null> {
  return withSession(endpoint, { ...DETECTION_SESSION, tls }, null, async (session) => {
    const greeting = await readNumericReply(session);
    if (greeting?.code !== 220) return null;
    const text = greeting.lines.join('\n');
    const steps = greetingSuggestsFtp(text) ? [probeFtp, probeSmtp] : [probeSmtp, probeFtp];
    let found: Identified | null = null;
    for (const step of steps) {
      if (endpoint.signal.aborted) break;
      found = await step(session, text);
      if (found) break;
    }
    session.write('QUIT\r\n');
    return found;
  });
}

/** When no follow-up answered: the greeting's own words, if they name a protocol. */
function guessFrom220(text: string): Identified | null {
  if (greetingSuggestsFtp(text)) return { name: 'ftp' };
  if (/\bE?SMTP\b/i.test(text)) return { name: 'smtp' };
  return null;
}

type SilentProbe = (endpoint: Endpoint) => Promise<ServiceInfo | null>;

const plain = (probe: (endpoint: Endpoint) => Promise<Identified | null>): SilentProbe => {
  return async (endpoint) => {
    const found = await probe(endpoint);
    return found ? toServiceInfo(found, null, false) : null;
  };
};

/** TLS first: if the handshake completes the port speaks TLS, and the rest is about what's inside. */
async function probeTlsService(endpoint: Endpoint): Promise<ServiceInfo | null> {
  const result = await probeTls(endpoint);
  if (!result) return null;
  const session = tlsDetails(result.session);
  let inside = result.http;
  if (!inside && result.answer.length > 0 && !endpoint.signal.aborted) {
    inside = await identifyGreeting(endpoint, result.answer, true);
  }
  const found = inside ?? { name: 'unknown' };
  const details = { ...found.details, ...session };
  if (!result.http && result.answer.length > 0) details.inner_banner = escapeBanner(result.answer.subarray(0, 256));
  return toServiceInfo({ ...found, details }, null, true);
}

/** `GET /`; a SMUX server (RFC 1227) answers this request, like any other, with a ClosePDU. */
async function probeHttp(endpoint: Endpoint): Promise<Identified | null> {
  const result = await withSession(endpoint, DETECTION_SESSION, null, (session) => requestRoot(session, endpoint, false));
  return result ? (result.found ?? identifySmux(result.answer)) : null;
}

const SILENT_PROBES = {
  tls: probeTlsService,
  http: plain(probeHttp),
  redis: plain(probeRedis),
  memcached: plain(probeMemcached),
  postgresql: plain(probePostgres),
  mongodb: plain(probeMongo),
  amqp: plain(probeAmqp),
  mqtt: plain(probeMqtt),
} satisfies Record<string, SilentProbe>;

type ProbeName = keyof typeof SILENT_PROBES;

const DEFAULT_ORDER: readonly ProbeName[] = ['tls', 'http', 'redis', 'memcached', 'postgresql', 'mongodb', 'amqp', 'mqtt'];

/** Usual homes of each protocol: only which probe goes first, never the verdict. */
const PORT_HINTS: Readonly<Record<number, ProbeName>> = {
  // SMUX is told by its answer to the HTTP probe (a TLS ClientHello first would only cost a connection).
  199: 'http',
  1883: 'mqtt',
  5672: 'amqp',
  80: 'http',
  443: 'tls',
  465: 'tls',
  993: 'tls',
  995: 'tls',
  5432: 'postgresql',
  6379: 'redis',
  8080: 'http',
  8443: 'tls',
  9200: 'http',
  11211: 'memcached',
  27017: 'mongodb',
};

/** The silent-port probes in the order to try them on `port`. */
export function orderProbes(port: number): ProbeName[] {
  const first = PORT_HINTS[port];
  return first ? [first, ...DEFAULT_ORDER.filter((name) => name !== first)] : [...DEFAULT_ORDER];
}
