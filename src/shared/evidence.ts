/**
 * What a finding may carry into the store: every text field bounded, evidence capped at
 * EVIDENCE_MAX_BYTES per engine (cut on a UTF-8 boundary, with a visible marker), and secrets a
 * scanned service sent back (credential headers, bearer tokens, JWTs, passwords, AWS access keys,
 * private keys, Rampart's own keys and webhook secrets) masked. Applied in one place,
 * `findings.service.ts` recordFindings, which every source of findings goes through: a scan
 * that catches a session cookie must not turn the findings table, its reports, exports and
 * webhook receivers into a copy of that session.
 */
import type { Finding } from './finding.js';
import { MASK, redactSecrets } from './secret-shapes.js';

/** The most evidence one engine's report of a finding keeps, in UTF-8 bytes (16 KiB). */
export const EVIDENCE_MAX_BYTES = 16 * 1024;

/**
 * The most characters each text field of a finding keeps (a longer value is cut with a marker).
 * Generous for what tools write; a hostile or broken tool cannot make one row megabytes long.
 */
export const FIELD_MAX_CHARS = {
  name: 500,
  description: 16_384,
  solution: 8_192,
  url: 2_048,
  method: 16,
  parameter: 256,
  ruleId: 256,
  service: 128,
  cvssVector: 256,
  /** A CVE or CWE id. */
  id: 64,
  /** Each CVE id and each reference. */
  listItem: 2_048,
} as const;

/** At most this many CVE ids and references are kept per finding. */
export const LIST_MAX_ITEMS = 100;

/** Headers whose values are credentials: the value is masked, the header name kept. */
const CREDENTIAL_HEADER = /^([ \t>]*(?:authorization|proxy-authorization|x-api-key|api-key|x-auth-token)[ \t]*:[ \t]*)(?:(basic|bearer|digest|negotiate|ntlm|token|aws4-hmac-sha256)[ \t]+)?(.+)$/gim;
/** Cookie headers: each cookie's value masked, its name and (Set-Cookie) attributes kept, as findings about cookie flags need them. */
const COOKIE_HEADER = /^([ \t>]*(?:set-cookie|cookie)[ \t]*:[ \t]*)(.*)$/gim;
const BEARER = /\b(bearer)[ \t]+[A-Za-z0-9._~+/=-]{8,}/gi;
/** `password=...`, `api_key=...`, `client_secret=...` in a query, a form or a config line. */
const SECRET_ASSIGNMENT = /\b([\w.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key)[\w.-]*)(\s*[=:]\s*)(?!\[REDACTED\])([^\s&;,"'<>]{1,4096})/gi;
/** `"password": "..."` in JSON (and the same keys in single quotes). */
const SECRET_JSON = /(["'])([\w.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|authorization|cookie)[\w.-]*)\1(\s*:\s*)(["'])(?:\\.|(?!\4)[^\\])*\4/gi;
const AWS_ACCESS_KEY = /\b(?:AKIA|ASIA|AROA|AIDA)[0-9A-Z]{16}\b/g;
const PRIVATE_KEY = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g;

function maskCookies(list: string, setCookie: boolean): string {
  // Set-Cookie: only the first pair is the cookie; the rest are attributes (Path, HttpOnly, ...).
  const pairs = list.split(';');
  return pairs
    .map((pair, i) => {
      if (setCookie && i > 0) return pair;
      const eq = pair.indexOf('=');
      return eq === -1 ? pair : `${pair.slice(0, eq + 1)}${MASK}`;
    })
    .join(';');
}

/** `text` with the secrets a scanned service might have sent back masked (see the module comment). */
export function maskSecrets(text: string): string {
  return redactSecrets(
    text
      .replace(PRIVATE_KEY, (_block, kind: string) => `-----BEGIN ${kind}PRIVATE KEY-----\n${MASK}\n-----END ${kind}PRIVATE KEY-----`)
      .replace(CREDENTIAL_HEADER, (_line, head: string, scheme: string | undefined) => `${head}${scheme ? `${scheme} ` : ''}${MASK}`)
      .replace(COOKIE_HEADER, (_line, head: string, value: string) => `${head}${maskCookies(value, /^[ \t>]*set-cookie/i.test(head))}`)
      .replace(BEARER, (_match, word: string) => `${word} ${MASK}`)
      .replace(SECRET_JSON, (_match, q: string, key: string, colon: string, vq: string) => `${q}${key}${q}${colon}${vq}${MASK}${vq}`)
      .replace(SECRET_ASSIGNMENT, (_match, key: string, op: string) => `${key}${op}${MASK}`)
      .replace(AWS_ACCESS_KEY, MASK),
  );
}

/** PostgreSQL text cannot hold NUL; a tool's binary evidence must not fail the whole batch. */
function storable(text: string): string {
  return text.includes('\u0000') ? text.replace(/\u0000/g, '\uFFFD') : text;
}

/**
 * `text` cut to at most `maxBytes` of UTF-8, on a character boundary, ending with
 * `[… N bytes cut]` when anything was cut (the marker counts within the limit). `alreadyCut`:
 * bytes a caller dropped before, counted in the marker (and forcing one).
 */
export function capBytes(text: string, maxBytes: number, alreadyCut = 0): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes && alreadyCut === 0) return text;
  const total = bytes.length + alreadyCut;
  const marker = (n: number) => `\n[… ${n} bytes cut]`;
  let keep = Math.max(0, Math.min(bytes.length, maxBytes - Buffer.byteLength(marker(total), 'utf8')));
  // Never split a character: back off over UTF-8 continuation bytes.
  while (keep > 0 && keep < bytes.length && (bytes[keep]! & 0xc0) === 0x80) keep -= 1;
  return `${bytes.subarray(0, keep).toString('utf8')}${marker(total - keep)}`;
}

/** `text` cut to at most `maxChars` characters (code points), ending with `…` when cut. */
export function capChars(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const points = Array.from(text);
  return points.length <= maxChars ? text : `${points.slice(0, maxChars - 1).join('')}…`;
}

/** The first `n` UTF-16 units of `text`, never ending on half a surrogate pair. */
function head(text: string, n: number): string {
  if (text.length <= n) return text;
  const code = text.charCodeAt(n - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}

/**
 * Evidence as stored: masked, then capped. Secrets are masked before the cut, so a secret that
 * straddles it is not left half visible; a huge text is first cut to a few times the cap so the
 * masking's work stays bounded (the marker counts those bytes too).
 */
export function capEvidence(text: string, maxBytes = EVIDENCE_MAX_BYTES): string {
  const bounded = head(text, maxBytes * 4);
  const dropped = bounded === text ? 0 : Buffer.byteLength(text, 'utf8') - Buffer.byteLength(bounded, 'utf8');
  return capBytes(maskSecrets(storable(bounded)), maxBytes, dropped);
}

/** A short text field as stored: storable, masked (a URL or a name can carry a token) and bounded. */
export function capText(text: string, maxChars: number): string {
  return capChars(maskSecrets(storable(head(text, maxChars * 4))), maxChars);
}

/**
 * An identifier a tool chose (rule id, CVE, CWE, CVSS vector, method): bounded, never masked,
 * so a rule id that happens to read like `default-password:ftp` stays what it is.
 */
export function capId(text: string, maxChars: number): string {
  return capChars(storable(head(text, maxChars * 4)), maxChars);
}

/** Like capText, for a nullable field. */
export function capOptional(text: string | null | undefined, maxChars: number): string | null {
  return text === null || text === undefined ? null : capText(text, maxChars);
}

/** A list field (CVE ids, references): at most LIST_MAX_ITEMS items, each bounded. */
export function capList(items: readonly string[], maxChars: number = FIELD_MAX_CHARS.listItem, cap = capText): string[] {
  return items.slice(0, LIST_MAX_ITEMS).map((item) => cap(item, maxChars));
}

/**
 * The finding as it may be stored: every text bounded, evidence capped, text a service could
 * have sent masked (identifiers are only bounded). Host names and addresses are left alone (they
 * were validated as targets); the threat and numbers too. The fingerprint is computed from the
 * finding as reported, so bounding never changes a finding's identity.
 */
export function boundFinding(f: Finding): Finding {
  const max = FIELD_MAX_CHARS;
  return {
    ...f,
    service: capOptional(f.service, max.service),
    url: capOptional(f.url, max.url),
    method: f.method === null || f.method === undefined ? null : capId(f.method, max.method),
    parameter: capOptional(f.parameter, max.parameter),
    ruleId: capId(f.ruleId, max.ruleId),
    name: capText(f.name, max.name),
    description: capText(f.description, max.description),
    solution: capText(f.solution, max.solution),
    cvssVector: f.cvssVector === null ? null : capId(f.cvssVector, max.cvssVector),
    cve: capList(f.cve, max.id, capId),
    cwe: f.cwe === null ? null : capId(f.cwe, max.id),
    evidence: capEvidence(f.evidence),
    references: capList(f.references),
  };
}
