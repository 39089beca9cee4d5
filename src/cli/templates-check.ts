/**
 * `rampart templates check`: what a nuclei templates directory holds and how much of it the
 * built-in engine can run. Loads the set with the engine's own loader, then prints the files, the
 * parse failures grouped by reason, the signatures, the default-set size, the executable share
 * under SUPPORTED_FEATURES and the features that block the rest, most first.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SUPPORTED_FEATURES } from '../engines/nuclei/supported-features.js';
import { summarizeCoverage } from '../engines/nuclei/templates/coverage.js';
import { loadTemplates } from '../engines/nuclei/templates/load-templates.js';
import { verifyTemplateSignature, type SignatureVerdict } from '../engines/nuclei/templates/signature.js';
import { readSyncManifest, type SyncManifest } from '../engines/nuclei/templates/sync-manifest.js';

/** Failure reasons shown (the rest are counted in the total). */
const TOP_REASONS = 5;
/** Blocking features shown in text (JSON has them all). */
const TOP_BLOCKERS = 12;

/** What the check found (the `--json` document). */
export interface TemplatesCheck {
  directory: string;
  /** The release `rampart templates sync` installed here, when it did. */
  sync: SyncManifest | null;
  files: number;
  parsed: number;
  failures: { total: number; byReason: Array<{ reason: string; templates: number; example: string }> };
  signatures: Record<SignatureVerdict, number>;
  defaultSet: number;
  executable: number;
  share: number;
  blockers: Array<{ feature: string; templates: number }>;
  seconds: number;
}

/** A failure reason without the parts that differ from file to file (positions, quoted snippets). */
function reasonKey(reason: string): string {
  return (reason.split('\n')[0] ?? reason).replace(/ at line \d+, column \d+.*$/, '').replace(/:\s*$/, '').slice(0, 120);
}

/** Checks a templates directory; throws an Error a person can act on when it is missing. */
export async function checkTemplates(directory: string): Promise<TemplatesCheck> {
  const started = performance.now();
  const root = path.resolve(directory);
  const info = await stat(root).catch(() => null);
  if (!info?.isDirectory()) {
    throw new Error(`No nuclei templates directory at ${root}: run \`rampart templates sync\`, or name one with --dir or RAMPART_NUCLEI_TEMPLATES.`);
  }
  const loaded = await loadTemplates(root);
  const reasons = new Map<string, { templates: number; example: string }>();
  for (const failure of loaded.failures) {
    const key = reasonKey(failure.reason);
    const entry = reasons.get(key) ?? { templates: 0, example: failure.path };
    entry.templates++;
    reasons.set(key, entry);
  }
  const signatures: Record<SignatureVerdict, number> = { verified: 0, unsigned: 0, invalid: 0 };
  for (const file of [...loaded.templates.map((t) => t.path), ...loaded.failures.map((f) => f.path)]) {
    const content = await readFile(path.join(root, file)).catch(() => null);
    if (content) signatures[verifyTemplateSignature(content)]++;
  }
  const coverage = summarizeCoverage(loaded.templates, SUPPORTED_FEATURES);
  return {
    directory: root,
    sync: await readSyncManifest(root),
    files: loaded.templates.length + loaded.failures.length,
    parsed: loaded.templates.length,
    failures: {
      total: loaded.failures.length,
      byReason: [...reasons].map(([reason, e]) => ({ reason, ...e })).sort((a, b) => b.templates - a.templates).slice(0, TOP_REASONS),
    },
    signatures,
    defaultSet: coverage.defaultSet,
    executable: coverage.executable,
    share: coverage.share,
    blockers: coverage.blockers,
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}

/** The check as lines for a person. */
export function formatTemplatesCheck(check: TemplatesCheck): string[] {
  const n = (value: number) => value.toLocaleString('en-US');
  const lines = [`templates: ${check.directory}`];
  if (check.sync) lines.push(`release: ${check.sync.release} (synced ${check.sync.syncedAt})`);
  lines.push(`files: ${n(check.files)}, parsed: ${n(check.parsed)}, failed: ${n(check.failures.total)}`);
  for (const f of check.failures.byReason) lines.push(`  ${n(f.templates)} x ${f.reason} (e.g. ${f.example})`);
  const s = check.signatures;
  lines.push(`signatures: ${n(s.verified)} verified, ${n(s.unsigned)} unsigned, ${n(s.invalid)} invalid`);
  lines.push(`default set: ${n(check.defaultSet)} templates`);
  lines.push(`executable by the built-in engine: ${n(check.executable)} (${(100 * check.share).toFixed(1)}% of the default set)`);
  if (check.blockers.length > 0) {
    lines.push('blocking features (default-set templates each blocks):');
    for (const b of check.blockers.slice(0, TOP_BLOCKERS)) lines.push(`  ${b.feature}: ${n(b.templates)}`);
    if (check.blockers.length > TOP_BLOCKERS) lines.push(`  ... ${check.blockers.length - TOP_BLOCKERS} more (--json lists them all)`);
  }
  lines.push(`checked in ${check.seconds} s`);
  return lines;
}
