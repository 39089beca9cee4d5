/**
 * One `http:` block of a template on one service (nuclei `pkg/protocols/http/request.go`
 * ExecuteWithResults): for each payload combination, each path or raw entry in order; each
 * request built, sent (or shared), and every response of its redirect chain (the final one first)
 * run through the block's operators. Internal extractors feed later requests; `_N` variables of
 * earlier steps are kept when a matcher or extractor names one (nuclei's inferred req-condition).
 */
import { EgressError } from '../../../shared/egress.js';
import { executeOperators, indexEvent, mergeEvents, type CompiledOperators, type ExtractorDeps, type MatchEvent } from '../match/index.js';
import type { HttpRequest, Template } from '../templates/template.types.js';
import { HostSkippedError, type ExecutionContext, type ServiceTarget, type TemplateMatch } from './contract.js';
import { buildHttpRequest, type RequestScope } from './http-request.js';
import { matchesOf, responseEvent } from './http-result.js';
import { MAX_BODY_BYTES, RequestRefusedError, sendHttpRequest, type RedirectPolicy, type SendState } from './http-send.js';
import { combinePayloads, MAX_PAYLOAD_COMBINATIONS, PayloadError, readPayloadSets } from './payloads.js';

/** A block's operators, compiled once per template. */
export interface CompiledBlock {
  operators: CompiledOperators;
  /** A matcher or extractor names an indexed variable (`body_2`): keep every step's response. */
  reqCondition: boolean;
  hasMatchers: boolean;
  hasOperators: boolean;
}

/** The state of one template execution on one service, shared by its blocks. */
export interface HttpExecution {
  template: Template;
  service: ServiceTarget;
  context: ExecutionContext;
  /** The service as nuclei's input (`host` of the event). */
  input: string;
  /** Request variables but the dynamic values (those are in `dynamic`). */
  scope: Omit<RequestScope, 'dynamic'>;
  /** Internal extractor values, newest first (nuclei's gotDynamicValues). */
  dynamic: Record<string, string[]>;
  /** Values of earlier blocks under `<id>_` (or `http_` in a flow). */
  previous: Record<string, unknown>;
  send: SendState;
  deps: ExtractorDeps;
  matches: TemplateMatch[];
  notes: string[];
  flow: boolean;
  /** The host stopped answering, or the guard refused it: nothing more is sent. */
  halted: boolean;
}

/** What a block did: `status` is nuclei's flow matcher status; `results` whether it reported anything. */
export interface BlockOutcome {
  status: boolean;
  results: boolean;
}

type Step = 'next' | 'end-block' | 'halt';

/** The payload sets the block names somewhere (nuclei drops the others before combining). */
function usedPayloads(block: HttpRequest): HttpRequest['payloads'] {
  let used = usedPayloadsOf.get(block);
  if (!used) {
    const text = JSON.stringify([block.headers, block.matchers, block.extractors, block.body ?? '', block.path, block.raw]);
    used = Object.fromEntries(Object.entries(block.payloads).filter(([name]) => text.includes(name)));
    usedPayloadsOf.set(block, used);
  }
  return used;
}

/** `usedPayloads` once per loaded block, not once per service. */
const usedPayloadsOf = new WeakMap<HttpRequest, HttpRequest['payloads']>();

/**
 * Values kept per internal extractor name, and so requests one entry sends under `iterate-all`:
 * nuclei has no cap, but a regex extractor on a 2 MiB body can yield 100,000 values (as the
 * payload combinations' cap).
 */
export const MAX_DYNAMIC_VALUES = MAX_PAYLOAD_COMBINATIONS;

/** Newly extracted values in front of the older ones, each value once (its newest place), at most MAX_DYNAMIC_VALUES. */
function mergeDynamic(exec: HttpExecution, name: string, values: string[]): void {
  const merged = [...new Set([...values, ...(exec.dynamic[name] ?? [])])];
  if (merged.length > MAX_DYNAMIC_VALUES) note(exec, `only the newest ${MAX_DYNAMIC_VALUES} extracted values of ${name} are kept (iterate-all sends one request per value).`);
  exec.dynamic[name] = merged.slice(0, MAX_DYNAMIC_VALUES);
}

/** The dynamic values for the next request: first values, or every index under `iterate-all`. */
function dynamicVariants(dynamic: Record<string, string[]>, iterateAll: boolean): Array<Record<string, string>> {
  const entries = Object.entries(dynamic).filter(([, values]) => values.length > 0);
  if (!iterateAll) return [Object.fromEntries(entries.map(([name, values]) => [name, values[0]!]))];
  const longest = Math.min(MAX_DYNAMIC_VALUES, Math.max(1, ...entries.map(([, values]) => values.length)));
  return Array.from({ length: longest }, (_, i) => Object.fromEntries(entries.map(([name, values]) => [name, values[Math.min(i, values.length - 1)]!])));
}

function note(exec: HttpExecution, text: string): void {
  const line = `${exec.template.id}: ${text}`;
  if (!exec.notes.includes(line)) exec.notes.push(line);
}

/** Handles a failed send: what to do next (network errors let the block go on, as nuclei). */
function failedSend(exec: HttpExecution, error: unknown): Step {
  if (error instanceof HostSkippedError) return 'halt';
  if (error instanceof RequestRefusedError) {
    note(exec, `a request was not sent: ${error.message}`);
    return 'end-block';
  }
  if (!(error instanceof EgressError)) throw error;
  if (error.code === 'aborted') throw error;
  if (error.code === 'refused') {
    note(exec, error.message);
    return 'halt';
  }
  if (error.code === 'bad-url') {
    note(exec, error.message);
    return 'end-block';
  }
  return exec.context.gate.isSkipped(exec.service.host) ? 'halt' : 'next';
}

interface BlockRun {
  block: HttpRequest;
  compiled: CompiledBlock;
  policy: RedirectPolicy;
  maxBody: number;
  stopAtFirst: boolean;
  history: MatchEvent;
  outcome: BlockOutcome;
  once: Set<number>;
}

async function runRequest(exec: HttpExecution, run: BlockRun, item: string, index: number, payload: Record<string, string>, dynamic: Record<string, string>): Promise<Step> {
  const built = buildHttpRequest(run.block, item, { ...exec.scope, dynamic: { ...exec.previous, ...dynamic } }, payload);
  if (built.kind === 'unresolved') {
    note(exec, `not sent: the variable {{${built.name}}} has no value (give it with -var or the scan's variables)`);
    return 'end-block';
  }
  if (built.kind === 'invalid') {
    note(exec, `not sent: ${built.reason}`);
    return 'end-block';
  }
  if (built.request.once) run.once.add(index);
  let exchange;
  try {
    exchange = await sendHttpRequest(built.request, run.policy, run.maxBody, exec.send, exec.context);
  } catch (error) {
    return failedSend(exec, error);
  }
  const prefix = run.block.id ?? (exec.flow ? 'http' : undefined);
  for (const hop of [...exchange.hops].reverse()) {
    const own = responseEvent(hop, exec.input, payload);
    const layers: MatchEvent[] = [{ data: { ...exec.previous, ...built.vars }, bytes: {} }, run.history, own];
    if (run.compiled.reqCondition) {
      const indexed = indexEvent(own, index + 1);
      Object.assign(run.history.data, indexed.data);
      Object.assign(run.history.bytes, indexed.bytes);
      layers.push(indexed);
    }
    const event = mergeEvents(...layers);
    const result = executeOperators(run.compiled.operators, event, exec.deps);
    for (const [name, values] of Object.entries(result.dynamicValues)) mergeDynamic(exec, name, values);
    if (prefix !== undefined) {
      for (const [key, value] of Object.entries(own.data)) exec.previous[`${prefix}_${key}`] = value;
      for (const [name, values] of Object.entries(result.extracts)) exec.previous[`${prefix}_${name}`] = values.length === 1 ? values[0] : values;
    }
    const found = matchesOf(exec.template.id, result, run.compiled.hasMatchers, hop, event, payload);
    exec.matches.push(...found);
    if (found.length > 0) run.outcome.results = true;
    const produced = result.matched || result.outputExtracts.length > 0 || Object.keys(result.dynamicValues).length > 0;
    if (result.matched || (!run.compiled.hasMatchers && produced)) run.outcome.status = true;
    if (run.stopAtFirst && result.matched) return 'end-block';
  }
  return exec.context.gate.isSkipped(exec.service.host) ? 'halt' : 'next';
}

/** Runs one block; sets `exec.halted` when nothing more may be sent to the service. */
export async function runHttpBlock(exec: HttpExecution, block: HttpRequest, compiled: CompiledBlock): Promise<BlockOutcome> {
  const outcome: BlockOutcome = { status: !compiled.hasOperators, results: false };
  if (exec.halted) return outcome;
  if (block.digestAuth) {
    // Without the digest handshake the requests would only show the login wall: not sent.
    note(exec, 'digest authentication (`digest-username`) is not supported; the block is not sent.');
    return outcome;
  }
  const items = block.path.length > 0 ? block.path : block.raw;
  let combinations: Iterable<Record<string, string>> = [{}];
  const payloads = usedPayloads(block);
  if (Object.keys(payloads).length > 0) {
    try {
      combinations = combinePayloads(await readPayloadSets(payloads, exec.context.templatesDir), block.attack);
    } catch (error) {
      if (!(error instanceof PayloadError)) throw error;
      note(exec, error.message);
      return outcome;
    }
  }
  const run: BlockRun = {
    block,
    compiled,
    policy: { follow: block.redirects || block.hostRedirects, sameHostOnly: block.hostRedirects, max: block.maxRedirects ?? 10 },
    maxBody: block.maxSize !== undefined && block.maxSize > 0 ? Math.min(block.maxSize, MAX_BODY_BYTES) : MAX_BODY_BYTES,
    stopAtFirst: block.stopAtFirstMatch || exec.template.stopAtFirstMatch,
    history: { data: {}, bytes: {} },
    outcome,
    once: new Set(),
  };
  for (const payload of combinations) {
    for (const [index, item] of items.entries()) {
      if (run.once.has(index)) continue;
      for (const dynamic of dynamicVariants(exec.dynamic, block.iterateAll)) {
        if (exec.context.signal.aborted) throw new EgressError('aborted', `${exec.template.id}: aborted.`);
        const step = await runRequest(exec, run, item, index, payload, dynamic);
        if (step === 'halt') exec.halted = true;
        if (step !== 'next') return outcome;
      }
    }
  }
  return outcome;
}
