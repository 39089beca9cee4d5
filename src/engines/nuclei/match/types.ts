/**
 * Nuclei matchers and extractors: the shapes they are written in and the values they work on.
 *
 * Glossary:
 * - event data: the flat map one response is matched on (`body`, `status_code`, header keys,
 *   extracted variables, `body_1` for an earlier step...), as nuclei's `InternalEvent`.
 * - part: the name of the event data entry a matcher or extractor reads (default `body`).
 * - operators: one block's matchers, `matchers-condition` and extractors.
 * - internal extractor: produces variables for later requests, never output.
 */

/** The event data of one response (and of earlier steps, suffixed `_N`). */
export type EventData = Record<string, unknown>;

/**
 * The bytes behind text entries of the event data, by part name (the body): binary and hex
 * matchers compare bytes, the others the text.
 */
export type EventBytes = Record<string, Uint8Array>;

/** What operators run on: the data map plus the bytes of the parts that have them. */
export interface MatchEvent {
  data: EventData;
  bytes: EventBytes;
}

/**
 * The DSL evaluator the `dsl` matchers and extractors use, injected (helper I builds it).
 * It returns the expression's value, or an `Error` (or throws) when it cannot evaluate it.
 */
export interface DslEvaluator {
  evaluate(expression: string, vars: Record<string, unknown>): unknown;
}

/**
 * Expands `{{...}}` markers of a matcher word or DSL expression against the event data.
 * Returns the text, or an `Error` when an expression in it fails.
 */
export type ExpandMarkers = (text: string, vars: Record<string, unknown>) => string | Error;

/** What a matcher or extractor needs from its surroundings. */
export interface OperatorDeps {
  dsl?: DslEvaluator;
  expand?: ExpandMarkers;
}

/** A matcher as written in a template (validated by `compileMatcher`). */
export interface MatcherSpec {
  type: string;
  name?: string;
  part?: string;
  condition?: string;
  negative?: boolean;
  internal?: boolean;
  'case-insensitive'?: boolean;
  'match-all'?: boolean;
  encoding?: string;
  words?: string[];
  regex?: string[];
  binary?: string[];
  status?: number[];
  size?: number[];
  dsl?: string[];
  xpath?: string[];
}

/** An extractor as written in a template (validated by `compileExtractor`). */
export interface ExtractorSpec {
  type: string;
  name?: string;
  part?: string;
  internal?: boolean;
  'case-insensitive'?: boolean;
  group?: number;
  regex?: string[];
  kval?: string[];
  json?: string[];
  xpath?: string[];
  attribute?: string;
  dsl?: string[];
}

/** One block's operators as written: `matchers`, `matchers-condition`, `extractors`. */
export interface OperatorsSpec {
  matchers?: MatcherSpec[];
  'matchers-condition'?: string;
  extractors?: ExtractorSpec[];
}

/** A template's matcher or extractor that cannot be compiled (bad regex, unknown type...). */
export class OperatorCompileError extends Error {
  override readonly name = 'OperatorCompileError';
}
