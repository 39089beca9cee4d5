/** The protocol executors the engine runs templates with, one per protocol family. */
import type { TemplateExecutor } from './execute/contract.js';
import { runDnsTemplate } from './execute/dns.js';
import { runHttpTemplate } from './execute/http-executor.js';
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
