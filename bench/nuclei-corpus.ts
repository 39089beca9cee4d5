/**
 * bench/nuclei-corpus: loads the whole shared nuclei template corpus and prints what the template
 * module sees: files, parsed, failures, the default-set size, and for each coverage level L1..L10
 * of ../shared/reference/nuclei.md section 7 the executable count and share (default set, and all
 * templates with an http/tcp/ssl/dns section), then the top blockers at L10, load time and peak RSS.
 *
 *   npm run bench:nuclei-corpus
 *   npm run bench:nuclei-corpus -- --dir /path/to/nuclei-templates
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { analyzeTemplateFeatures, findBlockingFeatures } from '../src/engines/nuclei/templates/features.js';
import { summarizeCoverage } from '../src/engines/nuclei/templates/coverage.js';
import { levelFeatureSets } from '../src/engines/nuclei/templates/levels.js';
import { loadTemplates } from '../src/engines/nuclei/templates/load-templates.js';
import { isInDefaultSet, NETWORK_PROTOCOLS } from '../src/engines/nuclei/templates/safety.js';
import { SHARED_DIR } from '../test/helpers/shared.js';

const { values } = parseArgs({ options: { dir: { type: 'string', default: path.join(SHARED_DIR, 'third_party', 'nuclei-templates') } } });
const directory = values.dir as string;

/** The reference's figures (default set, and all templates with an http/tcp/ssl/dns section). */
const REFERENCE: Record<string, [number, number]> = {
  L1: [3300, 30.5], L2: [4447, 41.1], L3: [5634, 52.0], L4: [6363, 58.7], L5: [6630, 61.2],
  L6: [7968, 73.6], L7: [8224, 75.9], L8: [8559, 79.0], L9: [9021, 83.3], L10: [9509, 96.5],
};
const REFERENCE_DEFAULT_SET = 9624;

const started = performance.now();
const loaded = await loadTemplates(directory);
const loadMs = performance.now() - started;

const analysed = loaded.templates.map((t) => ({ t, features: analyzeTemplateFeatures(t), inDefault: isInDefaultSet(t) }));
const network = analysed.filter((a) => a.t.protocols.some((p) => NETWORK_PROTOCOLS.includes(p)));
const defaults = analysed.filter((a) => a.inDefault);
const pct = (n: number, d: number): string => `${d === 0 ? '0.0' : ((100 * n) / d).toFixed(1)}%`;

console.log(`corpus:      ${directory}`);
console.log(`files:       ${loaded.templates.length + loaded.failures.length}`);
console.log(`parsed:      ${loaded.templates.length}`);
console.log(`failures:    ${loaded.failures.length}`);
for (const f of loaded.failures.slice(0, 10)) console.log(`  ${f.path}: ${f.reason}`);
console.log(`with http/tcp/ssl/dns: ${network.length}`);
console.log(`default set: ${defaults.length} (reference ${REFERENCE_DEFAULT_SET})`);
console.log('');
console.log('level  default-set executable        all (http/tcp/ssl/dns)   reference default / all');
for (const { level, supported } of levelFeatureSets()) {
  const d = defaults.filter((a) => findBlockingFeatures(a.features, supported).length === 0).length;
  const all = network.filter((a) => findBlockingFeatures(a.features, supported).length === 0).length;
  const [refCount, refAll] = REFERENCE[level] ?? [0, 0];
  console.log(`${level.padEnd(5)}  ${String(d).padStart(5)} ${pct(d, defaults.length).padStart(6)}            ${String(all).padStart(5)} ${pct(all, network.length).padStart(6)}        ${refCount} ${pct(refCount, REFERENCE_DEFAULT_SET)} / ${refAll}%`);
}

const top = levelFeatureSets().at(-1)?.supported ?? new Set<string>();
console.log('');
console.log('blockers at L10 (default set, templates):');
for (const { feature, templates } of summarizeCoverage(loaded.templates, top).blockers.slice(0, 15)) console.log(`  ${feature} ${templates}`);

console.log('');
console.log(`load time:   ${(loadMs / 1000).toFixed(2)} s (${loaded.templates.length + loaded.failures.length} files)`);
// maxRSS is the kernel's high-water mark (KiB), so a peak during the CPU-bound parse is not missed.
console.log(`peak RSS:    ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
