/**
 * The protocol executors the engine runs templates with, and the template features they implement
 * (templates/features.ts vocabulary): the http executor's own list, and the tcp (text and hex
 * inputs, `tls://`), ssl and dns blocks of the network executors, whose operators are the same
 * matchers and extractors. Not interactsh (no OOB server of ours), not `-var` inputs (a scan
 * cannot give them yet), not JavaScript flows.
 */
import type { TemplateExecutor } from './execute/contract.js';
import { runDnsTemplate } from './execute/dns.js';
import { runHttpTemplate } from './execute/http-executor.js';
import { HTTP_EXECUTOR_FEATURES } from './execute/http-features.js';
import { runSslTemplate } from './execute/ssl.js';
import { runTcpTemplate } from './execute/tcp.js';
import type { ProtocolFamily } from './selection.js';

/** One executor per protocol family. */
export const NUCLEI_EXECUTORS: Readonly<Record<ProtocolFamily, TemplateExecutor>> = {
  http: runHttpTemplate,
  tcp: runTcpTemplate,
  ssl: runSslTemplate,
  dns: runDnsTemplate,
};

/**
 * The features the executors implement. `http.unsafe` is among them, but an `unsafe` template
 * passes the safety check only where the deployment opted in (RAMPART_NUCLEI_UNSAFE).
 */
export const NUCLEI_SUPPORTED_FEATURES: ReadonlySet<string> = new Set([...HTTP_EXECUTOR_FEATURES, 'tcp', 'tcp.text', 'tcp.hex', 'tcp.tls', 'ssl', 'dns']);
