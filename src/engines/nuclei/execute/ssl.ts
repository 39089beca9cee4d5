/**
 * The `ssl:` executor: nuclei's pkg/protocols/ssl/ssl.go on one service. A TLS handshake to the
 * block's `address` (default `{{Host}}:{{Port}}`), bounded by `min_version`/`max_version`, the
 * certificate read but never trusted or refused; the operators run on tlsx's response fields.
 *
 * What Node/OpenSSL cannot do, and how it shows: SSL 3.0 (`ssl30`/`sslv3`: OpenSSL 3 has no
 * SSLv3; the block is skipped with a note), `cipher_suites` (IANA names; Node takes OpenSSL
 * names and has no map: skipped with a note; no template of the corpus sets it), version and
 * cipher enumeration (`tls_version_enum`/`tls_cipher_enum`: the handshake runs, the enum fields
 * stay absent), revocation (`revoked` never set: OCSP and CRLs are third-party servers).
 */
import tls from 'node:tls';
import { expandMarkers } from '../dsl/index.js';
import type { SslRequest, Template } from '../templates/template.types.js';
import { evaluateBlock } from './block-operators.js';
import type { ExecutionContext, ServiceTarget, TemplateExecutor, TemplateOutcome } from './contract.js';
import { SSL_PART } from './network-event.js';
import { blocksExecutor, guardedExchange, prepareBlock, toMatches } from './network-exchange.js';
import { blockVariables, helperVariables, splitHostPort, unresolvedMarker } from './network-vars.js';
import { buildSslEvent, nodeTlsVersion } from './ssl-event.js';

/** The TLS options of a block, or why it cannot run. */
function tlsOptions(block: SslRequest): tls.ConnectionOptions | string {
  const versions: { minVersion?: tls.SecureVersion; maxVersion?: tls.SecureVersion } = {};
  for (const [key, value] of [['minVersion', block.minVersion], ['maxVersion', block.maxVersion]] as const) {
    if (value === undefined || value === '') continue;
    const version = nodeTlsVersion(value);
    if (version === undefined) return `TLS version "${value}" cannot be negotiated here (OpenSSL 3 has no SSL 3.0)`;
    versions[key] = version;
  }
  if (block.cipherSuites.length > 0) return 'cipher_suites is not supported (IANA suite names cannot be given to OpenSSL)';
  // tlsx falls back to zcrypto for old servers; TLS 1.0 and 1.1 need OpenSSL's security level 0.
  return { rejectUnauthorized: false, minVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0', ...versions };
}

/** Runs one block; true when the template must stop. */
async function runBlock(template: Template, block: SslRequest, service: ServiceTarget, context: ExecutionContext, outcome: TemplateOutcome): Promise<boolean> {
  const prepared = await prepareBlock(template, block, SSL_PART, 'ssl', context, outcome.notes);
  if (!prepared) return false;
  const { ops, deps } = prepared;
  const options = tlsOptions(block);
  if (typeof options === 'string') {
    const note = `${template.id}: ${options}; ssl block skipped.`;
    if (!outcome.notes.includes(note)) outcome.notes.push(note);
    return false;
  }
  const vars = blockVariables(template, helperVariables(service.host, service.port), context.vars);
  const address = expandMarkers(block.address, vars as never);
  const split = splitHostPort(address);
  const port = Number(split?.port);
  if (unresolvedMarker(address) !== undefined || !split || !Number.isInteger(port) || port <= 0 || port > 65535) {
    outcome.notes.push(`${template.id}: ssl address "${address}" has no usable host and port; skipped.`);
    return false;
  }
  const result = await guardedExchange(context, service.host, async () => {
    const socket = await context.egress.connectTls({ host: split.host, port, timeoutMs: context.timeoutMs, signal: context.signal, tls: options });
    try {
      return buildSslEvent(socket, split.host, split.port, address, vars);
    } catch (error) {
      // A certificate Node cannot parse is the target's oddity, not our bug: no event, a note.
      outcome.notes.push(`${template.id}: the certificate of ${address} could not be read (${(error as Error).message}).`);
      return undefined;
    } finally {
      socket.destroy();
    }
  });
  if (result.kind === 'stop') {
    if (result.note) outcome.notes.push(`${template.id}: ${result.note}`);
    return true;
  }
  outcome.requestsSent++;
  if (result.kind === 'failed' || result.value === undefined) return false;
  const event = result.value;
  const { result: ran, reported } = evaluateBlock(ops, event, deps);
  outcome.matches.push(...toMatches(reported, { templateId: template.id, protocol: 'ssl', matchedAt: address, response: String(event.data.response) }));
  return ran.matched && template.stopAtFirstMatch;
}

/** Runs a template's `ssl:` blocks on one service (TemplateExecutor). */
export const runSslTemplate: TemplateExecutor = blocksExecutor((template) => template.ssl, runBlock);
