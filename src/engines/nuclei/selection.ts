/**
 * Which loaded templates a run executes: the default set (templates/safety.ts), minus what the
 * deployment never runs (code, headless, javascript, file; `unsafe: true` blocks unless it opted
 * in), minus the
 * tags excluded by default, narrowed by the scan's selection options, and finally only the
 * templates every feature of which the executors implement (templates/features.ts).
 *
 * Default exclusions (../shared/reference/nuclei.md section 10): `dos` never runs (it can take a
 * service down); `intrusive`, `fuzz`, `bruteforce` and `default-login` (it can lock accounts) run
 * only when the scan names them in `tags` or names the template in `template_ids`. Templates that
 * send PUT, DELETE or PATCH requests (they may write to or delete from the scanned server, which a
 * scan must leave as it found it) run only when the scan names them in `template_ids`.
 */
import { analyzeTemplateFeatures, findBlockingFeatures } from './templates/features.js';
import { classifyTemplateSafety, sendsWritingRequests } from './templates/safety.js';
import type { Template } from './templates/template.types.js';
import type { AppliedNucleiOptions } from './options.js';

/** Tags that never run. */
export const NEVER_RUN_TAGS: readonly string[] = ['dos'];
/** Tags left out unless the scan names them (or names the template). */
export const DEFAULT_EXCLUDED_TAGS: readonly string[] = ['intrusive', 'fuzz', 'bruteforce', 'default-login'];

/** The protocol family of a template's executor. */
export type ProtocolFamily = 'http' | 'tcp' | 'ssl' | 'dns';

/** The one family a template's blocks belong to; null for none or for several (multi-protocol). */
export function protocolFamilyOf(t: Template): ProtocolFamily | null {
  const families = (['http', 'tcp', 'ssl', 'dns'] as const).filter((family) => t[family].length > 0);
  return families.length === 1 ? families[0]! : null;
}

/** What a selection kept and why the rest was left out, for the run's notes. */
export interface TemplateSelection {
  selected: Template[];
  /** Templates in the default set. */
  defaultSet: number;
  /** Default-set templates the deployment never runs (protocols, unsafe). */
  refused: number;
  /** Left out by the default tag exclusions and the scan's options. */
  filtered: number;
  /** Chosen, but needing a feature the executors lack (or several protocols). */
  notExecutable: number;
  /** The missing features, with how many chosen templates each blocks, most first. */
  blockers: Array<[string, number]>;
}

/** What a selection needs besides the scan's options. */
export interface SelectionSettings {
  /** Run templates with `unsafe: true` blocks (the deployment's RAMPART_NUCLEI_UNSAFE). */
  allowUnsafe: boolean;
  /** The features the executors implement (templates/features.ts vocabulary). */
  supported: ReadonlySet<string>;
  /** The families an executor exists for. */
  families: ReadonlySet<ProtocolFamily>;
}

const featureCache = new WeakMap<Template, string[]>();

/** The features a template needs, analysed once per loaded template (a worker keeps its templates). */
function featuresOf(t: Template): string[] {
  let features = featureCache.get(t);
  if (!features) {
    features = analyzeTemplateFeatures(t);
    featureCache.set(t, features);
  }
  return features;
}

/**
 * Whether `text` matches the glob `pattern` (`*` any run of characters, nothing else special).
 * Greedy two pointers with one backtrack point: O(pattern x text) at worst, never the exponential
 * backtracking a `.*` regex has on many stars (`********!` against a long id froze the worker).
 */
export function globMatches(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.length && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/** A glob of template ids (`*` any run of characters), case-insensitive, as a test. */
function globTest(patterns: readonly string[] | undefined): ((id: string) => boolean) | undefined {
  if (!patterns || patterns.length === 0) return undefined;
  const lowered = patterns.map((p) => p.toLowerCase());
  return (id) => {
    const text = id.toLowerCase();
    return lowered.some((p) => globMatches(p, text));
  };
}

/** Where the policy and the scan's options put one template, before the executors are asked. */
export type SelectionVerdict =
  /** Outside the default set (self-contained, DAST, workflows, no network section). */
  | 'outside'
  /** In the default set, but the deployment never runs it (never-run protocols, unsafe without the opt-in). */
  | 'refused'
  /** Left out by the default tag exclusions or the scan's options. */
  | 'filtered'
  | 'kept';

/**
 * The scan's selection compiled once, judging templates one by one: what `selectTemplates` applies
 * before the feature check, and what the nuclei binary driver turns into exclusions.
 */
export function selectionVerdict(options: AppliedNucleiOptions['selection'], settings: Pick<SelectionSettings, 'allowUnsafe'>): (t: Template) => SelectionVerdict {
  const lower = (list: readonly string[] | undefined) => new Set((list ?? []).map((s) => s.toLowerCase()));
  const wantedTags = lower(options.tags);
  const excludedTags = lower(options.exclude_tags);
  const severities = options.severities ? new Set<string>(options.severities) : undefined;
  const wantedId = globTest(options.template_ids);
  const excludedId = globTest(options.exclude_template_ids);
  return (t) => {
    const verdict = classifyTemplateSafety(t, { allowUnsafe: settings.allowUnsafe });
    if (!verdict.inDefaultSet) return 'outside';
    if (!verdict.allowed) return 'refused';
    const tags = t.info.tags.map((tag) => tag.toLowerCase());
    const named = wantedId?.(t.id) ?? false;
    const keep =
      !tags.some((tag) => NEVER_RUN_TAGS.includes(tag) || excludedTags.has(tag)) &&
      tags.every((tag) => !DEFAULT_EXCLUDED_TAGS.includes(tag) || wantedTags.has(tag) || named) &&
      (wantedTags.size === 0 || tags.some((tag) => wantedTags.has(tag))) &&
      (!wantedId || named) &&
      !(excludedId?.(t.id) ?? false) &&
      (named || !sendsWritingRequests(t)) &&
      (!severities || severities.has(t.info.severity));
    return keep ? 'kept' : 'filtered';
  };
}

/** Selects the templates of a run (see the module comment). */
export function selectTemplates(templates: readonly Template[], options: AppliedNucleiOptions['selection'], settings: SelectionSettings): TemplateSelection {
  const judge = selectionVerdict(options, settings);
  const result: TemplateSelection = { selected: [], defaultSet: 0, refused: 0, filtered: 0, notExecutable: 0, blockers: [] };
  const blockers = new Map<string, number>();
  for (const t of templates) {
    const verdict = judge(t);
    if (verdict === 'outside') continue;
    result.defaultSet += 1;
    if (verdict === 'refused') {
      result.refused += 1;
      continue;
    }
    if (verdict === 'filtered') {
      result.filtered += 1;
      continue;
    }
    const family = protocolFamilyOf(t);
    const missing = findBlockingFeatures(featuresOf(t), settings.supported);
    if (family === null) missing.push('multi-protocol');
    else if (!settings.families.has(family)) missing.push(`executor:${family}`);
    if (missing.length === 0) {
      result.selected.push(t);
      continue;
    }
    result.notExecutable += 1;
    for (const feature of missing) blockers.set(feature, (blockers.get(feature) ?? 0) + 1);
  }
  result.blockers = [...blockers].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return result;
}
