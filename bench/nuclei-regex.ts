/**
 * Worst-case regex times over the corpus: every regex of every matcher and extractor of the
 * templates in ../shared/third_party/nuclei-templates, run to completion (all matches, as an
 * extractor does) on hostile bodies a scanned server could send.
 * Run: npm run bench:nuclei-regex [-- --size=100000] [-- --before]
 * `--before` runs the JS translations on V8's backtracking engine instead of RE2 (how patterns were
 * matched before), in a child process killed when one pattern runs past --cap ms (default 2000).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { compileGoRegex, findAllSubmatches } from '../src/engines/nuclei/match/re2.js';
import { SHARED_DIR } from '../test/helpers/shared.js';

const ROOT = path.join(SHARED_DIR, 'third_party', 'nuclei-templates');
const option = (name: string, fallback: number): number => {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.slice(name.length + 3)) : fallback;
};
const SIZE = option('size', 20_000);
const CAP_MS = option('cap', 2000);

function* walk(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.name.endsWith('.yaml')) yield p;
  }
}

/** Distinct regex patterns of the corpus's matchers and extractors, with a template using each. */
function corpusPatterns(): Array<[string, string]> {
  const found = new Map<string, string>();
  for (const file of walk(ROOT)) {
    const doc = parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown> | null;
    for (const key of ['http', 'tcp', 'network', 'dns', 'ssl', 'headless']) {
      const blocks = doc?.[key];
      if (!Array.isArray(blocks)) continue;
      for (const b of blocks as Array<{ matchers?: Array<{ regex?: unknown[] }>; extractors?: Array<{ regex?: unknown[] }> }>) {
        for (const o of [...(b.matchers ?? []), ...(b.extractors ?? [])]) {
          for (const r of o.regex ?? []) if (typeof r === 'string' && !found.has(r)) found.set(r, path.relative(ROOT, file));
        }
      }
    }
  }
  return [...found];
}

/** Hostile bodies of SIZE characters (deterministic). */
function hostileBodies(): Record<string, string> {
  let seed = 7;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pieces = ['<div class="a">', '</div>', '<a href="/x?id=1">', 'text ', '\n', '<script>var v=1;</script>', 'admin ', '1.2.3 ', '"key":"value",'];
  let html = '';
  while (html.length < SIZE) html += pieces[Math.floor(random() * pieces.length)];
  const fill = (unit: string): string => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);
  return { 'a*': fill('a'), 'A*': fill('A'), '0*': fill('0'), '<a href="': fill('<a href="'), 'spaces+newlines': fill(' \n'), 'x=': fill('x='), html };
}

function timeAll(re: RegExp, bodies: Record<string, string>): Array<[string, number]> {
  return Object.entries(bodies).map(([name, body]) => {
    const start = performance.now();
    findAllSubmatches(re, body);
    return [name, performance.now() - start];
  });
}

// The child of --before reads the parent's list: parsing the corpus again per restart is slow.
const listArg = process.argv.find((a) => a.startsWith('--patterns='));
const patterns = listArg ? (JSON.parse(readFileSync(listArg.slice(11), 'utf8')) as Array<[string, string]>) : corpusPatterns();
const bodies = hostileBodies();

if (process.argv.includes('--child')) {
  // Before: the same JS translation on V8's backtracking engine, as the engine matched until then.
  for (let i = option('from', 0); i < patterns.length; i++) {
    let re: RegExp;
    try {
      re = compileGoRegex(patterns[i]?.[0] ?? '');
    } catch {
      process.stdout.write(`${i}\t-1\n`);
      continue;
    }
    const worst = Math.max(...timeAll(new RegExp(re.source, re.flags), bodies).map(([, ms]) => ms));
    process.stdout.write(`${i}\t${worst}\n`);
  }
  process.exit(0);
}

/** Runs the child from `from` until it ends; a pattern still running after CAP_MS is cut off. */
function runBefore(list: string, from: number, worst: number[]): Promise<number> {
  return new Promise((resolve) => {
    const args = [fileURLToPath(import.meta.url), '--child', `--from=${from}`, `--size=${SIZE}`, `--patterns=${list}`];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let next = from;
    let buffer = '';
    let timer = setTimeout(() => child.kill('SIGKILL'), CAP_MS + 5000); // + time to load the corpus
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const [index, ms] = buffer.slice(0, nl).split('\t').map(Number);
        buffer = buffer.slice(nl + 1);
        worst[index ?? 0] = ms ?? 0;
        next = (index ?? 0) + 1;
        clearTimeout(timer);
        timer = setTimeout(() => child.kill('SIGKILL'), CAP_MS);
      }
    });
    child.on('exit', () => {
      clearTimeout(timer);
      if (next < patterns.length) worst[next] = Infinity;
      resolve(next + 1);
    });
  });
}

function report(title: string, rows: Array<[number, string, string]>): void {
  rows.sort((a, b) => b[0] - a[0]);
  const total = rows.reduce((sum, [ms]) => sum + (Number.isFinite(ms) ? ms : CAP_MS), 0);
  const over = (ms: number): number => rows.filter(([t]) => t > ms).length;
  console.log(`${title}: ${rows.length} patterns x ${Object.keys(bodies).length} bodies of ${SIZE} chars, total ${total.toFixed(0)} ms`);
  console.log(`  patterns over 100 ms: ${over(100)}, over 1 s: ${over(1000)}, killed at ${CAP_MS} ms: ${over(CAP_MS)}; worst 10:`);
  for (const [ms, where, p] of rows.slice(0, 10)) {
    console.log(`  ${Number.isFinite(ms) ? `${ms.toFixed(1)} ms` : `> ${CAP_MS} ms (killed)`}  ${where}  ${p.slice(0, 90)}`);
  }
}

if (process.argv.includes('--before')) {
  const dir = mkdtempSync(path.join(tmpdir(), 'nuclei-regex-'));
  const list = path.join(dir, 'patterns.json');
  writeFileSync(list, JSON.stringify(patterns));
  const worst: number[] = [];
  for (let from = 0; from < patterns.length; ) from = await runBefore(list, from, worst);
  rmSync(dir, { recursive: true });
  report('before (backtracking)', patterns.map(([p, file], i) => [worst[i] ?? -1, file, p]));
} else {
  let refused = 0;
  const rows: Array<[number, string, string]> = [];
  for (const [p, file] of patterns) {
    let re: RegExp;
    try {
      re = compileGoRegex(p);
    } catch {
      refused++;
      continue;
    }
    const [body, ms] = timeAll(re, bodies).reduce((a, b) => (b[1] > a[1] ? b : a));
    rows.push([ms, `${file} [${body}]`, p]);
  }
  if (refused > 0) console.log(`refused at compile: ${refused}`);
  report('after (RE2, re2js)', rows);
}
