/**
 * nuclei's DSL: compile an expression once, evaluate it many times against response variables.
 * Failures are values, never throws: compile errors come back as { error }, evaluation errors as a
 * DslError result that the matcher layer reads as "no match".
 */
import { lookupFunction } from './functions/index.js';
import { parseExpression, type Node } from './parser.js';
import { DslError, isDslError, toBool, type DslValue, type DslVariables } from './values.js';

export { expandMarkers, expandMarkersToBytes, findExpressions, replaceVariables } from './markers.js';
export { FUNCTION_NAMES, IMPLEMENTED_FUNCTIONS, UNSUPPORTED_FUNCTIONS, lookupFunction } from './functions/index.js';
export { murmur3Signed } from './functions/hashing.js';
export { DslError, isDslError, toText, type DslValue, type DslVariables } from './values.js';

/** A parsed expression, ready to evaluate. */
export interface CompiledExpression {
  /** The expression text it was compiled from. */
  readonly source: string;
  /** Evaluates against variables; a DslError when evaluation fails. */
  evaluate(variables: DslVariables): DslValue | DslError;
  /** nuclei's dsl matcher test: true only for a boolean true result (errors and other values: false). */
  matches(variables: DslVariables): boolean;
}

/** Compiles an expression, or returns the compile error as a value. */
export function compileExpression(source: string): CompiledExpression | DslError {
  let node: Node;
  try {
    node = parseExpression(source, lookupFunction);
  } catch (error) {
    return new DslError(`compile: ${(error as Error).message}`);
  }
  // A pathological tree (thousands of nested groups) can exhaust the stack: still a value, not a throw.
  const evaluate = (variables: DslVariables): DslValue | DslError => {
    try {
      return node(variables);
    } catch (error) {
      return new DslError(`evaluate: ${(error as Error).message}`);
    }
  };
  return { source, evaluate, matches: (variables) => evaluate(variables) === true };
}

/** Compiles and evaluates once (prefer compileExpression for repeated use). */
export function evaluateExpression(source: string, variables: DslVariables): DslValue | DslError {
  const compiled = compileExpression(source);
  return isDslError(compiled) ? compiled : compiled.evaluate(variables);
}

/** Reads a result as nuclei's DSL matchers do; exported for the matcher layer. */
export function isTruthyResult(value: DslValue | DslError): boolean {
  return !isDslError(value) && value === true;
}

export { toBool };
