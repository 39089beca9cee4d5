/**
 * Parses one nuclei template from YAML 1.2 text into the typed model, leniently: a wrong-typed
 * optional field is dropped or coerced (a string where a list is expected becomes a one-element
 * list), and only a document that is not a mapping, or lacks `id` or `info`, is a failure. Never throws.
 */
import { parse as parseYaml } from 'yaml';
import type {
  AttackType, DnsRequest, Extractor, HttpRequest, Matcher, OperatorsBlock, PayloadSource, SslRequest, TcpInput,
  TcpRequest, Template, TemplateClassification, TemplateFailure, TemplateInfo, TemplateSeverity,
} from './template.types.js';

type Obj = Record<string, unknown>;

/** Top-level keys that are protocol sections, with their canonical names (legacy aliases map). */
const PROTOCOL_KEYS: Record<string, string> = {
  http: 'http', requests: 'http', tcp: 'tcp', network: 'tcp', dns: 'dns', ssl: 'ssl', headless: 'headless',
  code: 'code', javascript: 'javascript', file: 'file', websocket: 'websocket', whois: 'whois', workflows: 'workflows',
};

const SEVERITIES = new Set(['info', 'low', 'medium', 'high', 'critical']);

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** A string or list of scalars as a list of strings; `split` also splits strings on commas (tags). */
function strList(v: unknown, split = false): string[] {
  if (Array.isArray(v)) return v.map(str).filter((s): s is string => s !== undefined);
  const s = str(v);
  if (s === undefined) return [];
  return split ? s.split(',').map((t) => t.trim()).filter((t) => t !== '') : [s];
}

function numList(v: unknown): number[] {
  return (Array.isArray(v) ? v : [v]).map((x) => Number(x)).filter((n) => Number.isFinite(n));
}

function num(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

function bool(v: unknown): boolean {
  return v === true || v === 'true';
}

function objList(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObj) : [];
}

function condition(v: unknown): 'and' | 'or' {
  return str(v)?.toLowerCase() === 'and' ? 'and' : 'or';
}

function parseMatcher(m: Obj): Matcher {
  return {
    type: str(m.type)?.toLowerCase() ?? '',
    name: str(m.name),
    part: str(m.part),
    condition: condition(m.condition),
    negative: bool(m.negative),
    internal: bool(m.internal),
    caseInsensitive: bool(m['case-insensitive']),
    matchAll: bool(m['match-all']),
    encoding: str(m.encoding),
    words: strList(m.words),
    regex: strList(m.regex),
    binary: strList(m.binary),
    dsl: strList(m.dsl),
    xpath: strList(m.xpath),
    status: numList(m.status ?? []),
    size: numList(m.size ?? []),
  };
}

function parseExtractor(e: Obj): Extractor {
  return {
    type: str(e.type)?.toLowerCase() ?? '',
    name: str(e.name),
    part: str(e.part),
    internal: bool(e.internal),
    caseInsensitive: bool(e['case-insensitive']),
    group: num(e.group),
    attribute: str(e.attribute),
    regex: strList(e.regex),
    kval: strList(e.kval),
    json: strList(e.json),
    xpath: strList(e.xpath),
    dsl: strList(e.dsl),
  };
}

function parseOperators(b: Obj): OperatorsBlock {
  return {
    id: str(b.id),
    name: str(b.name),
    matchers: objList(b.matchers).map(parseMatcher),
    extractors: objList(b.extractors).map(parseExtractor),
    matchersCondition: condition(b['matchers-condition']),
  };
}

/** `payloads`: a name maps to a list of values or to a wordlist path (any other string). */
function parsePayloads(v: unknown): Record<string, PayloadSource> {
  const out: Record<string, PayloadSource> = {};
  if (!isObj(v)) return out;
  for (const [name, value] of Object.entries(v)) {
    if (Array.isArray(value)) out[name] = { kind: 'values', values: strList(value) };
    else {
      const s = str(value);
      if (s !== undefined) out[name] = { kind: 'file', path: s };
    }
  }
  return out;
}

function attackType(v: unknown, payloads: Record<string, PayloadSource>): AttackType | undefined {
  const s = str(v)?.toLowerCase();
  if (s === 'batteringram' || s === 'pitchfork' || s === 'clusterbomb') return s;
  // Nuclei's default: batteringram for one payload set, clusterbomb for several.
  const sets = Object.keys(payloads).length;
  if (sets === 0) return undefined;
  return sets === 1 ? 'batteringram' : 'clusterbomb';
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObj(v)) for (const [k, x] of Object.entries(v)) { const s = str(x); if (s !== undefined) out[k] = s; }
  return out;
}

function parseHttp(b: Obj): HttpRequest {
  const payloads = parsePayloads(b.payloads);
  return {
    ...parseOperators(b),
    method: str(b.method)?.toUpperCase() ?? 'GET',
    path: strList(b.path),
    raw: strList(b.raw),
    headers: stringMap(b.headers),
    body: str(b.body),
    payloads,
    attack: attackType(b.attack, payloads),
    redirects: bool(b.redirects) || bool(b['host-redirects']),
    hostRedirects: bool(b['host-redirects']),
    maxRedirects: num(b['max-redirects']),
    stopAtFirstMatch: bool(b['stop-at-first-match']),
    unsafe: bool(b.unsafe),
    cookieReuse: bool(b['cookie-reuse']),
    disablePathAutomerge: bool(b['disable-path-automerge']),
    iterateAll: bool(b['iterate-all']),
    reqCondition: bool(b['req-condition']),
    race: bool(b.race),
    pipeline: bool(b.pipeline),
    globalMatchers: bool(b['global-matchers']),
    selfContained: bool(b['self-contained']),
    maxSize: num(b['max-size']),
    fuzzing: b.fuzzing !== undefined && b.fuzzing !== null,
    digestAuth: b['digest-username'] !== undefined,
  };
}

function parseTcp(b: Obj): TcpRequest {
  const payloads = parsePayloads(b.payloads);
  const inputs: TcpInput[] = objList(b.inputs).map((i) => ({
    data: str(i.data) ?? '',
    type: str(i.type)?.toLowerCase() === 'hex' ? 'hex' : 'text',
    read: num(i.read),
    name: str(i.name),
  }));
  return {
    ...parseOperators(b),
    host: strList(b.host),
    port: str(b.port),
    inputs,
    readSize: num(b['read-size']),
    readAll: bool(b['read-all']),
    payloads,
    attack: attackType(b.attack, payloads),
  };
}

function parseSsl(b: Obj): SslRequest {
  return {
    ...parseOperators(b),
    address: str(b.address) ?? '{{Host}}:{{Port}}',
    minVersion: str(b.min_version),
    maxVersion: str(b.max_version),
    cipherSuites: strList(b.cipher_suites),
    scanMode: str(b.scan_mode),
    tlsVersionEnum: bool(b.tls_version_enum),
    tlsCipherEnum: bool(b.tls_cipher_enum),
  };
}

function parseDns(b: Obj): DnsRequest {
  const payloads = parsePayloads(b.payloads);
  return {
    ...parseOperators(b),
    payloads,
    attack: attackType(b.attack, payloads),
    nameField: str(b.name) ?? '{{FQDN}}',
    recordType: str(b.type)?.toUpperCase() ?? 'A',
    recordClass: str(b.class)?.toUpperCase() ?? 'INET',
    recursion: b.recursion === undefined ? true : bool(b.recursion),
    retries: num(b.retries),
    trace: bool(b.trace),
  };
}

function parseClassification(v: unknown): TemplateClassification {
  const c = isObj(v) ? v : {};
  return {
    cveId: strList(c['cve-id'], true),
    cweId: strList(c['cwe-id'], true),
    cvssMetrics: str(c['cvss-metrics']),
    cvssScore: num(c['cvss-score']),
  };
}

function parseInfo(i: Obj): TemplateInfo {
  const severity = str(i.severity)?.trim().toLowerCase() ?? '';
  return {
    name: str(i.name) ?? '',
    severity: (SEVERITIES.has(severity) ? severity : 'unknown') as TemplateSeverity,
    description: str(i.description),
    remediation: str(i.remediation),
    reference: strList(i.reference),
    tags: strList(i.tags, true).map((t) => t.toLowerCase()),
    classification: parseClassification(i.classification),
  };
}

/** Builds the model from an already parsed YAML document. */
export function templateFromDocument(doc: unknown, path: string): Template | TemplateFailure {
  if (!isObj(doc)) return { path, reason: 'the document is not a YAML mapping' };
  const id = str(doc.id)?.trim();
  if (!id) return { path, reason: 'missing or empty `id`' };
  if (!isObj(doc.info)) return { path, reason: 'missing `info` mapping' };
  const protocols = new Set<string>();
  for (const key of Object.keys(doc)) {
    const canonical = PROTOCOL_KEYS[key];
    if (canonical !== undefined && doc[key] !== null && doc[key] !== undefined) protocols.add(canonical);
  }
  const blocks = (...keys: string[]): Obj[] => keys.flatMap((k) => objList(doc[k]));
  return {
    id,
    path,
    info: parseInfo(doc.info),
    variables: stringMap(doc.variables),
    flow: str(doc.flow),
    selfContained: bool(doc['self-contained']),
    stopAtFirstMatch: bool(doc['stop-at-first-match']),
    http: blocks('http', 'requests').map(parseHttp),
    tcp: blocks('tcp', 'network').map(parseTcp),
    ssl: blocks('ssl').map(parseSsl),
    dns: blocks('dns').map(parseDns),
    protocols: [...protocols],
  };
}

/**
 * Plain scalars that look like numbers but would lose their text as one (`data: 00000000`, a hex
 * input; 16+ digits; `1e10`) stay strings: Go decodes them into string fields as written, and
 * the fields that want numbers (`read-size`, `cvss-score`) accept numeric strings.
 */
const KEEP_TEXT_TAGS = [
  { identify: () => false, default: true, tag: 'tag:yaml.org,2002:int', test: /^[-+]?(?:0[0-9]+|[0-9]{16,})$/, resolve: (text: string) => text },
  { identify: () => false, default: true, tag: 'tag:yaml.org,2002:float', test: /^[-+]?[0-9]+[eE][-+]?[0-9]+$/, resolve: (text: string) => text },
];

/** Parses YAML text into a template, or a failure naming the file and the reason. */
export function parseTemplate(text: string, path: string): Template | TemplateFailure {
  let doc: unknown;
  try {
    // Lenient: a duplicated key does not fail the file (the later one wins); aliases are capped.
    doc = parseYaml(text, { version: '1.2', uniqueKeys: false, maxAliasCount: 100, customTags: (tags) => [...KEEP_TEXT_TAGS, ...tags] });
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return { path, reason: `YAML error: ${message}` };
  }
  return templateFromDocument(doc, path);
}

/** True when a parse result is a failure. */
export function isTemplateFailure(r: Template | TemplateFailure): r is TemplateFailure {
  return 'reason' in r;
}
