/**
 * Matchers (nuclei `pkg/operators/matchers`): compile once per template, then match events.
 * Semantics follow upstream match.go: `condition` (default or) within one matcher; status and
 * size ignore it; `negative` inverts the outcome (and drops the snippets); a part the event lacks
 * fails the matcher whatever `negative` says (as upstream); `case-insensitive` lower-cases the
 * words once and the corpus at each match; `encoding: hex` decodes the words, compared as bytes.
 */
import { compileGoRegex, findAllSubmatches } from './re2.js';
import { resolvePart, type ResolvedPart } from './response-event.js';
import { compileXPath, parseDocument, queryDocument, type CompiledXPath } from './xpath-query.js';
import { OperatorCompileError, type MatchEvent, type MatcherSpec, type OperatorDeps } from './types.js';

export const MATCHER_TYPES = ['word', 'regex', 'binary', 'status', 'size', 'dsl', 'xpath'] as const;
export type MatcherType = (typeof MATCHER_TYPES)[number];

/** A matcher ready to run. */
export interface CompiledMatcher {
  type: MatcherType;
  name: string | undefined;
  part: string;
  and: boolean;
  negative: boolean;
  internal: boolean;
  caseInsensitive: boolean;
  matchAll: boolean;
  /** Words as text, or as bytes when `encoding: hex` decoded them. */
  words: string[];
  hexWords: Buffer[] | undefined;
  regex: RegExp[];
  binary: Buffer[];
  status: number[];
  size: number[];
  dsl: string[];
  xpath: CompiledXPath[];
}

/** Whether a matcher fired, and what it saw (matched words, regex matches) for evidence. */
export interface MatcherOutcome {
  matched: boolean;
  snippets: string[];
}

function list<T>(value: unknown, what: string, check: (v: unknown) => v is T): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OperatorCompileError(`${what} must be a list`);
  for (const v of value) if (!check(v)) throw new OperatorCompileError(`${what} holds a value of the wrong type: ${String(v)}`);
  return value as T[];
}
const isString = (v: unknown): v is string => typeof v === 'string';
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

function decodeHex(text: string, what: string): Buffer | undefined {
  const clean = text.trim();
  if (clean.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(clean)) {
    if (what === '') return undefined;
    throw new OperatorCompileError(`${what} is not hex: ${text}`);
  }
  return Buffer.from(clean, 'hex');
}

/** Validates and compiles one matcher; throws OperatorCompileError on what nuclei would refuse. */
export function compileMatcher(spec: MatcherSpec): CompiledMatcher {
  const type = spec.type as MatcherType;
  if (!MATCHER_TYPES.includes(type)) throw new OperatorCompileError(`unknown matcher type: ${String(spec.type)}`);
  const condition = spec.condition ?? 'or';
  if (condition !== 'and' && condition !== 'or') throw new OperatorCompileError(`unknown matcher condition: ${condition}`);
  const caseInsensitive = spec['case-insensitive'] === true;
  if (caseInsensitive && type !== 'word') {
    throw new OperatorCompileError(`case-insensitive is supported only for word matchers (not ${type})`);
  }
  let words = list(spec.words, 'words', isString);
  let hexWords: Buffer[] | undefined;
  if (spec.encoding === 'hex') {
    // Upstream keeps a word that does not decode as it is.
    hexWords = words.map((w) => {
      const d = decodeHex(w, '');
      return d !== undefined && d.length > 0 ? d : Buffer.from(w, 'utf8');
    });
    words = hexWords.map((b) => b.toString('latin1'));
  }
  if (caseInsensitive) words = words.map((w) => w.toLowerCase());
  const compiled: CompiledMatcher = {
    type,
    name: typeof spec.name === 'string' && spec.name !== '' ? spec.name : undefined,
    part: typeof spec.part === 'string' && spec.part !== '' ? spec.part : 'body',
    and: condition === 'and',
    negative: spec.negative === true,
    internal: spec.internal === true,
    caseInsensitive,
    matchAll: spec['match-all'] === true,
    words,
    hexWords,
    regex: list(spec.regex, 'regex', isString).map(compileGoRegex),
    binary: list(spec.binary, 'binary', isString).map((b) => decodeHex(b, 'binary') as Buffer),
    status: list(spec.status, 'status', isInt),
    size: list(spec.size, 'size', isInt),
    dsl: list(spec.dsl, 'dsl', isString),
    xpath: list(spec.xpath, 'xpath', isString).map(compileXPath),
  };
  // Like upstream, a matcher or extractor without values is accepted: it never fires.
  return compiled;
}

/** Runs a list of checks with upstream's and/or loop: and fails at the first miss, or at the first hit. */
function combine(m: CompiledMatcher, count: number, check: (i: number) => string[] | undefined): MatcherOutcome {
  const snippets: string[] = [];
  let any = false;
  for (let i = 0; i < count; i++) {
    const hit = check(i);
    if (hit === undefined) {
      if (m.and) return { matched: false, snippets: [] };
      continue;
    }
    if (!m.and && !m.matchAll) return { matched: true, snippets: hit };
    any = true;
    snippets.push(...hit);
  }
  return any ? { matched: true, snippets } : { matched: false, snippets: [] };
}

function bytesOf(part: ResolvedPart, m: CompiledMatcher): Buffer {
  const raw = Buffer.from(part.bytes());
  return m.caseInsensitive ? Buffer.from(raw.toString('latin1').toLowerCase(), 'latin1') : raw;
}

function matchWords(m: CompiledMatcher, part: ResolvedPart, event: MatchEvent, deps: OperatorDeps): MatcherOutcome {
  if (m.hexWords) {
    const corpus = bytesOf(part, m);
    return combine(m, m.words.length, (i) => {
      const needle = m.caseInsensitive ? Buffer.from((m.words[i] as string).toLowerCase(), 'latin1') : (m.hexWords?.[i] as Buffer);
      return corpus.includes(needle) ? [needle.toString('hex')] : undefined;
    });
  }
  const corpus = m.caseInsensitive ? part.text.toLowerCase() : part.text;
  let failed = false;
  const outcome = combine(m, m.words.length, (i) => {
    let word = m.words[i] as string;
    if (deps.expand && word.includes('{{')) {
      const expanded = deps.expand(word, event.data);
      if (expanded instanceof Error) {
        if (m.and) {
          failed = true;
          return undefined;
        }
      } else {
        word = expanded;
      }
    }
    return corpus.includes(word) ? [word] : undefined;
  });
  return failed ? { matched: false, snippets: [] } : outcome;
}

function matchDsl(m: CompiledMatcher, event: MatchEvent, deps: OperatorDeps): MatcherOutcome {
  const evaluator = deps.dsl;
  if (!evaluator) return { matched: false, snippets: [] };
  // Upstream quirk kept: a non-boolean value is skipped, so it never makes an `and` matcher
  // fire when it is the last expression.
  for (let i = 0; i < m.dsl.length; i++) {
    let expression = m.dsl[i] as string;
    if (deps.expand && expression.includes('{{')) {
      const expanded = deps.expand(expression, event.data);
      if (expanded instanceof Error) return { matched: false, snippets: [] };
      expression = expanded;
    }
    let value: unknown;
    try {
      value = evaluator.evaluate(expression, event.data);
    } catch (error) {
      value = error instanceof Error ? error : new Error(String(error));
    }
    if (value instanceof Error) {
      if (m.and) return { matched: false, snippets: [] };
      continue;
    }
    if (typeof value !== 'boolean') continue;
    if (!value) {
      if (m.and) return { matched: false, snippets: [] };
      continue;
    }
    if (!m.and) return { matched: true, snippets: [expression] };
    if (i === m.dsl.length - 1) return { matched: true, snippets: [...m.dsl] };
  }
  return { matched: false, snippets: [] };
}

function matchXPath(m: CompiledMatcher, part: ResolvedPart): MatcherOutcome {
  const doc = parseDocument(part.text);
  if (!doc) return { matched: false, snippets: [] };
  return combine(m, m.xpath.length, (i) => {
    const hits = queryDocument(doc, m.xpath[i] as CompiledXPath);
    return hits.length > 0 ? [(m.xpath[i] as CompiledXPath).source] : undefined;
  });
}

function matchRaw(m: CompiledMatcher, part: ResolvedPart, event: MatchEvent, deps: OperatorDeps): MatcherOutcome {
  switch (m.type) {
    case 'status': {
      const status = event.data.status_code;
      if (typeof status !== 'number') return { matched: false, snippets: [] };
      return m.status.includes(status) ? { matched: true, snippets: [String(status)] } : { matched: false, snippets: [] };
    }
    case 'size': {
      const size = Buffer.byteLength(part.text, 'utf8');
      return { matched: m.size.includes(size), snippets: [] };
    }
    case 'word':
      return matchWords(m, part, event, deps);
    case 'regex':
      return combine(m, m.regex.length, (i) => {
        const found = findAllSubmatches(m.regex[i] as RegExp, part.text, m.and || m.matchAll ? Infinity : 1);
        return found.length > 0 ? found.map((f) => f[0] ?? '') : undefined;
      });
    case 'binary': {
      const corpus = Buffer.from(part.bytes());
      return combine(m, m.binary.length, (i) => (corpus.includes(m.binary[i] as Buffer) ? [(m.binary[i] as Buffer).toString('hex')] : undefined));
    }
    case 'dsl':
      return matchDsl(m, event, deps);
    case 'xpath':
      return matchXPath(m, part);
  }
}

/** Matches one matcher against an event (negative applied). */
export function runMatcher(m: CompiledMatcher, event: MatchEvent, deps: OperatorDeps = {}): MatcherOutcome {
  const part = resolvePart(m.part, event);
  if (part === undefined && m.type !== 'dsl') return { matched: false, snippets: [] };
  const raw = matchRaw(m, part ?? { text: '', bytes: () => new Uint8Array() }, event, deps);
  return m.negative ? { matched: !raw.matched, snippets: [] } : raw;
}
