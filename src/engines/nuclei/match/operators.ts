/**
 * One block's operators on one event (nuclei `pkg/operators/operators.go` Execute): extractors
 * first, their values added to the event data under their names (so matchers and later requests
 * see them); then the matchers under `matchers-condition` (or by default; and stops at the first
 * miss). The result says whether the block matched, what to report and what to carry forward.
 */
import { compileExtractor, runExtractor, type CompiledExtractor, type ExtractorDeps } from './extractors.js';
import { compileMatcher, runMatcher, type CompiledMatcher } from './matchers.js';
import { OperatorCompileError, type EventData, type MatchEvent, type OperatorsSpec } from './types.js';

/** A block's operators ready to run. */
export interface CompiledOperators {
  matchers: CompiledMatcher[];
  and: boolean;
  extractors: CompiledExtractor[];
}

/** Compiles a block's `matchers`, `matchers-condition` and `extractors`. */
export function compileOperators(spec: OperatorsSpec): CompiledOperators {
  const condition = spec['matchers-condition'] ?? 'or';
  if (condition !== 'and' && condition !== 'or') throw new OperatorCompileError(`unknown matchers-condition: ${condition}`);
  return {
    matchers: (spec.matchers ?? []).map(compileMatcher),
    and: condition === 'and',
    extractors: (spec.extractors ?? []).map(compileExtractor),
  };
}

/** What one block's operators made of one event. */
export interface OperatorsResult {
  /** At least one matcher fired and, under `and`, all of them did (upstream `Matched`). */
  matched: boolean;
  /** Whether this event gives a finding (upstream's result event rules; all-internal matchers hide it). */
  report: boolean;
  /** Named, non-internal matchers that fired under the `or` condition (one finding each upstream). */
  matcherNames: string[];
  /** Every matcher evaluated, by name (or `<type>-<n>`), with what it matched: evidence. */
  evaluated: Array<{ name: string; matched: boolean; internal: boolean; snippets: string[] }>;
  /** Output values of named non-internal extractors, by name. */
  extracts: Record<string, string[]>;
  /** Every output value of non-internal extractors, distinct, in order. */
  outputExtracts: string[];
  /** Values of internal extractors, by name: variables for later requests, never output. */
  dynamicValues: Record<string, string[]>;
  /** The variables to add to later requests' data (`name`, and `name0`, `name1`... when several). */
  variables: EventData;
}

/** Runs a block's operators on an event. The event data gains the extracted values. */
export function executeOperators(ops: CompiledOperators, event: MatchEvent, deps: ExtractorDeps = {}): OperatorsResult {
  const result: OperatorsResult = {
    matched: false,
    report: false,
    matcherNames: [],
    evaluated: [],
    extracts: {},
    outputExtracts: [],
    dynamicValues: {},
    variables: {},
  };
  const outputSeen = new Set<string>();
  for (const e of ops.extractors) {
    const values = runExtractor(e, event, deps);
    if (values.length === 0) continue;
    if (e.internal) {
      result.dynamicValues[e.name] = [...(result.dynamicValues[e.name] ?? []), ...values];
    } else {
      for (const v of values) {
        if (outputSeen.has(v)) continue;
        outputSeen.add(v);
        result.outputExtracts.push(v);
      }
      if (e.name !== '') result.extracts[e.name] = values;
    }
    event.data[e.name] = values.length === 1 ? values[0] : values;
  }
  for (const [name, values] of Object.entries(result.dynamicValues)) {
    if (values.length > 1) {
      values.forEach((v, i) => {
        result.variables[`${name}${i}`] = v;
      });
      result.variables[name] = values;
    } else {
      result.variables[name] = values[0];
    }
  }
  Object.assign(event.data, result.variables);

  const hasDynamic = Object.keys(result.dynamicValues).length > 0;
  let matches = false;
  let failed = false;
  for (const [index, m] of ops.matchers.entries()) {
    const outcome = runMatcher(m, event, deps);
    result.evaluated.push({ name: m.name ?? `${m.type}-${index + 1}`, matched: outcome.matched, internal: m.internal, snippets: outcome.snippets });
    if (outcome.matched) {
      if (!ops.and && m.name !== undefined && !m.internal && !result.matcherNames.includes(m.name)) result.matcherNames.push(m.name);
      matches = true;
    } else if (ops.and) {
      failed = true;
      break;
    }
  }
  result.matched = matches && !failed;
  const extracted = Object.keys(result.extracts).length > 0 || result.outputExtracts.length > 0;
  const allInternal = ops.matchers.length > 0 && ops.matchers.every((m) => m.internal);
  // Upstream writes a result when matched, or when there are no matchers and something was
  // extracted for output; never for internal-only values, nor when every matcher is internal.
  if (ops.matchers.length > 0) result.report = result.matched && !allInternal;
  else result.report = extracted;
  return result;
}
