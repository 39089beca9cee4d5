/**
 * A network block's operators (tcp, ssl, dns): compiled by the shared operators.ts with each
 * protocol's default `part` applied first, and nuclei's `MakeDefaultResultEvent` rules turning a
 * result into what is reported.
 */
import { executeOperators, type CompiledOperators, type ExtractorDeps, type MatchEvent, type OperatorsResult } from '../match/index.js';
import type { OperatorsBlock } from '../templates/template.types.js';
import { compileBlockOperators } from './operators.js';

export { operatorDeps } from './operators.js';

/** Maps a template's `part` to the event key it reads (each protocol has its own default). */
export type PartMapper = (part: string | undefined) => string | undefined;

/** Compiles a block's operators with the protocol's part mapping; throws `OperatorCompileError`. */
export function compileNetworkOperators(block: OperatorsBlock, part: PartMapper): CompiledOperators {
  const withPart = <T extends { part?: string }>(item: T): T => {
    const mapped = part(item.part);
    const { part: _unused, ...rest } = item;
    return (mapped === undefined ? rest : { ...rest, part: mapped }) as T;
  };
  return compileBlockOperators({ ...block, matchers: block.matchers.map(withPart), extractors: block.extractors.map(withPart) });
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
