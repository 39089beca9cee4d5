/**
 * The coverage levels L1..L10 of ../shared/reference/nuclei.md section 7, as cumulative feature
 * sets for `findBlockingFeatures`. They measure how far an engine gets; the engine itself will
 * declare its own supported set.
 */

/** The 12 DSL functions of level L3 (canonical names). */
export const L3_DSL_FUNCTIONS: readonly string[] = [
  'contains', 'contains_all', 'to_lower', 'compare_versions', 'contains_any', 'rand_base', 'concat',
  'rand_text_alpha', 'md5', 'base64', 'regex', 'rand_int',
];

/** What each level adds to the previous one. */
export const LEVEL_ADDITIONS: ReadonlyArray<{ level: string; description: string; features: readonly string[] }> = [
  {
    level: 'L1', description: 'path requests + helpers + word/status/regex matchers, and/or, negative, case-insensitive',
    features: ['http.path', 'helper:*', 'matcher.word', 'matcher.status', 'matcher.regex', 'matcher.negative', 'matcher.case-insensitive'],
  },
  {
    level: 'L2', description: '+ redirects, header-name parts, regex/kval/json/xpath extractors, binary/xpath/size matchers, multiple blocks, internal matchers',
    features: [
      'http.redirects', 'part.header-name', 'extractor.regex', 'extractor.kval', 'extractor.json', 'extractor.xpath',
      'matcher.binary', 'matcher.xpath', 'matcher.size', 'matcher.hex-encoding', 'matcher.match-all', 'http.multiple-blocks', 'matcher.internal',
    ],
  },
  { level: 'L3', description: '+ DSL engine with 12 functions', features: ['dsl', 'matcher.dsl', 'extractor.dsl', ...L3_DSL_FUNCTIONS.map((f) => `dsl:${f}`)] },
  { level: 'L4', description: '+ raw requests (+ annotations)', features: ['http.raw', 'http.raw-annotations'] },
  { level: 'L5', description: '+ payloads (3 attack types, wordlists)', features: ['payloads', 'attack.batteringram', 'attack.pitchfork', 'attack.clusterbomb', 'payloads.wordlist'] },
  {
    level: 'L6', description: '+ indexed vars, internal extractors, template variables, simple flow',
    features: ['variables.indexed', 'extractor.internal', 'variables', 'flow.simple', 'part.variable'],
  },
  { level: 'L7', description: '+ every other DSL function', features: ['dsl:*'] },
  { level: 'L8', description: '+ tcp (text/hex inputs, tls), ssl, dns', features: ['tcp', 'tcp.text', 'tcp.hex', 'tcp.tls', 'ssl', 'dns'] },
  { level: 'L9', description: '+ interactsh', features: ['interactsh'] },
  { level: 'L10', description: '+ -var inputs (+ self-contained)', features: ['var-input', 'self-contained'] },
];

/** The cumulative supported set of each level, in order. */
export function levelFeatureSets(): Array<{ level: string; description: string; supported: ReadonlySet<string> }> {
  const acc = new Set<string>();
  return LEVEL_ADDITIONS.map(({ level, description, features }) => {
    for (const f of features) acc.add(f);
    return { level, description, supported: new Set(acc) };
  });
}
