/**
 * The template features (templates/features.ts vocabulary) the tcp, ssl and dns executors run, for
 * the engine's `checkExecutable`. Absent on purpose: `interactsh` (no OOB server), `flow.js`,
 * `self-contained`. `var-input` is the engine's call, as for http: without the user's value the
 * request is not sent and a note says which variable.
 */
import { IMPLEMENTED_FUNCTIONS } from '../dsl/index.js';

/** Features of tcp, ssl and dns templates the network executors implement. */
export const NETWORK_EXECUTOR_FEATURES: readonly string[] = [
  'tcp', 'tcp.text', 'tcp.hex', 'tcp.tls', 'ssl', 'dns',
  'helper:*',
  'matcher.word', 'matcher.regex', 'matcher.binary', 'matcher.dsl', 'matcher.size', 'matcher.status', 'matcher.xpath',
  'matcher.negative', 'matcher.case-insensitive', 'matcher.internal', 'matcher.hex-encoding', 'matcher.match-all',
  'extractor.regex', 'extractor.kval', 'extractor.json', 'extractor.xpath', 'extractor.dsl', 'extractor.internal',
  'variables', 'payloads', 'attack.batteringram', 'attack.pitchfork', 'attack.clusterbomb', 'payloads.wordlist',
  'dsl', ...IMPLEMENTED_FUNCTIONS.map((name) => `dsl:${name}`),
];
