/**
 * Feature analysis: the set of engine features a template needs, read statically from its model.
 * The vocabulary follows ../shared/reference/nuclei.md (sections 3-7); each feature is a string:
 *
 * - protocols: `http.path`, `http.raw`, `tcp`, `ssl`, `dns`, and the never-run ones
 *   `protocol.code|headless|javascript|file|websocket|whois|workflows`.
 * - http: `http.raw-annotations` (`@timeout`, `@Host`...), `http.redirects`, `http.multiple-blocks`,
 *   `http.unsafe`, `http.disable-path-automerge`, `http.iterate-all`, `http.cookie-reuse`, `http.race`,
 *   `http.pipeline`, `http.req-condition` (written explicitly), `http.global-matchers`, `http.digest-auth`.
 * - opt-in kinds: `self-contained`, `dast` (a `fuzzing:` section).
 * - operators: `matcher.<type>` (word, status, regex, binary, xpath, size, dsl, or whatever an author
 *   wrote), `matcher.negative`, `matcher.case-insensitive`, `matcher.internal`, `matcher.hex-encoding`,
 *   `matcher.match-all`, `extractor.<type>`, `extractor.internal`.
 * - http parts: `part.header-name` (a header read by name: `content_type`, `server`...),
 *   `part.variable` (a part naming an extracted variable).
 * - state: `variables.indexed` (`body_2`, `status_code_1`...), `variables` (top-level variables),
 *   `flow.simple` (`http(1) && http(2)`-style chains), `flow.js` (any other flow).
 * - payloads: `payloads`, `attack.batteringram|pitchfork|clusterbomb`, `payloads.wordlist` (a file).
 * - DSL: `dsl` (a DSL evaluator is needed), `dsl:<function>` per function (canonical name).
 * - helpers: `helper:<Name>` (BaseURL, Hostname, randstr...); `interactsh` (OOB: `{{interactsh-url}}`
 *   or an `interactsh_*` part or variable); `var-input` (a name nobody defines: the user must give it
 *   with `-var`).
 * - tcp: `tcp.text`, `tcp.hex` (input encodings), `tcp.tls` (a `tls://` host).
 */
import { canonicalDslFunction, isPlainMarker, readExpressionNames, readMarkers, type ExpressionNames } from './dsl-names.js';
import type { Extractor, HttpRequest, Matcher, OperatorsBlock, Template } from './template.types.js';

/** Helper variables nuclei fills from the target (and `randstr`, filled once per template). */
export const HELPER_VARIABLES: readonly string[] = [
  'BaseURL', 'RootURL', 'Hostname', 'Host', 'Port', 'Path', 'File', 'Scheme', 'FQDN', 'RDN', 'DN', 'TLD', 'SD',
  'Input', 'ip', 'randstr',
];
const HELPERS = new Set(HELPER_VARIABLES);

/** Parts every protocol block of http reads without naming a header: the L1 vocabulary. */
const BASIC_HTTP_PARTS = new Set(['', 'body', 'header', 'all_headers', 'response', 'all', 'raw', 'request', 'status_code', 'content_length', 'duration']);

/** Response variables a later request or a DSL expression may name: never a `-var` input. */
const RESPONSE_VARIABLES = new Set([...BASIC_HTTP_PARTS, 'host', 'matched', 'path', 'url', 'method', 'template-id', 'template-path']);

const PROTOCOL_CALL = /\b(http|dns|tcp|network|ssl|headless|code|javascript|file|websocket|whois)\s*\(\s*\d*\s*\)/g;

/** True for a flow that only chains protocol calls with `&&`, `||` and parentheses. */
export function isSimpleFlow(flow: string): boolean {
  return flow.replace(PROTOCOL_CALL, '').replace(/&&|\|\||[()\s]/g, '') === '';
}

const INDEXED = /^[A-Za-z_]+_\d+$/;

interface Scan {
  features: Set<string>;
  /** Names used by `{{...}}` markers on the request side and in matcher words. */
  markerNames: ExpressionNames;
  /** Names used by DSL matchers and extractors. */
  dslNames: ExpressionNames;
}

function scanMarkers(text: string, scan: Scan): void {
  for (const inner of readMarkers(text)) {
    if (isPlainMarker(inner)) {
      scan.markerNames.variables.add(inner.trim());
      continue;
    }
    const names = readExpressionNames(inner);
    // Nuclei evaluates a marker only when it names a function; `{{7*7}}` stays literal text.
    if (names.functions.size > 0) {
      scan.features.add('dsl');
      for (const f of names.functions) scan.markerNames.functions.add(f);
    }
    for (const v of names.variables) scan.markerNames.variables.add(v);
  }
}

function scanMatcher(m: Matcher, scan: Scan): void {
  const f = scan.features;
  f.add(`matcher.${m.type || 'word'}`);
  if (m.negative) f.add('matcher.negative');
  if (m.caseInsensitive) f.add('matcher.case-insensitive');
  if (m.internal) f.add('matcher.internal');
  if (m.matchAll) f.add('matcher.match-all');
  if (m.encoding?.toLowerCase() === 'hex') f.add('matcher.hex-encoding');
  for (const w of [...m.words, ...m.regex, ...m.binary]) scanMarkers(w, scan);
  for (const e of m.dsl) scanDsl(e, scan);
}

function scanExtractor(e: Extractor, scan: Scan): void {
  scan.features.add(`extractor.${e.type || 'regex'}`);
  if (e.internal) scan.features.add('extractor.internal');
  for (const x of e.dsl) scanDsl(x, scan);
}

function scanDsl(expression: string, scan: Scan): void {
  scan.features.add('dsl');
  readExpressionNames(expression, scan.dslNames);
  // Markers nested in DSL are substituted before evaluation (116 templates in the reference).
  scanMarkers(expression, scan);
}

function scanOperators(b: OperatorsBlock, scan: Scan): void {
  for (const m of b.matchers) scanMatcher(m, scan);
  for (const e of b.extractors) scanExtractor(e, scan);
}

function scanHttpPart(part: string | undefined, extracted: Set<string>, scan: Scan): void {
  const p = (part ?? '').trim().toLowerCase();
  if (BASIC_HTTP_PARTS.has(p)) return;
  if (p.startsWith('interactsh_')) scan.features.add('interactsh');
  else if (INDEXED.test(p)) scan.features.add('variables.indexed');
  else if (extracted.has(part ?? '')) scan.features.add('part.variable');
  else scan.features.add('part.header-name');
}

/**
 * Annotations head a raw request, before its request line: `@timeout: 10s`, `@timeout 20s` (42
 * templates omit the colon), `@Host:`, `@tls-sni:`. An `@` line in the body is not one.
 */
function hasRawAnnotation(raw: string): boolean {
  return /^\s*@[A-Za-z-]+(\s*:|\s)/.test(raw.trimStart());
}

function scanHttp(b: HttpRequest, extracted: Set<string>, scan: Scan): void {
  const f = scan.features;
  if (b.path.length > 0) f.add('http.path');
  if (b.raw.length > 0) f.add('http.raw');
  if (b.raw.some(hasRawAnnotation)) f.add('http.raw-annotations');
  const flags: Array<[boolean, string]> = [
    [b.redirects, 'http.redirects'], [b.unsafe, 'http.unsafe'], [b.disablePathAutomerge, 'http.disable-path-automerge'],
    [b.iterateAll, 'http.iterate-all'], [b.cookieReuse, 'http.cookie-reuse'], [b.race, 'http.race'],
    [b.pipeline, 'http.pipeline'], [b.reqCondition, 'http.req-condition'], [b.globalMatchers, 'http.global-matchers'],
    [b.digestAuth, 'http.digest-auth'], [b.fuzzing, 'dast'], [b.selfContained, 'self-contained'],
  ];
  for (const [on, name] of flags) if (on) f.add(name);
  for (const text of [...b.path, ...b.raw, b.body ?? '', ...Object.entries(b.headers).flat()]) scanMarkers(text, scan);
  for (const m of b.matchers) scanHttpPart(m.part, extracted, scan);
  for (const e of b.extractors) scanHttpPart(e.part, extracted, scan);
  scanOperators(b, scan);
}

function scanPayloads(payloads: HttpRequest['payloads'], attack: string | undefined, scan: Scan): void {
  const sources = Object.values(payloads);
  if (sources.length === 0) return;
  scan.features.add('payloads');
  if (attack) scan.features.add(`attack.${attack}`);
  for (const s of sources) {
    if (s.kind === 'file') scan.features.add('payloads.wordlist');
    else for (const v of s.values) scanMarkers(v, scan);
  }
}

/** The set of features a template needs (sorted for stable output). */
export function analyzeTemplateFeatures(t: Template): string[] {
  const scan: Scan = {
    features: new Set(),
    markerNames: { functions: new Set(), variables: new Set() },
    dslNames: { functions: new Set(), variables: new Set() },
  };
  const f = scan.features;
  for (const p of t.protocols) if (!['http', 'tcp', 'ssl', 'dns'].includes(p)) f.add(`protocol.${p}`);
  if (t.selfContained) f.add('self-contained');
  if (Object.keys(t.variables).length > 0) f.add('variables');
  for (const v of Object.values(t.variables)) scanMarkers(v, scan);
  if (t.flow !== undefined) f.add(isSimpleFlow(t.flow) ? 'flow.simple' : 'flow.js');

  const blocks: OperatorsBlock[] = [...t.http, ...t.tcp, ...t.ssl, ...t.dns];
  const extracted = new Set(blocks.flatMap((b) => b.extractors.map((e) => e.name).filter((n): n is string => !!n)));
  if (t.http.length > 1) f.add('http.multiple-blocks');
  for (const b of t.http) {
    scanHttp(b, extracted, scan);
    scanPayloads(b.payloads, b.attack, scan);
  }
  for (const b of t.tcp) {
    f.add('tcp');
    if (b.host.some((h) => h.trim().toLowerCase().startsWith('tls://'))) f.add('tcp.tls');
    for (const i of b.inputs) {
      f.add(`tcp.${i.type}`);
      scanMarkers(i.data, scan);
    }
    for (const h of b.host) scanMarkers(h, scan);
    scanPayloads(b.payloads, b.attack, scan);
    scanOperators(b, scan);
  }
  for (const b of t.ssl) {
    f.add('ssl');
    scanMarkers(b.address, scan);
    scanOperators(b, scan);
  }
  for (const b of t.dns) {
    f.add('dns');
    scanMarkers(b.nameField, scan);
    scanPayloads(b.payloads, b.attack, scan);
    scanOperators(b, scan);
  }

  for (const fn of [...scan.markerNames.functions, ...scan.dslNames.functions]) f.add(`dsl:${canonicalDslFunction(fn)}`);
  // A JS flow may define variables with set("name", ...); they are not user inputs.
  const flowSet = [...(t.flow ?? '').matchAll(/\bset\(\s*["']([\w-]+)["']/g)].map((m) => m[1] as string);
  const defined = new Set([
    ...Object.keys(t.variables), ...extracted, ...flowSet,
    ...[...t.http, ...t.tcp, ...t.dns].flatMap((b) => Object.keys(b.payloads)),
    // A named tcp read (`name: challenge`) is a variable of the later inputs.
    ...t.tcp.flatMap((b) => b.inputs.map((i) => i.name).filter((n): n is string => !!n)),
  ]);
  for (const name of scan.markerNames.variables) {
    if (HELPERS.has(name)) f.add(`helper:${name}`);
    else if (/^randstr_\d+$/.test(name)) f.add('helper:randstr');
    else if (name.startsWith('interactsh-url') || name.startsWith('interactsh_')) f.add('interactsh');
    else if (INDEXED.test(name)) f.add('variables.indexed');
    else if (!defined.has(name) && !RESPONSE_VARIABLES.has(name)) f.add('var-input');
  }
  for (const name of scan.dslNames.variables) {
    if (name.startsWith('interactsh_')) f.add('interactsh');
    else if (INDEXED.test(name) && !defined.has(name)) f.add('variables.indexed');
  }
  return [...f].sort();
}

/**
 * The features a template needs that a supported set lacks. An entry ending in `*` in the
 * supported set covers every feature with that prefix (`dsl:*`, `helper:*`).
 */
export function findBlockingFeatures(features: Iterable<string>, supported: ReadonlySet<string>): string[] {
  const prefixes = [...supported].filter((s) => s.endsWith('*')).map((s) => s.slice(0, -1));
  return [...features].filter((f) => !supported.has(f) && !prefixes.some((p) => f.startsWith(p)));
}

/** Whether the engine can execute a template, and what blocks it otherwise. */
export function checkExecutable(t: Template, supported: ReadonlySet<string>): { executable: boolean; blockers: string[] } {
  const blockers = findBlockingFeatures(analyzeTemplateFeatures(t), supported);
  return { executable: blockers.length === 0, blockers };
}
