/**
 * Extractors (nuclei `pkg/operators/extractors`): each yields distinct strings in the order
 * found. regex: the `group` of every match of every pattern; kval: event data entries by key
 * (headers and cookies, lower case, `-` written `_`); json: jq queries on the part parsed as
 * JSON; xpath: inner text of the selected nodes, or their `attribute`; dsl: the expressions'
 * values as text.
 */
import { loadJsonQuery, type JsonQuery } from './json-query.js';
import { compileGoRegex, findAllSubmatches } from './re2.js';
import { normalizeKey, resolvePart, toText } from './response-event.js';
import { attributeOf, compileXPath, parseDocument, queryDocument, type CompiledXPath } from './xpath-query.js';
import { OperatorCompileError, type ExtractorSpec, type MatchEvent, type OperatorDeps } from './types.js';

export const EXTRACTOR_TYPES = ['regex', 'kval', 'json', 'xpath', 'dsl'] as const;
export type ExtractorType = (typeof EXTRACTOR_TYPES)[number];

/** An extractor ready to run. */
export interface CompiledExtractor {
  type: ExtractorType;
  name: string;
  part: string;
  internal: boolean;
  caseInsensitive: boolean;
  group: number;
  regex: RegExp[];
  kval: string[];
  json: string[];
  xpath: CompiledXPath[];
  attribute: string;
  dsl: string[];
}

/** What extractors need besides the DSL: the loaded jq (see `loadJsonQuery`). */
export interface ExtractorDeps extends OperatorDeps {
  json?: JsonQuery;
}

function strings(value: unknown, what: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new OperatorCompileError(`${what} must be a list of strings`);
  }
  return value;
}

/** Validates and compiles one extractor; throws OperatorCompileError on what nuclei would refuse. */
export function compileExtractor(spec: ExtractorSpec): CompiledExtractor {
  const type = spec.type as ExtractorType;
  if (!EXTRACTOR_TYPES.includes(type)) throw new OperatorCompileError(`unknown extractor type: ${String(spec.type)}`);
  const caseInsensitive = spec['case-insensitive'] === true;
  if (caseInsensitive && type !== 'kval') {
    throw new OperatorCompileError(`case-insensitive is supported only for kval extractors (not ${type})`);
  }
  const group = spec.group ?? 0;
  if (!Number.isInteger(group) || group < 0) throw new OperatorCompileError(`bad regex group: ${String(group)}`);
  const compiled: CompiledExtractor = {
    type,
    name: typeof spec.name === 'string' ? spec.name : '',
    part: typeof spec.part === 'string' && spec.part !== '' ? spec.part : 'body',
    internal: spec.internal === true,
    caseInsensitive,
    group,
    regex: strings(spec.regex, 'regex').map(compileGoRegex),
    kval: strings(spec.kval, 'kval').map(normalizeKey),
    json: strings(spec.json, 'json'),
    xpath: strings(spec.xpath, 'xpath').map(compileXPath),
    attribute: typeof spec.attribute === 'string' ? spec.attribute : '',
    dsl: strings(spec.dsl, 'dsl'),
  };
  // Like upstream, a matcher or extractor without values is accepted: it never fires.
  return compiled;
}

function extractKval(e: CompiledExtractor, event: MatchEvent, add: (v: string) => void): void {
  let data = event.data;
  if (e.caseInsensitive) {
    data = {};
    for (const [k, v] of Object.entries(event.data)) data[k.toLowerCase()] = typeof v === 'string' ? v.toLowerCase() : v;
  }
  for (const key of e.kval) if (Object.hasOwn(data, key)) add(toText(data[key]));
}

function extractJson(e: CompiledExtractor, text: string, deps: ExtractorDeps, add: (v: string) => void): void {
  if (!deps.json) return;
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    return; // not one JSON value: upstream extracts nothing
  }
  for (const query of e.json) {
    const values = deps.json.run(query, input);
    if (values instanceof Error) continue;
    for (const v of values) add(v);
  }
}

function extractDsl(e: CompiledExtractor, event: MatchEvent, deps: OperatorDeps, add: (v: string) => void): void {
  if (!deps.dsl) return;
  for (const expression of e.dsl) {
    let value: unknown;
    try {
      value = deps.dsl.evaluate(expression, event.data);
    } catch {
      continue;
    }
    // A failed expression (often a variable the response lacks) gives nothing, as upstream's
    // "No parameter" case; the others still run.
    if (value instanceof Error || value === undefined || value === null) continue;
    const text = toText(value);
    if (text !== '') add(text);
  }
}

/** Runs one extractor on an event: its distinct values in the order found. */
export function runExtractor(e: CompiledExtractor, event: MatchEvent, deps: ExtractorDeps = {}): string[] {
  const seen = new Set<string>();
  const add = (v: string): void => {
    seen.add(v);
  };
  if (e.type === 'kval') {
    extractKval(e, event, add);
    return [...seen];
  }
  if (e.type === 'dsl') {
    extractDsl(e, event, deps, add);
    return [...seen];
  }
  const part = resolvePart(e.part, event);
  if (part === undefined) return [];
  switch (e.type) {
    case 'regex':
      for (const re of e.regex) {
        for (const m of findAllSubmatches(re, part.text)) if (m.length > e.group) add(m[e.group] ?? '');
      }
      break;
    case 'json':
      extractJson(e, part.text, deps, add);
      break;
    case 'xpath': {
      const doc = parseDocument(part.text);
      if (!doc) break;
      for (const query of e.xpath) {
        for (const hit of queryDocument(doc, query)) {
          const value = e.attribute !== '' ? attributeOf(hit, e.attribute) : hit.value;
          // Upstream also keeps '' for an element without the attribute; it carries nothing.
          if (value !== '') add(value);
        }
      }
      break;
    }
  }
  return [...seen];
}

export { loadJsonQuery };
