/**
 * The protocol executors the engine runs templates with, and the template features they implement
 * (templates/features.ts vocabulary): the reference's level L8, every feature up to tcp, ssl and
 * dns (no interactsh: no OOB server of ours; no `-var` inputs: scans cannot give them yet), plus
 * the http flags the http executor implements beyond it (`iterate-all`, `disable-path-automerge`,
 * `cookie-reuse`: its cookie jar keeps cookies across a template's requests anyway). Not
 * `http.unsafe`: the executor never sends raw bytes unnormalised.
 */
import type { TemplateExecutor } from './execute/contract.js';
import { runDnsTemplate } from './execute/dns.js';
import { runHttpTemplate } from './execute/http-executor.js';
import { runSslTemplate } from './execute/ssl.js';
import { runTcpTemplate } from './execute/tcp.js';
import type { ProtocolFamily } from './selection.js';
import { levelFeatureSets } from './templates/levels.js';

/** One executor per protocol family. */
export const NUCLEI_EXECUTORS: Readonly<Record<ProtocolFamily, TemplateExecutor>> = {
  http: runHttpTemplate,
  tcp: runTcpTemplate,
  ssl: runSslTemplate,
  dns: runDnsTemplate,
};

/** The features the executors implement. */
export const NUCLEI_SUPPORTED_FEATURES: ReadonlySet<string> = new Set([
  ...(levelFeatureSets().find((level) => level.level === 'L8')?.supported ?? []),
  'http.iterate-all',
  'http.disable-path-automerge',
  'http.cookie-reuse',
]);
