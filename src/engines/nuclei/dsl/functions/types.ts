/** The shape every helper function module exports: name -> definition. */
import type { DslError, DslValue } from '../values.js';

/** One helper function of projectdiscovery/dsl. */
export interface DslFunction {
  /** Exact argument count for upstream's positional functions; variadic ones check inside. */
  readonly arity?: number;
  /** Runs the function on evaluated arguments. */
  call(args: DslValue[]): DslValue | DslError;
}

/** A table of helper functions by their upstream name (with underscores). */
export type FunctionTable = Readonly<Record<string, DslFunction>>;

/** Upstream's ErrInvalidDslFunction text. */
export const INVALID_SIGNATURE = 'invalid dsl function signature';
