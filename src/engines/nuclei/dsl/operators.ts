/**
 * govaluate's operators with its type checks (evaluationStage.go, stagePlanner.go): `==`/`!=` are
 * reflect.DeepEqual (so 200 != "200"), `+` adds numbers or concatenates when either side is a
 * string, `< <= > >=` need two numbers or two strings, `&& || !` need booleans, `=~ !~` strings.
 * A type mismatch is a DslError, never a throw.
 */
import { compileGoRegex } from './regex.js';
import { DslError, deepEqual, formatNumber, type DslValue } from './values.js';

type Binary = (left: DslValue, right: DslValue) => DslValue | DslError;

const isNumber = (v: DslValue): v is number => typeof v === 'number';
const isString = (v: DslValue): v is string => typeof v === 'string';

/** Go's fmt %v for values concatenated by `+`. */
function formatV(value: DslValue): string {
  if (value === null) return '<nil>';
  if (typeof value === 'number') {
    // %v of a float64 is %g with the shortest digits: exponent form below 1e-4 and from 1e6 up
    // (Go prints 1000000.0 as "1e+06"), with at least two exponent digits.
    if (value === 0 || !Number.isFinite(value)) return formatNumber(value);
    const [mantissa = '', exponent = '0'] = value.toExponential().split('e');
    const power = Number(exponent);
    if (power >= -4 && power < 6) return formatNumber(value);
    return `${mantissa}e${power < 0 ? '-' : '+'}${String(Math.abs(power)).padStart(2, '0')}`;
  }
  if (Array.isArray(value)) return `[${value.map(formatV).join(' ')}]`;
  if (value instanceof Uint8Array) return `[${Array.from(value).join(' ')}]`;
  return String(value);
}

function numeric(symbol: string, apply: (a: number, b: number) => number): Binary {
  return (left, right) => {
    if (!isNumber(left)) return new DslError(`Value '${formatV(left)}' cannot be used with the modifier '${symbol}', it is not a number`);
    if (!isNumber(right)) return new DslError(`Value '${formatV(right)}' cannot be used with the modifier '${symbol}', it is not a number`);
    return apply(left, right);
  };
}

/** Go converts float64 to int64 for bitwise operators. */
const toInt64 = (n: number): bigint => BigInt.asIntN(64, BigInt(Math.trunc(n)));
const bitwise = (symbol: string, apply: (a: bigint, b: bigint) => bigint): Binary =>
  numeric(symbol, (a, b) => Number(BigInt.asIntN(64, apply(toInt64(a), toInt64(b)))));

function ordered(symbol: string, test: (order: number) => boolean): Binary {
  return (left, right) => {
    if (isNumber(left) && isNumber(right)) return test(left < right ? -1 : left > right ? 1 : left === right ? 0 : NaN);
    if (isString(left) && isString(right)) return test(left < right ? -1 : left > right ? 1 : 0);
    return new DslError(`Value '${formatV(left)}' cannot be used with the comparator '${symbol}', it is not a number`);
  };
}

function regexMatch(symbol: string, negate: boolean): Binary {
  return (left, right) => {
    if (!isString(left) || !isString(right)) return new DslError(`Value cannot be used with the comparator '${symbol}', it is not a string`);
    const pattern = compileGoRegex(right);
    if (pattern instanceof DslError) return pattern;
    return pattern.test(left) !== negate;
  };
}

/** The binary operators, by symbol (the logical and ternary ones short-circuit in the parser). */
export const BINARY_OPERATORS: Readonly<Record<string, Binary>> = {
  '+': (left, right) => {
    if (isNumber(left) && isNumber(right)) return left + right;
    if (isString(left) || isString(right)) return formatV(left) + formatV(right);
    return new DslError(`Value '${formatV(left)}' cannot be used with the modifier '+', it is not a number`);
  },
  '-': numeric('-', (a, b) => a - b),
  '*': numeric('*', (a, b) => a * b),
  '/': numeric('/', (a, b) => a / b),
  '%': numeric('%', (a, b) => a % b), // math.Mod
  '**': numeric('**', (a, b) => a ** b),
  '&': bitwise('&', (a, b) => a & b),
  '|': bitwise('|', (a, b) => a | b),
  '^': bitwise('^', (a, b) => a ^ b),
  '<<': bitwise('<<', (a, b) => (b < 0n || b > 63n ? 0n : a << b)),
  '>>': bitwise('>>', (a, b) => a >> (b < 0n ? 0n : b > 63n ? 63n : b)),
  '==': (left, right) => deepEqual(left, right),
  '!=': (left, right) => !deepEqual(left, right),
  '<': ordered('<', (o) => o < 0),
  '<=': ordered('<=', (o) => o <= 0),
  '>': ordered('>', (o) => o > 0),
  '>=': ordered('>=', (o) => o >= 0),
  '=~': regexMatch('=~', false),
  '!~': regexMatch('!~', true),
  in: (left, right) => {
    if (!Array.isArray(right)) return new DslError("Value cannot be used with the comparator 'in', it is not an array");
    return right.some((item) => deepEqual(left, item));
  },
};

/** The prefix operators. */
export const PREFIX_OPERATORS: Readonly<Record<string, (value: DslValue) => DslValue | DslError>> = {
  '!': (value) => (typeof value === 'boolean' ? !value : new DslError(`Value '${formatV(value)}' cannot be used with the modifier '!', it is not a bool`)),
  '-': (value) => (isNumber(value) ? -value : new DslError(`Value '${formatV(value)}' cannot be used with the modifier '-', it is not a number`)),
  '~': (value) => (isNumber(value) ? Number(~toInt64(value)) : new DslError(`Value '${formatV(value)}' cannot be used with the modifier '~', it is not a number`)),
};
