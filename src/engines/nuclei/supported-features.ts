/**
 * The one feature set the built-in nuclei engine supports: what `checkExecutable` /
 * `findBlockingFeatures` (templates/features.ts) compare a template's needs with. The engine uses it
 * to skip templates it cannot run, and `rampart templates check` to print the executable share, so
 * both say the same thing. For now it is level L8 of templates/levels.ts (path and raw requests,
 * DSL, payloads, multi-step state, tcp, ssl, dns); widen it here when the executors do more.
 */
import { levelFeatureSets } from './templates/levels.js';

const L8 = levelFeatureSets().find((l) => l.level === 'L8');
if (!L8) throw new Error('templates/levels.ts lost its level L8.');

/** Feature names (and `prefix*` wildcards) the built-in engine executes. */
export const SUPPORTED_FEATURES: ReadonlySet<string> = L8.supported;
