/**
 * The typed model of a nuclei template: the parts the engine runs. Field names follow the YAML keys
 * in camelCase; list-or-string YAML fields are always arrays here. Sections the model does not
 * type (code, headless, javascript, file, workflows...) are only listed in `protocols`: the engine
 * never runs them, and dropping the parsed YAML keeps a loaded corpus small.
 *
 * Glossary:
 * - block: one entry of a protocol list (`http:`, `tcp:`, `dns:`, `ssl:`); a template may hold several.
 * - marker: a `{{...}}` placeholder in a request, replaced by a variable or a DSL expression's value.
 * - part: the piece of a response a matcher or extractor reads (`body`, `header`, `body_2`...).
 */

/** Severity as written by template authors (lower-cased); anything else is `unknown`. */
export type TemplateSeverity = 'info' | 'low' | 'medium' | 'high' | 'critical' | 'unknown';

/** `info.classification`. */
export interface TemplateClassification {
  cveId: string[];
  cweId: string[];
  cvssMetrics?: string;
  cvssScore?: number;
}

/** `info`: what a finding reports. */
export interface TemplateInfo {
  name: string;
  severity: TemplateSeverity;
  description?: string;
  remediation?: string;
  reference: string[];
  tags: string[];
  classification: TemplateClassification;
}

/** A matcher of any protocol. */
export interface Matcher {
  type: string;
  name?: string;
  part?: string;
  condition: 'and' | 'or';
  negative: boolean;
  internal: boolean;
  caseInsensitive: boolean;
  matchAll: boolean;
  encoding?: string;
  words: string[];
  regex: string[];
  binary: string[];
  dsl: string[];
  xpath: string[];
  status: number[];
  size: number[];
}

/** An extractor of any protocol. */
export interface Extractor {
  type: string;
  name?: string;
  part?: string;
  internal: boolean;
  caseInsensitive: boolean;
  group?: number;
  attribute?: string;
  regex: string[];
  kval: string[];
  json: string[];
  xpath: string[];
  dsl: string[];
}

/** What every protocol block shares. */
export interface OperatorsBlock {
  id?: string;
  name?: string;
  matchers: Matcher[];
  extractors: Extractor[];
  matchersCondition: 'and' | 'or';
}

/** Payload attack types nuclei knows. */
export type AttackType = 'batteringram' | 'pitchfork' | 'clusterbomb';

/** A payload set: inline values, or a wordlist file path (relative to the templates directory). */
export type PayloadSource = { kind: 'values'; values: string[] } | { kind: 'file'; path: string };

/** One `http:` (or legacy `requests:`) block. */
export interface HttpRequest extends OperatorsBlock {
  method: string;
  path: string[];
  raw: string[];
  headers: Record<string, string>;
  body?: string;
  payloads: Record<string, PayloadSource>;
  attack?: AttackType;
  /** `redirects` or `host-redirects`. */
  redirects: boolean;
  hostRedirects: boolean;
  maxRedirects?: number;
  stopAtFirstMatch: boolean;
  unsafe: boolean;
  cookieReuse: boolean;
  disablePathAutomerge: boolean;
  iterateAll: boolean;
  reqCondition: boolean;
  race: boolean;
  pipeline: boolean;
  globalMatchers: boolean;
  selfContained: boolean;
  maxSize?: number;
  /** DAST: the block has a `fuzzing:` section. */
  fuzzing: boolean;
  /** Digest authentication (`digest-username`). */
  digestAuth: boolean;
}

/** One input of a `tcp:` block. */
export interface TcpInput {
  data: string;
  type: 'text' | 'hex';
  read?: number;
  name?: string;
}

/** One `tcp:` (or `network:`) block. */
export interface TcpRequest extends OperatorsBlock {
  host: string[];
  /** `port`: one port or a comma-separated list, as written (the target's port when absent). */
  port?: string;
  inputs: TcpInput[];
  readSize?: number;
  readAll: boolean;
  payloads: Record<string, PayloadSource>;
  attack?: AttackType;
}

/** One `ssl:` block. */
export interface SslRequest extends OperatorsBlock {
  address: string;
  minVersion?: string;
  maxVersion?: string;
  cipherSuites: string[];
  scanMode?: string;
  tlsVersionEnum: boolean;
  tlsCipherEnum: boolean;
}

/** One `dns:` block. */
export interface DnsRequest extends OperatorsBlock {
  nameField: string;
  recordType: string;
  recordClass: string;
  recursion: boolean;
  retries?: number;
  trace: boolean;
  /** `payloads` (one template: DKIM selectors in the queried name) and their attack type. */
  payloads: Record<string, PayloadSource>;
  attack?: AttackType;
}

/** A parsed template. */
export interface Template {
  id: string;
  /** File path relative to the loaded directory, with `/` separators. */
  path: string;
  info: TemplateInfo;
  /** Top-level `variables`, in file order. */
  variables: Record<string, string>;
  flow?: string;
  selfContained: boolean;
  stopAtFirstMatch: boolean;
  http: HttpRequest[];
  tcp: TcpRequest[];
  ssl: SslRequest[];
  dns: DnsRequest[];
  /** Protocol sections present in the file (canonical names: `http`, `tcp`, `code`...), including the ones the model does not type. */
  protocols: string[];
}

/** A file that did not give a template, and why. */
export interface TemplateFailure {
  path: string;
  reason: string;
}
