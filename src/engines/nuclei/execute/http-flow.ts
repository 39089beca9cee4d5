/**
 * Simple `flow:` expressions (templates/features.ts `isSimpleFlow`: protocol calls joined by `&&`,
 * `||` and parentheses, e.g. `http(1) && http(2)`), evaluated as JavaScript would: left to right,
 * `&&` before `||`, short-circuit, so a block runs only when the chain reaches it. 866 templates of
 * the corpus use this form; any other flow is JavaScript and not run here.
 */

/** Runs one call: the protocol and its 1-based block index (undefined: every block of it). */
export type FlowCall = (protocol: string, index: number | undefined) => Promise<boolean>;

type Token = { kind: 'and' | 'or' | 'open' | 'close' } | { kind: 'call'; protocol: string; index: number | undefined };

/** A flow this evaluator cannot read. */
export class FlowSyntaxError extends Error {
  override readonly name = 'FlowSyntaxError';
}

function tokenize(flow: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s*(?:(&&)|(\|\|)|(\()|(\))|([a-z]+)\s*\(\s*(\d*)\s*\))/gy;
  let at = 0;
  while (at < flow.length) {
    if (/^\s*$/.test(flow.slice(at))) break;
    pattern.lastIndex = at;
    const match = pattern.exec(flow);
    if (!match) throw new FlowSyntaxError(`cannot read the flow at "${flow.slice(at, at + 20)}"`);
    at = pattern.lastIndex;
    if (match[1]) tokens.push({ kind: 'and' });
    else if (match[2]) tokens.push({ kind: 'or' });
    else if (match[3]) tokens.push({ kind: 'open' });
    else if (match[4]) tokens.push({ kind: 'close' });
    else tokens.push({ kind: 'call', protocol: match[5]!, index: match[6] ? Number(match[6]) : undefined });
  }
  return tokens;
}

/** Evaluates a simple flow, calling blocks only where the short-circuit reaches them. */
export async function evaluateSimpleFlow(flow: string, call: FlowCall): Promise<boolean> {
  const tokens = tokenize(flow);
  let position = 0;
  const peek = (): Token | undefined => tokens[position];

  // Each parser takes `run`: false while short-circuited (the tree is read, nothing is called).
  const primary = async (run: boolean): Promise<boolean> => {
    const token = tokens[position++];
    if (token?.kind === 'open') {
      const value = await or(run);
      if (tokens[position++]?.kind !== 'close') throw new FlowSyntaxError('unbalanced parentheses in the flow');
      return value;
    }
    if (token?.kind === 'call') return run ? call(token.protocol, token.index) : false;
    throw new FlowSyntaxError('a protocol call was expected in the flow');
  };
  const and = async (run: boolean): Promise<boolean> => {
    let value = await primary(run);
    while (peek()?.kind === 'and') {
      position++;
      const right = await primary(run && value);
      value = value && right;
    }
    return value;
  };
  const or = async (run: boolean): Promise<boolean> => {
    let value = await and(run);
    while (peek()?.kind === 'or') {
      position++;
      const right = await and(run && !value);
      value = value || right;
    }
    return value;
  };
  const result = await or(true);
  if (position !== tokens.length) throw new FlowSyntaxError('unexpected text after the flow');
  return result;
}
