/**
 * One exchange of a network block (a tcp connection, a TLS handshake, a DNS query) under the
 * contract's rules: through the host gate, the target's failures sorted into kinds (an
 * unreachable or silent host counts against it; a refused handshake is an answer; a refusal by
 * the deployment's guard stops the template with a note), the abort re-thrown.
 */
import { EgressError } from '../../../shared/egress.js';
import { HostSkippedError, type ExecutionContext, type ServiceTarget, type TemplateExecutor, type TemplateMatch, type TemplateOutcome } from './contract.js';
import { OperatorCompileError, type CompiledOperators, type ExtractorDeps } from '../match/index.js';
import type { AttackType, OperatorsBlock, PayloadSource, Template } from '../templates/template.types.js';
import { compileNetworkOperators, operatorDeps, type PartMapper, type ReportedResult } from './block-operators.js';
import { blockCombinations } from './network-vars.js';

/** How an exchange ended: a value, a failure of this request only, or the end of the template on this host. */
export type ExchangeResult<T> = { kind: 'ok'; value: T } | { kind: 'failed'; reason: string } | { kind: 'stop'; note?: string };

/** Runs `send` for `host` through the gate and sorts what went wrong. */
export async function guardedExchange<T>(context: ExecutionContext, host: string, send: () => Promise<T>): Promise<ExchangeResult<T>> {
  if (context.signal.aborted) throw context.signal.reason ?? new Error('aborted');
  if (context.gate.isSkipped(host)) return { kind: 'stop' };
  try {
    const value = await context.gate.run(host, send);
    context.gate.answered(host);
    return { kind: 'ok', value };
  } catch (error) {
    if (error instanceof HostSkippedError) return { kind: 'stop' };
    if (context.signal.aborted) throw error;
    if (!(error instanceof EgressError)) throw error;
    switch (error.code) {
      case 'refused':
        return { kind: 'stop', note: error.message };
      case 'aborted':
        throw error;
      case 'tls':
        // The host answered, with a handshake we could not complete (a version or cipher it refuses).
        context.gate.answered(host);
        return { kind: 'failed', reason: error.message };
      default:
        context.gate.networkError(host, error);
        return { kind: 'failed', reason: error.message };
    }
  }
}

/** A block ready to run: its operators, their dependencies, its payload combinations (`[{}]` without payloads). */
export interface PreparedBlock {
  ops: CompiledOperators;
  deps: ExtractorDeps;
  combinations: Array<Record<string, string>>;
}

/**
 * A block's operators compiled once per loaded template, not once per service (a worker keeps its
 * templates, so a block object lives as long as the template cache).
 */
const compiledBlocks = new WeakMap<object, { ops: CompiledOperators; deps: ExtractorDeps } | { error: string }>();

/**
 * Compiles a block's operators and reads its payload sets; undefined, after a note, when the
 * template's own fault (a bad regex, a wordlist outside the templates directory) stops the block.
 */
export async function prepareBlock(
  template: Template,
  block: OperatorsBlock & { payloads?: Record<string, PayloadSource>; attack?: AttackType },
  part: PartMapper,
  protocol: string,
  context: ExecutionContext,
  notes: string[],
): Promise<PreparedBlock | undefined> {
  let compiled = compiledBlocks.get(block);
  if (!compiled) {
    try {
      compiled = { ops: compileNetworkOperators(block, part), deps: await operatorDeps([block]) };
    } catch (error) {
      if (!(error instanceof OperatorCompileError)) throw error;
      compiled = { error: error.message };
    }
    compiledBlocks.set(block, compiled);
  }
  if ('error' in compiled) {
    notes.push(`${template.id}: ${compiled.error}; ${protocol} block skipped.`);
    return undefined;
  }
  const combinations = await blockCombinations(block.payloads ?? {}, block.attack, context.templatesDir);
  if (combinations instanceof Error) {
    notes.push(`${template.id}: ${combinations.message}`);
    return undefined;
  }
  return { ...compiled, combinations };
}

/** An empty outcome to fill. */
function emptyOutcome(): TemplateOutcome {
  return { matches: [], requestsSent: 0, requestsShared: 0, notes: [] };
}

/** Runs one block into the outcome; true when the template stops there (stop-at-first-match). */
export type BlockRunner<B> = (template: Template, block: B, service: ServiceTarget, context: ExecutionContext, outcome: TemplateOutcome) => Promise<boolean>;

/** The executor of one protocol family: its blocks in order, each through `runBlock`, into one outcome. */
export function blocksExecutor<B>(blocksOf: (template: Template) => readonly B[], runBlock: BlockRunner<B>): TemplateExecutor {
  return async (template, service, context) => {
    const outcome = emptyOutcome();
    for (const block of blocksOf(template)) {
      if (await runBlock(template, block, service, context, outcome)) break;
    }
    return outcome;
  };
}

/** Excerpts stored with a match are bounded: a banner or a JSON summary, not a transfer. */
export const MAX_EXCERPT_CHARS = 4096;

/** The matches of one reported event. */
export function toMatches(
  reported: ReportedResult[],
  base: Omit<TemplateMatch, 'extracted' | 'matcherName' | 'extractorName'>,
): TemplateMatch[] {
  const cut = (text: string | undefined): string | undefined => (text === undefined ? undefined : text.slice(0, MAX_EXCERPT_CHARS));
  return reported.map((r) => ({
    ...base,
    ...(base.request !== undefined ? { request: cut(base.request) } : {}),
    ...(base.response !== undefined ? { response: cut(base.response) } : {}),
    ...(r.matcherName !== undefined ? { matcherName: r.matcherName } : {}),
    ...(r.extractorName !== undefined ? { extractorName: r.extractorName } : {}),
    extracted: r.extracted,
  }));
}
