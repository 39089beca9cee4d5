/**
 * The `dns:` executor: nuclei's pkg/protocols/dns/request.go on one service. The question is the
 * block's `name` (`{{FQDN}}` is the service's host name, fully qualified) with its `type` and
 * `class`, recursion desired unless `recursion: false`, EDNS0 (4096) as nuclei sends it; it goes
 * to the deployment's resolvers (`context.resolvers`, default the system's), never to the target.
 * A service named by an address has no name to ask about: its dns templates are skipped, except
 * PTR questions, which ask about the address's reverse name as nuclei does.
 * Identical questions across the templates of a run are asked once (`context.cache`).
 */
import dnsPacket, { type Packet } from 'dns-packet';
import net from 'node:net';
import { queryResolvers } from '../../../shared/resolver-query.js';
import { expandMarkers } from '../dsl/index.js';
import type { DnsRequest, Template } from '../templates/template.types.js';
import { evaluateBlock } from './block-operators.js';
import { HostSkippedError, type ExecutionContext, type ServiceTarget, type TemplateExecutor, type TemplateOutcome } from './contract.js';
import { typeNumber } from './dns-text.js';
import { buildDnsEvent, DNS_PART } from './network-event.js';
import { blocksExecutor, prepareBlock, toMatches } from './network-exchange.js';
import { blockVariables, unresolvedMarker } from './network-vars.js';

/** Attempts per question at most (`retries`), whatever the template asks. */
const MAX_ATTEMPTS = 3;

/** nuclei's `class` names. */
const CLASSES: Record<string, string> = { INET: 'IN', CSNET: 'CS', CHAOS: 'CH', HESIOD: 'HS', ANY: 'ANY' };

/** `in-addr.arpa.`/`ip6.arpa.` name of an address (miekg's ReverseAddr). */
export function reverseName(address: string): string {
  if (net.isIPv4(address)) return `${address.split('.').reverse().join('.')}.in-addr.arpa.`;
  const groups = address.split('::');
  const head = groups[0] ? groups[0].split(':') : [];
  const tail = groups.length > 1 && groups[1] ? groups[1].split(':') : [];
  const full = [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail].map((g) => g.padStart(4, '0')).join('');
  return `${[...full].reverse().join('.')}.ip6.arpa.`;
}

/** The fully qualified domain nuclei asks about for this service, or undefined when it has none. */
function serviceDomain(service: ServiceTarget, block: DnsRequest): string | undefined {
  if (net.isIP(service.host) !== 0) return block.recordType === 'PTR' ? reverseName(service.host) : undefined;
  return service.host.endsWith('.') ? service.host : `${service.host}.`;
}

/** The query message of a question, as nuclei's Make builds it (a fresh id, RD, EDNS0 4096, AD for TXT). */
function queryMessage(name: string, block: DnsRequest): Packet {
  const type = typeNumber(block.recordType) !== undefined ? block.recordType : 'A';
  const flags = (block.recursion ? dnsPacket.RECURSION_DESIRED : 0) | (type === 'TXT' ? dnsPacket.AUTHENTIC_DATA : 0);
  return {
    type: 'query',
    id: Math.floor(Math.random() * 65536),
    flags,
    questions: [{ type: type as never, class: (CLASSES[block.recordClass] ?? 'IN') as never, name: name.replace(/\.$/, '') }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096, flags: 0, options: [] } as never],
  };
}

/** Asks the resolvers, `retries` times at most; the decoded answer, or why there is none. */
async function ask(query: Packet, block: DnsRequest, context: ExecutionContext): Promise<Packet | Error> {
  const wire = dnsPacket.encode(query);
  const attempts = Math.min(Math.max(block.retries ?? 1, 1), MAX_ATTEMPTS);
  let failure = new Error('no answer');
  for (let attempt = 0; attempt < attempts; attempt++) {
    try {
      const answer = await queryResolvers(wire, { ...(context.resolvers ? { resolvers: context.resolvers } : {}), timeoutMs: context.timeoutMs, signal: context.signal });
      return dnsPacket.decode(answer.message);
    } catch (error) {
      if (context.signal.aborted) throw error;
      failure = error as Error;
    }
  }
  return failure;
}

/** Runs one block; true when the template must stop. */
async function runBlock(template: Template, block: DnsRequest, service: ServiceTarget, context: ExecutionContext, outcome: TemplateOutcome): Promise<boolean> {
  const domain = serviceDomain(service, block);
  if (domain === undefined) {
    outcome.notes.push(`${template.id}: dns templates need a host name; ${service.host} is an address; skipped.`);
    return true;
  }
  const prepared = await prepareBlock(template, block, DNS_PART, 'dns', context, outcome.notes);
  if (!prepared) return false;
  const { ops, deps, combinations } = prepared;
  const vars = blockVariables(template, { FQDN: domain }, context.vars, false);
  for (const payload of combinations) {
    const name = expandMarkers(block.nameField, { ...vars, ...payload } as never);
    if (unresolvedMarker(name) !== undefined) {
      outcome.notes.push(`${template.id}: unresolved ${unresolvedMarker(name)} in the dns name; skipped.`);
      continue;
    }
    const query = queryMessage(name, block);
    const key = `dns|${block.recordType}|${block.recordClass}|${block.recursion}|${name.toLowerCase()}`;
    let response: Packet | Error;
    try {
      const cached = await context.cache.get(key, () => context.gate.run(service.host, () => ask(query, block, context)));
      response = cached.value;
      if (cached.shared) outcome.requestsShared++;
      else outcome.requestsSent++;
    } catch (error) {
      if (error instanceof HostSkippedError) return true;
      throw error;
    }
    if (response instanceof Error) {
      // The resolver's failure is the deployment's, not the target's: noted, not held against the host.
      const note = `${template.id}: the DNS resolver did not answer (${response.message}).`;
      if (!outcome.notes.includes(note)) outcome.notes.push(note);
      continue;
    }
    const question = name.replace(/\.$/, '');
    // The request as sent, read back so that it prints with its flags decoded.
    const sent = dnsPacket.decode(dnsPacket.encode(query));
    const event = buildDnsEvent(sent, response, domain.replace(/\.$/, ''), question, { ...vars, ...payload });
    const { result, reported } = evaluateBlock(ops, event, deps);
    outcome.matches.push(
      ...toMatches(reported, {
        templateId: template.id,
        protocol: 'dns',
        matchedAt: question,
        ...(Object.keys(payload).length > 0 ? { payload } : {}),
        request: String(event.data.request),
        response: String(event.data.raw),
      }),
    );
    if (result.matched && template.stopAtFirstMatch) return true;
  }
  return false;
}

/** Runs a template's `dns:` blocks on one service (TemplateExecutor). */
export const runDnsTemplate: TemplateExecutor = blocksExecutor((template) => template.dns, runBlock);
