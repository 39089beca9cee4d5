/**
 * Loads a directory of nuclei templates: every `.yaml` below it, parsed with bounded concurrency,
 * into templates and failures. A file that cannot be read or parsed becomes a failure naming it;
 * nothing is thrown past the loader except for an unreadable root directory.
 *
 * `loadTemplatesCached` keeps one result per directory in process, reused while the fingerprint of
 * the directory (every `.yaml` path with its mtime and size) is unchanged, so a worker parses once.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { isTemplateFailure, parseTemplate } from './parse-template.js';
import type { Template, TemplateFailure } from './template.types.js';

/** What a load gives. */
export interface LoadedTemplates {
  directory: string;
  templates: Template[];
  failures: TemplateFailure[];
  /** Identifies the directory's contents: equal fingerprints, same files (path, mtime, size). */
  fingerprint: string;
}

/** Options of a load. */
export interface LoadOptions {
  /** Files read and parsed at once (default 16). */
  concurrency?: number;
}

interface FileEntry {
  relative: string;
  absolute: string;
  mtimeMs: number;
  size: number;
}

/** Every `.yaml` file below the directory, sorted by relative path (`/` separators). */
async function listYamlFiles(directory: string): Promise<FileEntry[]> {
  // `recursive` returns relative paths (strings) on Node >= 20.1; Dirent.parentPath is not needed.
  const names = (await readdir(directory, { recursive: true })).filter((n) => n.toLowerCase().endsWith('.yaml')).sort();
  const entries: FileEntry[] = [];
  await runBounded(names, 64, async (name) => {
    const absolute = path.join(directory, name);
    try {
      const s = await stat(absolute);
      if (s.isFile()) entries.push({ relative: name.split(path.sep).join('/'), absolute, mtimeMs: s.mtimeMs, size: s.size });
    } catch {
      // Removed between listing and stat: not part of this load.
    }
  });
  return entries.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
}

function fingerprintOf(entries: FileEntry[]): string {
  const hash = createHash('sha256');
  for (const e of entries) hash.update(`${e.relative}\0${e.mtimeMs}\0${e.size}\n`);
  return hash.digest('hex');
}

/** Runs `work` over items with at most `limit` in flight. */
async function runBounded<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

async function loadEntries(directory: string, entries: FileEntry[], fingerprint: string, options: LoadOptions): Promise<LoadedTemplates> {
  const results: Array<Template | TemplateFailure> = new Array(entries.length);
  await runBounded(entries, options.concurrency ?? 16, async (entry, index) => {
    try {
      results[index] = parseTemplate(await readFile(entry.absolute, 'utf8'), entry.relative);
    } catch (error) {
      results[index] = { path: entry.relative, reason: `read error: ${(error as NodeJS.ErrnoException).code ?? String(error)}` };
    }
  });
  const templates: Template[] = [];
  const failures: TemplateFailure[] = [];
  for (const r of results) (isTemplateFailure(r) ? failures : templates).push(r as never);
  return { directory, templates, failures, fingerprint };
}

/** Loads every `.yaml` below a directory (no cache). */
export async function loadTemplates(directory: string, options: LoadOptions = {}): Promise<LoadedTemplates> {
  const root = path.resolve(directory);
  const entries = await listYamlFiles(root);
  return loadEntries(root, entries, fingerprintOf(entries), options);
}

const cache = new Map<string, Promise<LoadedTemplates>>();

/**
 * Loads a directory once per process: later calls list and stat the files again (cheap) and reuse
 * the parsed result while the fingerprint matches; a changed directory is loaded again. Concurrent
 * calls share one load.
 */
export async function loadTemplatesCached(directory: string, options: LoadOptions = {}): Promise<LoadedTemplates> {
  const root = path.resolve(directory);
  const entries = await listYamlFiles(root);
  const fingerprint = fingerprintOf(entries);
  const cached = cache.get(root);
  if (cached) {
    const previous = await cached.catch(() => undefined);
    if (previous?.fingerprint === fingerprint) return previous;
  }
  const loading = loadEntries(root, entries, fingerprint, options);
  cache.set(root, loading);
  loading.catch(() => {
    if (cache.get(root) === loading) cache.delete(root);
  });
  return loading;
}

/** Forgets every cached load (tests, or a templates sync). */
export function clearTemplateCache(): void {
  cache.clear();
}
