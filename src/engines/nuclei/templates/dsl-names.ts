/**
 * Static reading of nuclei DSL: which functions and variables an expression names, and which
 * `{{...}}` markers a string holds. No evaluation happens here.
 */

/**
 * The functions of projectdiscovery/dsl (commit a85ef47a per the reference; 93 names). The DSL also
 * registers each name without its underscores (`tolower` for `to_lower`); `canonicalDslFunction`
 * maps those aliases back.
 */
export const DSL_FUNCTIONS: readonly string[] = [
  'index', 'len', 'to_upper', 'to_lower', 'sort', 'zip', 'uniq', 'repeat', 'replace', 'replace_regex', 'trim',
  'trim_left', 'trim_right', 'trim_space', 'trim_prefix', 'trim_suffix', 'reverse', 'base64', 'gzip', 'gzip_decode',
  'zlib', 'zlib_decode', 'deflate', 'inflate', 'date_time', 'base64_py', 'base64_decode', 'url_encode', 'url_decode',
  'hex_encode', 'hex_decode', 'hmac', 'html_escape', 'html_unescape', 'md5', 'sha512', 'sha256', 'sha1', 'mmh3',
  'contains', 'contains_all', 'contains_any', 'starts_with', 'line_starts_with', 'ends_with', 'line_ends_with',
  'concat', 'split', 'join', 'regex', 'regex_all', 'regex_any', 'equals_any', 'remove_bad_chars', 'rand_char',
  'rand_base', 'rand_text_alphanumeric', 'rand_text_alpha', 'rand_text_numeric', 'rand_int', 'rand_ip',
  'generate_java_gadget', 'generate_dotnet_gadget', 'unix_time', 'to_unix_time', 'wait_for', 'compare_versions',
  'padding', 'print_debug', 'to_number', 'to_string', 'to_bool', 'dec_to_hex', 'hex_to_dec', 'oct_to_dec',
  'bin_to_dec', 'substr', 'aes_cbc', 'aes_gcm', 'generate_jwt', 'json_minify', 'json_prettify', 'ip_format',
  'llm_prompt', 'unpack', 'xor', 'public_ip', 'jarm', 'count', 'to_title', 'cookie_unsign', 'gzip_mtime', 'rsa_encrypt',
];

const BY_ALIAS = new Map(DSL_FUNCTIONS.map((name) => [name.replaceAll('_', ''), name]));

/** The canonical name of a DSL function (`tolower` -> `to_lower`); unknown names are returned lower-cased. */
export function canonicalDslFunction(name: string): string {
  const lower = name.toLowerCase();
  return BY_ALIAS.get(lower.replaceAll('_', '')) ?? lower;
}

/** What an expression names: called functions (canonical) and bare variables. */
export interface ExpressionNames {
  functions: Set<string>;
  variables: Set<string>;
}

/**
 * Reads function and variable names out of a govaluate-style expression. String literals are
 * skipped (quotes with backslash escapes); an identifier followed by `(` is a function call;
 * `true`/`false`/`nil` are literals; `[name]` (govaluate's escaped parameter) is a variable.
 */
export function readExpressionNames(expression: string, into: ExpressionNames = { functions: new Set(), variables: new Set() }): ExpressionNames {
  const s = expression;
  let i = 0;
  while (i < s.length) {
    const c = s[i] as string;
    if (c === '"' || c === "'" || c === '`') {
      i++;
      while (i < s.length && s[i] !== c) i += s[i] === '\\' ? 2 : 1;
      i++;
    } else if (c === '[') {
      const end = s.indexOf(']', i);
      if (end < 0) break;
      const name = s.slice(i + 1, end).trim();
      if (/^[A-Za-z_][\w.-]*$/.test(name)) into.variables.add(name);
      i = end + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < s.length && /[\w.]/.test(s[j] as string)) j++;
      const word = s.slice(i, j);
      let k = j;
      while (k < s.length && /\s/.test(s[k] as string)) k++;
      if (s[k] === '(') into.functions.add(canonicalDslFunction(word));
      else if (!/^(true|false|nil|null)$/i.test(word)) into.variables.add(word);
      i = j;
    } else if (/[0-9]/.test(c)) {
      // A number, including hex (0x1f) and exponents: never a name.
      let j = i + 1;
      while (j < s.length && /[\w.]/.test(s[j] as string)) j++;
      i = j;
    } else i++;
  }
  return into;
}

/** The inner texts of the `{{...}}` markers of a string, outermost first (nested markers are also returned). */
export function readMarkers(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (;;) {
    const start = text.indexOf('{{', from);
    if (start < 0) return out;
    // Match nested braces so `{{base64('{{user}}')}}` is one marker whose inner marker is read too.
    let depth = 0;
    let j = start;
    let end = -1;
    while (j < text.length - 1) {
      if (text[j] === '{' && text[j + 1] === '{') { depth++; j += 2; continue; }
      if (text[j] === '}' && text[j + 1] === '}') {
        depth--;
        j += 2;
        if (depth === 0) { end = j; break; }
        continue;
      }
      j++;
    }
    if (end < 0) return out;
    const inner = text.slice(start + 2, end - 2);
    out.push(inner);
    if (inner.includes('{{')) out.push(...readMarkers(inner));
    from = end;
  }
}

/** A marker that is a plain name (`{{BaseURL}}`, `{{interactsh-url}}`) rather than an expression. */
export function isPlainMarker(inner: string): boolean {
  return /^\s*[A-Za-z_][\w.-]*\s*$/.test(inner);
}
