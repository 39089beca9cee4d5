/**
 * Parses a govaluate expression once into a tree of closures that evaluates many times.
 * Precedence, lowest first, as govaluate's stage planner: ternary `? : ??`, `||`, `&&`,
 * comparators (`== != < <= > >= =~ !~ in`), bitwise `& | ^`, shifts, `+ -`, `* / %`, `**`, prefix
 * `! - ~`, then calls, variables, literals and parenthesised groups (a group with commas is an array,
 * the right side of `in`). Same-precedence operators associate to the left.
 */
import { tokenize, type Token } from './lexer.js';
import { BINARY_OPERATORS, PREFIX_OPERATORS } from './operators.js';
import { compileGoRegex } from './regex.js';
import { DslError, fromHost, isDslError, type DslValue, type DslVariables } from './values.js';

/** A compiled node: evaluates against variables, returning a value or a DslError. */
export type Node = (variables: DslVariables) => DslValue | DslError;

/** A helper function as the parser sees it. */
export interface CallableFunction {
  /** Exact number of arguments when fixed (govaluate's positional functions), else undefined. */
  readonly arity?: number;
  /** Runs the function; returns a DslError on bad input. */
  call(args: DslValue[]): DslValue | DslError;
}

/** Where the parser finds functions; undefined means "no functions" (nuclei's plain parse). */
export type FunctionLookup = (name: string) => CallableFunction | undefined;

const LEVELS: ReadonlyArray<ReadonlySet<string>> = [
  new Set(['?', ':', '??']),
  new Set(['||']),
  new Set(['&&']),
  new Set(['==', '!=', '<', '<=', '>', '>=', '=~', '!~', 'in']),
  new Set(['&', '|', '^']),
  new Set(['<<', '>>']),
  new Set(['+', '-']),
  new Set(['*', '/', '%']),
  new Set(['**']),
];

/** Builds the node of a binary operator, with govaluate's short-circuits. */
function combine(symbol: string, left: Node, right: Node): Node {
  switch (symbol) {
    case '&&':
    case '||':
      return (vars) => {
        const l = left(vars);
        if (isDslError(l)) return l;
        if (l === (symbol === '||')) return l;
        if (typeof l !== 'boolean') return new DslError(`Value '${String(l)}' cannot be used with the logical operator '${symbol}', it is not a bool`);
        const r = right(vars);
        if (isDslError(r)) return r;
        if (typeof r !== 'boolean') return new DslError(`Value '${String(r)}' cannot be used with the logical operator '${symbol}', it is not a bool`);
        return r;
      };
    case '?':
      return (vars) => {
        const l = left(vars);
        if (isDslError(l)) return l;
        if (typeof l !== 'boolean') return new DslError("Value cannot be used with the ternary operator '?', it is not a bool");
        return l ? right(vars) : null;
      };
    case ':':
    case '??':
      return (vars) => {
        const l = left(vars);
        if (isDslError(l)) return l;
        return l !== null ? l : right(vars);
      };
    default: {
      const operator = BINARY_OPERATORS[symbol];
      if (!operator) throw new SyntaxError(`Invalid operator '${symbol}'`);
      return (vars) => {
        const l = left(vars);
        if (isDslError(l)) return l;
        const r = right(vars);
        if (isDslError(r)) return r;
        return operator(l, r);
      };
    }
  }
}

/** A comma-separated group: evaluates to the array of its items. */
function listNode(items: Node[]): Node {
  return (vars) => {
    const values: DslValue[] = [];
    for (const item of items) {
      const value = item(vars);
      if (isDslError(value)) return value;
      values.push(value);
    }
    return values;
  };
}

class Parser {
  private position = 0;

  constructor(private readonly tokens: Token[], private readonly functions: FunctionLookup | undefined) {}

  parse(): Node {
    if (this.tokens.length === 0) throw new SyntaxError('empty expression');
    const items = [this.binary(0)];
    // govaluate's lowest stage is the separator: `a, b` at top level yields an array.
    while (this.peek()?.kind === 'comma') {
      this.position++;
      items.push(this.binary(0));
    }
    const node = items.length === 1 ? (items[0] as Node) : listNode(items);
    if (this.position < this.tokens.length) throw new SyntaxError(`unexpected token at position ${this.position}`);
    return node;
  }

  private peek(): Token | undefined {
    return this.tokens[this.position];
  }

  private next(): Token {
    const token = this.tokens[this.position++];
    if (!token) throw new SyntaxError('unexpected end of expression');
    return token;
  }

  private binary(level: number): Node {
    const symbols = LEVELS[level];
    if (!symbols) return this.prefix();
    let left = this.binary(level + 1);
    for (let token = this.peek(); token?.kind === 'symbol' && symbols.has(token.value); token = this.peek()) {
      this.position++;
      const rightToken = this.peek();
      const right = this.binary(level + 1);
      // govaluate compiles a constant regex at parse time: a bad pattern is a compile error.
      if ((token.value === '=~' || token.value === '!~') && rightToken?.kind === 'string') {
        const compiled = compileGoRegex(rightToken.value);
        if (compiled instanceof DslError) throw new SyntaxError(compiled.message);
      }
      left = combine(token.value, left, right);
    }
    return left;
  }

  private prefix(): Node {
    const token = this.peek();
    if (token?.kind === 'symbol' && token.value in PREFIX_OPERATORS) {
      this.position++;
      const operator = PREFIX_OPERATORS[token.value] as (value: DslValue) => DslValue | DslError;
      const operand = this.prefix();
      return (vars) => {
        const value = operand(vars);
        return isDslError(value) ? value : operator(value);
      };
    }
    return this.primary();
  }

  /** Reads `( expr, expr, ... )` after the opening parenthesis was consumed. */
  private group(allowEmpty: boolean): Node[] {
    const items: Node[] = [];
    if (this.peek()?.kind === 'close') {
      if (!allowEmpty) throw new SyntaxError('empty parentheses');
      this.position++;
      return items;
    }
    for (;;) {
      items.push(this.binary(0));
      const token = this.next();
      if (token.kind === 'close') return items;
      if (token.kind !== 'comma') throw new SyntaxError('expected , or )');
    }
  }

  private primary(): Node {
    const token = this.next();
    switch (token.kind) {
      case 'number':
      case 'string':
      case 'boolean': {
        const value = token.value;
        return () => value;
      }
      case 'open': {
        const items = this.group(false);
        return items.length === 1 ? (items[0] as Node) : listNode(items);
      }
      case 'identifier':
        return this.identifier(token.value);
      default:
        throw new SyntaxError(`unexpected token ${token.kind === 'symbol' ? `'${token.value}'` : token.kind}`);
    }
  }

  private identifier(name: string): Node {
    const fn = this.functions?.(name);
    if (fn) {
      if (this.next().kind !== 'open') throw new SyntaxError(`function ${name} needs an argument list`);
      return this.call(name, fn, this.group(true));
    }
    if (this.peek()?.kind === 'open') throw new SyntaxError(`unknown function '${name}'`);
    const parts = name.split('.');
    if (parts.length > 1) {
      if (parts.slice(1).some((part) => part[0] !== part[0]?.toUpperCase())) throw new SyntaxError(`Unable to access unexported field in token '${name}'`);
      // govaluate reads fields of Go structs; nuclei's variables are plain values, so this always fails.
      return () => new DslError(`Unable to access '${name}': variables have no fields`);
    }
    return (vars) => (Object.hasOwn(vars, name) ? fromHost(vars[name]) : new DslError(`No parameter '${name}' found.`));
  }

  private call(name: string, fn: CallableFunction, argNodes: Node[]): Node {
    return (vars) => {
      const args: DslValue[] = [];
      for (const node of argNodes) {
        const value = node(vars);
        if (isDslError(value)) return value;
        args.push(value);
      }
      if (fn.arity !== undefined && args.length !== fn.arity) return new DslError(`invalid dsl function signature: ${name} takes ${fn.arity} arguments, got ${args.length}`);
      try {
        return fn.call(args);
      } catch (error) {
        // A helper must never crash a scan: an unexpected throw becomes an error value.
        return new DslError(`${name}: ${(error as Error).message}`);
      }
    };
  }
}

/** Parses an expression into a node; throws SyntaxError when govaluate would refuse it. */
export function parseExpression(source: string, functions: FunctionLookup | undefined): Node {
  return new Parser(tokenize(source), functions).parse();
}
