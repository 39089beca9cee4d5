/**
 * The `tcp:` (legacy `network:`) executor: nuclei's pkg/protocols/network/request.go on one
 * service. For each `host:` entry (`{{Hostname}}`, `tls://{{Hostname}}`, an explicit host:port;
 * only entries at the service's own host:port are sent) and each payload combination: connect (TLS for `tls://`, certificate not verified, SNI the
 * name), write the inputs in order (text or hex, markers expanded; `read` after an input reads
 * once, a named read becomes an event entry), then read once (`read-size`, default 1024) or
 * until the peer closes (`read-all`), and run the block's operators on the event.
 */
import { expandMarkers, expandMarkersToBytes } from '../dsl/index.js';
import type { TcpInput, TcpRequest, Template } from '../templates/template.types.js';
import { evaluateBlock } from './block-operators.js';
import type { ExecutionContext, ServiceTarget, TemplateExecutor, TemplateOutcome } from './contract.js';
import { buildTcpEvent, TCP_PART, type TcpExchange } from './network-event.js';
import { blocksExecutor, guardedExchange, prepareBlock, toMatches } from './network-exchange.js';
import { blockVariables, helperVariables, joinHostPort, splitHostPort, unresolvedMarker } from './network-vars.js';
import { SocketReader } from './socket-reader.js';

/** nuclei's default read size. */
const DEFAULT_READ_SIZE = 1024;

/** TLS for `tls://` entries: any certificate, and the old versions and ciphers a legacy service may only speak. */
const LEGACY_TLS = { rejectUnauthorized: false, minVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' } as const;

/**
 * The ports a block names (`port: 21` or `25,2525,465,587`), for the engine to pick the services
 * a template suits. The executor itself always connects to the service's own port: a service is
 * an explicit host:port, and nuclei keeps an explicit input port (contextargs.UseNetworkPort).
 */
export function templatePorts(block: TcpRequest): number[] {
  const listed = (block.port ?? '').split(',').map((p) => Number.parseInt(p.trim(), 10));
  return [...new Set(listed.filter((p) => Number.isInteger(p) && p > 0 && p < 65536))];
}

/** A `host:` entry's fixed port (`{{Host}}:8009`, `tls://{{Host}}:7001`); undefined for `{{Hostname}}` (the service's). */
export function entryPort(entry: string): number | undefined {
  const port = /:(\d{1,5})$/.exec(entry.trim())?.[1];
  const value = port === undefined ? NaN : Number(port);
  return value > 0 && value < 65536 ? value : undefined;
}

/**
 * An input's bytes after marker expansion, or why it cannot be sent. Text inputs keep byte results
 * exact (`{{hex_decode("aced0005")}}` in 20 templates: Go strings are bytes); hex inputs are text
 * (`{{hex_encode(...)}}`) decoded after expansion.
 */
function renderInput(input: TcpInput, vars: Record<string, unknown>): Buffer | string {
  const bytes = input.type === 'text' ? Buffer.from(expandMarkersToBytes(input.data, vars as never)) : undefined;
  const text = bytes ? bytes.toString('latin1') : expandMarkers(input.data, vars as never);
  const unresolved = unresolvedMarker(text);
  if (unresolved !== undefined) return `unresolved ${unresolved} in an input`;
  if (bytes) return bytes;
  const hex = text.replace(/\s+/g, '');
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) return 'an input of type hex is not valid hex';
  return Buffer.from(hex, 'hex');
}

/**
 * A template fault found before connecting: an input that cannot render (an interactsh URL, a
 * variable only `-var` gives, an unknown function) or bad hex. Inputs that use a named read are
 * left to the exchange, which renders them with the value read.
 */
function inputFault(block: TcpRequest, vars: Record<string, unknown>): string | undefined {
  const names = block.inputs.map((i) => i.name).filter((n): n is string => n !== undefined && n !== '');
  for (const input of block.inputs) {
    if (names.some((name) => input.data.includes(name))) continue;
    const rendered = renderInput(input, vars);
    if (typeof rendered === 'string') return rendered;
  }
  return undefined;
}

/** A request as shown with a match: its text, or hex when it is binary. */
function printable(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return /[\x00-\x08\x0e-\x1f\x7f\ufffd]/.test(text) ? bytes.toString('hex') : text;
}

interface ExchangeTarget {
  host: string;
  port: number;
  tls: boolean;
  matched: string;
}

/** One connection: the inputs written and the reads made, or the reason nothing usable came of it. */
async function exchange(block: TcpRequest, target: ExchangeTarget, service: ServiceTarget, vars: Record<string, unknown>, context: ExecutionContext): Promise<TcpExchange | string> {
  const connect = { host: target.host, port: target.port, timeoutMs: context.timeoutMs, signal: context.signal };
  const socket = target.tls ? await context.egress.connectTls({ ...connect, tls: LEGACY_TLS }) : await context.egress.connect(connect);
  try {
    const reader = new SocketReader(socket);
    const interim = { ...vars };
    const sent: Buffer[] = [];
    const reads: Buffer[] = [];
    const named: Record<string, Buffer> = {};
    for (const input of block.inputs) {
      const bytes = renderInput(input, interim);
      if (typeof bytes === 'string') return bytes;
      sent.push(bytes);
      const failed = await reader.write(bytes);
      if (failed !== undefined) return `could not write: ${failed}`;
      if (input.read !== undefined && input.read > 0) {
        const read = await reader.read(input.read, context.timeoutMs, context.signal);
        if (read.error !== undefined) return `could not read: ${read.error}`;
        reads.push(read.data);
        if (input.name) {
          named[input.name] = read.data;
          interim[input.name] = read.data.toString('utf8');
        }
      }
    }
    const size = block.readSize !== undefined && block.readSize > 0 ? block.readSize : DEFAULT_READ_SIZE;
    // A failed final read still gives an event (upstream logs it): the earlier reads may match.
    const final = block.readAll ? await reader.readAll(context.timeoutMs, context.signal) : await reader.read(size, context.timeoutMs, context.signal);
    reads.push(final.data);
    return {
      host: joinHostPort(service.host, service.port),
      matched: target.matched,
      ip: socket.remoteAddress ?? '',
      request: Buffer.concat(sent),
      data: final.data,
      raw: Buffer.concat(reads),
      named,
    };
  } finally {
    socket.destroy();
  }
}

/** Runs one block; true when the template must stop (a match under stop-at-first-match, or the host is done). */
async function runBlock(template: Template, block: TcpRequest, service: ServiceTarget, context: ExecutionContext, outcome: TemplateOutcome): Promise<boolean> {
  const prepared = await prepareBlock(template, block, TCP_PART, 'tcp', context, outcome.notes);
  if (!prepared) return false;
  const { ops, deps, combinations } = prepared;
  const visited = new Set<string>();
  const entries = block.host.length > 0 ? block.host : ['{{Hostname}}'];
  const vars = blockVariables(template, helperVariables(service.host, service.port), context.vars);
  for (const entry of entries) {
    const tlsEntry = entry.startsWith('tls://');
    const address = expandMarkers(tlsEntry ? entry.slice('tls://'.length) : entry, vars as never);
    const split = splitHostPort(address);
    const targetPort = Number(split?.port);
    if (unresolvedMarker(address) !== undefined || !split || !Number.isInteger(targetPort) || targetPort <= 0 || targetPort > 65535) {
      outcome.notes.push(`${template.id}: tcp address "${address}" has no usable host and port; skipped.`);
      continue;
    }
    // Only the service itself: a finding is reported at the service, and another port (the
    // `{{Host}}:8009` of a port-less template run on an SSH service) is neither the service that
    // answered nor one discovery found open in the scan's ports. The engine runs such a template
    // on the services at its fixed ports instead (services.ts).
    if (targetPort !== service.port || split.host !== service.host) continue;
    // A service the engine found speaking TLS is reached through TLS whatever the entry says.
    const tls = tlsEntry || service.tls;
    if (visited.has(address)) continue;
    visited.add(address);
    const target = { host: split.host, port: targetPort, tls, matched: address };
    for (const payload of combinations) {
      const fault = inputFault(block, { ...vars, ...payload });
      if (fault !== undefined) {
        const note = `${template.id}: ${fault}; tcp request skipped.`;
        if (!outcome.notes.includes(note)) outcome.notes.push(note);
        continue;
      }
      const result = await guardedExchange(context, service.host, () => exchange(block, target, service, { ...vars, ...payload }, context));
      if (result.kind === 'stop') {
        if (result.note) outcome.notes.push(`${template.id}: ${result.note}`);
        return true;
      }
      outcome.requestsSent++;
      if (result.kind === 'failed') continue;
      if (typeof result.value === 'string') {
        // A template fault (an unresolved variable, bad hex) is worth a note; a silent peer is not.
        const note = `${template.id}: ${result.value}; tcp request skipped.`;
        if (!result.value.startsWith('could not') && !outcome.notes.includes(note)) outcome.notes.push(note);
        continue;
      }
      const sentExchange = result.value;
      const event = buildTcpEvent(sentExchange, { ...vars, ...payload }, payload);
      const { result: ran, reported } = evaluateBlock(ops, event, deps);
      outcome.matches.push(
        ...toMatches(reported, {
          templateId: template.id,
          protocol: 'tcp',
          matchedAt: address,
          ...(Object.keys(payload).length > 0 ? { payload } : {}),
          request: printable(sentExchange.request),
          response: printable(sentExchange.raw),
        }),
      );
      if (ran.matched && template.stopAtFirstMatch) return true;
    }
  }
  return false;
}

/** Runs a template's `tcp:` blocks on one service (TemplateExecutor). */
export const runTcpTemplate: TemplateExecutor = blocksExecutor((template) => template.tcp, runBlock);
