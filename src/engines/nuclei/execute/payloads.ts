/**
 * Payload sets of a block (`payloads:` + `attack:`), shared by the http and tcp executors
 * (nuclei `pkg/protocols/common/generators`): reading the sets (inline values or wordlist files
 * below the templates directory) and combining them under an attack type.
 *
 * Glossary:
 * - payload set: one name of `payloads:` and its values (`{{name}}` in a request).
 * - combination: one value per set (batteringram: one set at a time), i.e. one request.
 */
import { constants, type Stats } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { AttackType, PayloadSource } from '../templates/template.types.js';

/**
 * Combinations one block may produce; nuclei has no cap, but a clusterbomb of two wordlists can
 * reach millions of requests against one service. The default-set's largest blocks stay well below.
 */
export const MAX_PAYLOAD_COMBINATIONS = 2000;

/** Bytes read from one wordlist file; the helpers/ wordlists are far smaller. */
const MAX_WORDLIST_BYTES = 8 * 1024 * 1024;

/** A payload set that cannot be read: a wordlist outside the templates directory, or missing. */
export class PayloadError extends Error {
  override readonly name = 'PayloadError';
}

/**
 * The combinations of `sets` as nuclei's iterator yields them, at most MAX_PAYLOAD_COMBINATIONS:
 * - batteringram (the default): each value of each set alone, set after set (`{a: v}`);
 * - pitchfork: the i-th value of every set together, as long as the shortest set;
 * - clusterbomb: every combination, the first set varying fastest.
 * No sets, or a set without values, yields nothing (nuclei's Total() of 0).
 */
export function* combinePayloads(sets: Record<string, string[]>, attack: AttackType | undefined): Iterable<Record<string, string>> {
  const entries = Object.entries(sets);
  if (entries.length === 0) return;
  let produced = 0;
  const emit = (): boolean => ++produced <= MAX_PAYLOAD_COMBINATIONS;
  switch (attack ?? 'batteringram') {
    case 'batteringram':
      for (const [name, values] of entries) {
        for (const value of values) {
          if (!emit()) return;
          yield { [name]: value };
        }
      }
      return;
    case 'pitchfork': {
      const length = Math.min(...entries.map(([, values]) => values.length));
      for (let i = 0; i < length; i++) {
        if (!emit()) return;
        yield Object.fromEntries(entries.map(([name, values]) => [name, values[i]!]));
      }
      return;
    }
    case 'clusterbomb': {
      if (entries.some(([, values]) => values.length === 0)) return;
      // An odometer: index 0 is the least significant digit.
      const positions = entries.map(() => 0);
      for (;;) {
        if (!emit()) return;
        yield Object.fromEntries(entries.map(([name, values], i) => [name, values[positions[i]!]!]));
        let digit = 0;
        while (digit < entries.length) {
          positions[digit]! += 1;
          if (positions[digit]! < entries[digit]![1].length) break;
          positions[digit] = 0;
          digit += 1;
        }
        if (digit === entries.length) return;
      }
    }
  }
}

/** A wordlist read, and the file version it was read from (a templates sync replaces files). */
interface CachedWordlist {
  version: string;
  lines: Promise<string[]>;
}

/** Wordlists by real path: read once per file version (templates share helpers/ files). */
const wordlists = new Map<string, CachedWordlist>();

/** Files remembered before the cache starts again: far more than the helpers/ wordlists. */
const MAX_CACHED_WORDLISTS = 256;

/**
 * The values of each payload set: inline lists as they are; a multi-line string as its lines
 * (nuclei's inline form); a wordlist path read relative to `templatesDir`, its non-empty lines
 * (trailing CR dropped), cached per file version. Rejects with PayloadError for a path that leaves
 * `templatesDir` (absolute, `..`, or a symbolic link pointing out), that is not a regular file,
 * that is larger than the limit, or that cannot be read.
 */
export async function readPayloadSets(payloads: Record<string, PayloadSource>, templatesDir: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [name, source] of Object.entries(payloads)) {
    if (source.kind === 'values') out[name] = source.values;
    else if (source.path.includes('\n')) out[name] = source.path.split('\n');
    else out[name] = await readWordlist(source.path, templatesDir);
  }
  return out;
}

function outside(file: string): PayloadError {
  return new PayloadError(`payload wordlist "${file}" is outside the templates directory; refused.`);
}

function isInside(root: string, resolved: string): boolean {
  const relative = path.relative(root, resolved);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

function unreadable(file: string, error: unknown): PayloadError {
  return new PayloadError(`payload wordlist "${file}" cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
}

async function readWordlist(file: string, templatesDir: string): Promise<string[]> {
  const root = path.resolve(templatesDir);
  const resolved = path.resolve(root, file.trim());
  if (path.isAbsolute(file.trim()) || !isInside(root, resolved)) throw outside(file);
  // Links are followed first, then checked: a link in the templates directory may not lead out of it.
  let real: string;
  let stats: Stats;
  try {
    real = await realpath(resolved);
    if (!isInside(await realpath(root), real)) throw outside(file);
    stats = await stat(real);
  } catch (error) {
    throw error instanceof PayloadError ? error : unreadable(file, error);
  }
  if (!stats.isFile()) throw new PayloadError(`payload wordlist "${file}" is not a regular file; refused.`);
  if (stats.size > MAX_WORDLIST_BYTES) throw new PayloadError(`payload wordlist "${file}" is larger than ${MAX_WORDLIST_BYTES} bytes; refused.`);
  const version = `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
  const cached = wordlists.get(real);
  if (cached?.version === version) return cached.lines;
  if (wordlists.size >= MAX_CACHED_WORDLISTS) wordlists.clear();
  const lines = loadLines(real, stats.size, file);
  wordlists.set(real, { version, lines });
  // A failed read is not remembered: the file may be readable after a templates sync.
  lines.catch(() => {
    if (wordlists.get(real)?.lines === lines) wordlists.delete(real);
  });
  return lines;
}

/** Reads at most `size` bytes (the size checked): a file grown since is cut, never read past the limit. */
async function loadLines(real: string, size: number, file: string): Promise<string[]> {
  let text: string;
  try {
    // O_NONBLOCK: a file swapped for a FIFO since the check does not block the read.
    const handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const buffer = Buffer.alloc(size);
      let read = 0;
      while (read < size) {
        const { bytesRead } = await handle.read(buffer, read, size - read, read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
      text = buffer.subarray(0, read).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw unreadable(file, error);
  }
  return text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line)).filter((line) => line !== '');
}
