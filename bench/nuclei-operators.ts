/**
 * Compiles the matchers and extractors of every template in ../shared/third_party/nuclei-templates
 * and checks every distinct json extractor query with jq: what share the match module accepts.
 * Run: npx tsc -p . && node dist/bench/nuclei-operators.js
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { compileExtractor, compileMatcher, loadJsonQuery, type ExtractorSpec, type MatcherSpec } from '../src/engines/nuclei/match/index.js';
import { SHARED_DIR } from '../test/helpers/shared.js';

const ROOT = path.join(SHARED_DIR, 'third_party', 'nuclei-templates');

function* walk(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.name.endsWith('.yaml')) yield p;
  }
}

const json = await loadJsonQuery();
let files = 0;
let matchers = 0;
let extractors = 0;
const failures: string[] = [];
const queries = new Map<string, number>();
for (const file of walk(ROOT)) {
  files++;
  const doc = parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown> | null;
  if (!doc) continue;
  for (const key of ['http', 'tcp', 'network', 'dns', 'ssl', 'headless']) {
    const blocks = doc[key];
    if (!Array.isArray(blocks)) continue;
    for (const b of blocks as Array<{ matchers?: MatcherSpec[]; extractors?: ExtractorSpec[] }>) {
      for (const m of b.matchers ?? []) {
        matchers++;
        try {
          compileMatcher(m);
        } catch (error) {
          failures.push(`${path.relative(ROOT, file)} matcher: ${(error as Error).message}`);
        }
      }
      for (const e of b.extractors ?? []) {
        extractors++;
        try {
          compileExtractor(e);
        } catch (error) {
          failures.push(`${path.relative(ROOT, file)} extractor: ${(error as Error).message}`);
        }
        for (const q of e.json ?? []) queries.set(q, (queries.get(q) ?? 0) + 1);
      }
    }
  }
}
const badQueries: string[] = [];
for (const q of queries.keys()) {
  // Any input shows a syntax or unknown-function error; run-time errors on null are fine.
  const out = json.run(q, null);
  if (out instanceof Error && /compile error|syntax error|not defined/i.test(out.message)) badQueries.push(q);
}
const totalQueries = [...queries.values()].reduce((a, b) => a + b, 0);
const badUses = badQueries.reduce((a, q) => a + (queries.get(q) ?? 0), 0);
console.log(`templates ${files}, matchers ${matchers}, extractors ${extractors}, refused ${failures.length}`);
for (const f of failures) console.log(`  refused: ${f}`);
console.log(`json queries: ${queries.size} distinct (${totalQueries} uses), jq compiles ${queries.size - badQueries.length} distinct (${totalQueries - badUses} uses)`);
for (const q of badQueries) console.log(`  jq refuses: ${q}`);
