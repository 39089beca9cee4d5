/**
 * A network block's operators (tcp, ssl, dns): the template model's matchers and extractors as
 * match/ compiles them, with each protocol's default `part`, the DSL and marker expansion
 * injected, and nuclei's `MakeDefaultResultEvent` rules turning a result into matches.
 */
import { compileExpression, expandMarkers, isDslError, type CompiledExpression } from '../dsl/index.js';
import {
  compileOperators,
  executeOperators,
  loadJsonQuery,
  type CompiledOperators,
  type DslEvaluator,
  type ExtractorDeps,
  type ExtractorSpec,
  type MatchEvent,
  type MatcherSpec,
  type OperatorsResult,
} from '../match/index.js';
import type { Extractor, Matcher, OperatorsBlock } from '../templates/template.types.js';

/** Maps a template's `part` to the event key it reads (each protocol has its own default). */
export type PartMapper = (part: string | undefined) => string | undefined;

/** Compiled expressions kept per process: templates repeat the same few hundred. */
const MAX_CACHED_EXPRESSIONS = 4096;
const compiled = new Map<string, CompiledExpression | null>();

/** The DSL evaluator the matchers use: compiled once per expression text, failures as Error values. */
export const DSL_EVALUATOR: DslEvaluator = {
  evaluate(expression, vars) {
    let expr = compiled.get(expression);
    if (expr === undefined) {
      const made = compileExpression(expression);
      expr = isDslError(made) ? null : made;
      if (compiled.size >= MAX_CACHED_EXPRESSIONS) compiled.clear();
      compiled.set(expression, expr);
    }
    if (expr === null) return new Error(`cannot compile: ${expression}`);
    const value = expr.evaluate(vars as never);
    return isDslError(value) ? new Error(value.message) : value;
  },
};

let jq: ExtractorDeps['json'] | undefined;

/** The operator dependencies; jq is loaded once, only when a block has a json extractor. */
export async function operatorDeps(blocks: OperatorsBlock[]): Promise<ExtractorDeps> {
  if (jq === undefined && blocks.some((b) => b.extractors.some((e) => e.type === 'json'))) jq = await loadJsonQuery();
  return { dsl: DSL_EVALUATOR, expand: (text, vars) => expandMarkers(text, vars as never), ...(jq ? { json: jq } : {}) };
}

function matcherSpec(m: Matcher, part: PartMapper): MatcherSpec {
  return {
    type: m.type,
    ...(m.name !== undefined ? { name: m.name } : {}),
    ...(part(m.part) !== undefined ? { part: part(m.part) } : {}),
    condition: m.condition,
    negative: m.negative,
    internal: m.internal,
    'case-insensitive': m.caseInsensitive,
    'match-all': m.matchAll,
    ...(m.encoding !== undefined ? { encoding: m.encoding } : {}),
    words: m.words,
    regex: m.regex,
    binary: m.binary,
    status: m.status,
    size: m.size,
    dsl: m.dsl,
    xpath: m.xpath,
  };
}

function extractorSpec(e: Extractor, part: PartMapper): ExtractorSpec {
  return {
    type: e.type,
    ...(e.name !== undefined ? { name: e.name } : {}),
    ...(part(e.part) !== undefined ? { part: part(e.part) } : {}),
    internal: e.internal,
    'case-insensitive': e.caseInsensitive,
    ...(e.group !== undefined ? { group: e.group } : {}),
    ...(e.attribute !== undefined ? { attribute: e.attribute } : {}),
    regex: e.regex,
    kval: e.kval,
    json: e.json,
    xpath: e.xpath,
    dsl: e.dsl,
  };
}

/** Compiles a block's operators with the protocol's part mapping; throws `OperatorCompileError`. */
export function compileBlockOperators(block: OperatorsBlock, part: PartMapper): CompiledOperators {
  return compileOperators({
    matchers: block.matchers.map((m) => matcherSpec(m, part)),
    'matchers-condition': block.matchersCondition,
    extractors: block.extractors.map((e) => extractorSpec(e, part)),
  });
}

/** What one result reports: one entry per named matcher, else per named extractor, else one. */
export interface ReportedResult {
  matcherName?: string;
  extractorName?: string;
  extracted: string[];
}

/** Runs the operators and applies nuclei's result-event rules (protocols.MakeDefaultResultEvent). */
export function evaluateBlock(ops: CompiledOperators, event: MatchEvent, deps: ExtractorDeps): { result: OperatorsResult; reported: ReportedResult[] } {
  const result = executeOperators(ops, event, deps);
  if (!result.report) return { result, reported: [] };
  if (Object.keys(result.dynamicValues).length > 0 && !result.matched) return { result, reported: [] };
  if (result.matcherNames.length > 0) {
    return { result, reported: result.matcherNames.map((matcherName) => ({ matcherName, extracted: result.outputExtracts })) };
  }
  const named = Object.entries(result.extracts);
  if (named.length > 0) return { result, reported: named.map(([extractorName, extracted]) => ({ extractorName, extracted })) };
  return { result, reported: [{ extracted: result.outputExtracts }] };
}
