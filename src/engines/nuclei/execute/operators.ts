/**
 * A protocol block's matchers and extractors for the match layer, shared by the executors: the
 * template model turned into the YAML shape `compileOperators` takes, and the DSL evaluator,
 * marker expansion and jq injected into it.
 */
import { compileExpression, expandMarkers, isDslError, type CompiledExpression, type DslError } from '../dsl/index.js';
import {
  compileOperators,
  loadJsonQuery,
  type CompiledOperators,
  type DslEvaluator,
  type ExtractorDeps,
  type ExtractorSpec,
  type MatcherSpec,
} from '../match/index.js';
import type { Extractor, Matcher, OperatorsBlock } from '../templates/template.types.js';

/** The model's matcher in the YAML shape the match layer compiles. */
function matcherSpec(m: Matcher): MatcherSpec {
  return {
    type: m.type,
    ...(m.name === undefined ? {} : { name: m.name }),
    ...(m.part === undefined ? {} : { part: m.part }),
    condition: m.condition,
    negative: m.negative,
    internal: m.internal,
    'case-insensitive': m.caseInsensitive,
    'match-all': m.matchAll,
    ...(m.encoding === undefined ? {} : { encoding: m.encoding }),
    words: m.words,
    regex: m.regex,
    binary: m.binary,
    status: m.status,
    size: m.size,
    dsl: m.dsl,
    xpath: m.xpath,
  };
}

/** The model's extractor in the YAML shape the match layer compiles. */
function extractorSpec(e: Extractor): ExtractorSpec {
  return {
    type: e.type,
    ...(e.name === undefined ? {} : { name: e.name }),
    ...(e.part === undefined ? {} : { part: e.part }),
    internal: e.internal,
    'case-insensitive': e.caseInsensitive,
    ...(e.group === undefined ? {} : { group: e.group }),
    ...(e.attribute === undefined ? {} : { attribute: e.attribute }),
    regex: e.regex,
    kval: e.kval,
    json: e.json,
    xpath: e.xpath,
    dsl: e.dsl,
  };
}

/** Compiles a block's operators; throws OperatorCompileError as `compileOperators` does. */
export function compileBlockOperators(block: OperatorsBlock): CompiledOperators {
  return compileOperators({
    matchers: block.matchers.map(matcherSpec),
    extractors: block.extractors.map(extractorSpec),
    'matchers-condition': block.matchersCondition,
  });
}

/** Compiled DSL expressions, shared by every template (the corpus repeats the same few thousand). */
const expressions = new Map<string, CompiledExpression | DslError>();
const MAX_EXPRESSIONS = 20_000;

/** The DSL evaluator the match layer uses: compiled once per expression text, errors as Error values. */
export const DSL_EVALUATOR: DslEvaluator = {
  evaluate(expression, vars) {
    let compiled = expressions.get(expression);
    if (compiled === undefined) {
      if (expressions.size >= MAX_EXPRESSIONS) expressions.clear();
      compiled = compileExpression(expression);
      expressions.set(expression, compiled);
    }
    if (isDslError(compiled)) return new Error(compiled.message);
    const value = compiled.evaluate(vars);
    return isDslError(value) ? new Error(value.message) : value;
  },
};

/** What the match layer needs for these blocks: the DSL, marker expansion, and jq when a json extractor is present. */
export async function operatorDeps(blocks: readonly OperatorsBlock[]): Promise<ExtractorDeps> {
  const deps: ExtractorDeps = { dsl: DSL_EVALUATOR, expand: (text, vars) => expandMarkers(text, vars) };
  if (blocks.some((block) => block.extractors.some((e) => e.type === 'json'))) deps.json = await loadJsonQuery();
  return deps;
}
