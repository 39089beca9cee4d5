/**
 * The template features (templates/features.ts vocabulary) the http executor runs, for the
 * engine's `checkExecutable` (`http.unsafe` included: the engine passes such templates only when
 * the scan opted in). Absent on purpose: `http.race`, `http.pipeline`, `http.global-matchers`, `http.digest-auth`, `flow.js`,
 * `interactsh`, `dast`, `self-contained`. `var-input` is the engine's call: with the user's
 * `-var` values a request runs, without them it is not sent and a note says which variable.
 */
import { IMPLEMENTED_FUNCTIONS } from '../dsl/index.js';

/** Features of http templates the executor implements (`helper:*` and every implemented DSL function). */
export const HTTP_EXECUTOR_FEATURES: readonly string[] = [
  'http.path', 'http.raw', 'http.raw-annotations', 'http.redirects', 'http.multiple-blocks',
  'http.disable-path-automerge', 'http.iterate-all', 'http.cookie-reuse', 'http.req-condition', 'http.unsafe',
  'helper:*', 'part.header-name', 'part.variable',
  'matcher.word', 'matcher.status', 'matcher.regex', 'matcher.binary', 'matcher.xpath', 'matcher.size', 'matcher.dsl',
  'matcher.negative', 'matcher.case-insensitive', 'matcher.internal', 'matcher.hex-encoding', 'matcher.match-all',
  'extractor.regex', 'extractor.kval', 'extractor.json', 'extractor.xpath', 'extractor.dsl', 'extractor.internal',
  'variables', 'variables.indexed', 'flow.simple',
  'payloads', 'attack.batteringram', 'attack.pitchfork', 'attack.clusterbomb', 'payloads.wordlist',
  'dsl', ...IMPLEMENTED_FUNCTIONS.map((name) => `dsl:${name}`),
];
