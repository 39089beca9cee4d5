/**
 * What every importer shares: its input (a byte stream), its result (the tool as the file names
 * it, and the events it yields lazily), and the small helpers that keep the mapping faithful —
 * unknown fields go into the evidence as an "other fields" block, never dropped.
 *
 * Importers double as the parsers of the future drivers of the same tools, so like every engine
 * they import only `engines/engine.ts`, `src/shared` and npm packages.
 */
import type { EngineEvent, Finding } from '../engine.js';
import { AppError } from '../../shared/errors.js';

/** A file being read: Node's Readable, a web stream, or any async iterable of chunks. */
export type ImportSource = AsyncIterable<Uint8Array | string>;

/** The tool that wrote the file, as the file says, and the events it holds. */
export interface ImportedResults {
  engine: { name: string; version: string };
  /** Host and finding events (and log events for what was skipped); parse errors throw while iterating. */
  events: AsyncIterable<EngineEvent>;
}

/** A 422 naming what is wrong with the file. */
export function invalidFile(message: string): AppError {
  return new AppError('validation_failed', message);
}

/** Longest value kept per field in an "other fields" block (a response body can be megabytes). */
const MAX_OTHER_VALUE = 2_000;

/** A compact `other fields:` block of what a mapping did not use, so nothing is silently dropped. */
export function otherFields(entries: Iterable<[string, string]>): string {
  const lines: string[] = [];
  for (const [key, raw] of entries) {
    const value = raw.trim();
    if (value === '') continue;
    lines.push(`${key}=${value.length > MAX_OTHER_VALUE ? `${value.slice(0, MAX_OTHER_VALUE)}… (${value.length} characters)` : value}`);
  }
  return lines.length > 0 ? `other fields:\n${lines.join('\n')}` : '';
}

/** Joins evidence paragraphs, skipping empty ones. */
export function joinParagraphs(...parts: (string | false | null | undefined)[]): string {
  return parts.filter((p): p is string => typeof p === 'string' && p.trim() !== '').map((p) => p.trim()).join('\n\n');
}

/** A finding with the empty defaults filled in, so each importer states only what it knows. */
export function finding(fields: Partial<Finding> & Pick<Finding, 'hostname' | 'hostIp' | 'ruleId' | 'name' | 'threat'>): Finding {
  return {
    port: null,
    protocol: null,
    service: null,
    url: null,
    method: null,
    parameter: null,
    description: '',
    solution: '',
    cvssBase: null,
    cvssVector: null,
    cve: [],
    cwe: null,
    evidence: '',
    references: [],
    ...fields,
  };
}

/** "tcp" / "udp" or null for anything else (sctp, icmp, "general"). */
export function protocolOf(value: string | undefined | null): Finding['protocol'] {
  const p = (value ?? '').trim().toLowerCase();
  return p === 'tcp' || p === 'udp' ? p : null;
}

/** A port number 1-65535, or null. */
export function portOf(value: string | number | undefined | null): number | null {
  const n = typeof value === 'number' ? value : /^\d{1,5}$/.test((value ?? '').trim()) ? Number(value) : NaN;
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : null;
}

/** A finite number, or null (for "", "N/A", garbage). */
export function numberOf(value: string | number | undefined | null): number | null {
  if (value === null || value === undefined || (typeof value === 'string' && value.trim() === '')) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** CVE ids found in a text, upper-cased and de-duplicated in order. */
export function cveIdsIn(text: string): string[] {
  return [...new Set((text.match(/CVE-\d{4}-\d{4,}/gi) ?? []).map((c) => c.toUpperCase()))];
}

/** "CWE-79" from 79, "79", "cwe-79"; null for 0, -1, or anything else. */
export function cweOf(value: string | number | undefined | null): string | null {
  const m = /^(?:cwe-)?(\d+)$/i.exec(String(value ?? '').trim());
  return m && Number(m[1]) > 0 ? `CWE-${Number(m[1])}` : null;
}

/**
 * Pulls items from an iterator until `found` says the header is known (or the input ends), and
 * returns what was pulled with an iterable that replays it before the rest. Importers use it to
 * read the tool's version, which files write before their results.
 */
export async function readHeader<T>(items: AsyncIterator<T>, found: (item: T) => boolean, limit = 10_000): Promise<{ pulled: T[]; rest: AsyncIterable<T> }> {
  const pulled: T[] = [];
  while (pulled.length < limit) {
    const next = await items.next();
    if (next.done) break;
    pulled.push(next.value);
    if (found(next.value)) break;
  }
  const replay = [...pulled];
  const rest: AsyncIterable<T> = {
    async *[Symbol.asyncIterator]() {
      yield* replay;
      for (;;) {
        const next = await items.next();
        if (next.done) return;
        yield next.value;
      }
    },
  };
  return { pulled, rest };
}
