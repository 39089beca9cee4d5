/**
 * Coverage summary of a loaded template set against a supported feature set: what
 * `rampart templates check` will print (templates, default set, executable share, blockers by count).
 */
import { analyzeTemplateFeatures, findBlockingFeatures } from './features.js';
import { isInDefaultSet } from './safety.js';
import type { Template } from './template.types.js';

/** The summary over the default set. */
export interface CoverageSummary {
  templates: number;
  defaultSet: number;
  executable: number;
  /** executable / defaultSet, 0 when the default set is empty. */
  share: number;
  /** Each blocking feature with the number of default-set templates it blocks, most first (ties by name). */
  blockers: Array<{ feature: string; templates: number }>;
}

/** Summarises which default-set templates an engine with the supported features can execute. */
export function summarizeCoverage(templates: readonly Template[], supported: ReadonlySet<string>): CoverageSummary {
  let defaultSet = 0;
  let executable = 0;
  const blockers = new Map<string, number>();
  for (const t of templates) {
    if (!isInDefaultSet(t)) continue;
    defaultSet++;
    const blocking = findBlockingFeatures(analyzeTemplateFeatures(t), supported);
    if (blocking.length === 0) executable++;
    for (const b of blocking) blockers.set(b, (blockers.get(b) ?? 0) + 1);
  }
  return {
    templates: templates.length,
    defaultSet,
    executable,
    share: defaultSet === 0 ? 0 : executable / defaultSet,
    blockers: [...blockers]
      .map(([feature, n]) => ({ feature, templates: n }))
      .sort((a, b) => b.templates - a.templates || (a.feature < b.feature ? -1 : 1)),
  };
}
