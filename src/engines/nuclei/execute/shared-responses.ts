/**
 * The run's cache of shared responses (contract.ts `SharedResponses`): one per run, so identical
 * requests of different templates on one service (2,065 default-set templates fetch only
 * `{{BaseURL}}`) are sent once. A least-recently-used map of promises:
 * - an in-flight entry is shared too: a second template waits for the first one's answer;
 * - a settled failure is kept and shared like a value (the same request would fail the same way
 *   within one run; the host gate decides about the host, not this cache);
 * - bounded by an entry count and by the bytes of the settled values (`sizeOf`); the least recently
 *   used entries go first. An evicted in-flight entry still settles for those already waiting.
 */
import type { SharedResponses } from './contract.js';

/** Bounds of a cache; the defaults hold a run's worth of small pages. */
export interface SharedResponsesOptions {
  /** Entries kept; default 2000. */
  maxEntries?: number;
  /** Bytes of settled values kept (as `sizeOf` counts them); default 64 MiB. */
  maxBytes?: number;
  /** The size of a settled value; default: byte length of a `Uint8Array`/string, or of its `bytes` field, else 0. */
  sizeOf?: (value: unknown) => number;
}

interface Entry {
  promise: Promise<unknown>;
  /** Bytes counted for it once settled (0 while in flight or failed). */
  size: number;
}

/** The default size: the bytes a value carries, where it says (`bytes: number`, or a buffer). */
function defaultSizeOf(value: unknown): number {
  if (value instanceof Uint8Array) return value.byteLength;
  if (typeof value === 'string') return value.length;
  if (typeof value === 'object' && value !== null && 'bytes' in value) {
    const bytes = (value as { bytes: unknown }).bytes;
    if (typeof bytes === 'number') return bytes;
    if (bytes instanceof Uint8Array) return bytes.byteLength;
  }
  return 0;
}

/** Creates a bounded shared-response cache (see the module comment). */
export function createSharedResponses(options: SharedResponsesOptions = {}): SharedResponses {
  const maxEntries = options.maxEntries ?? 2000;
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const sizeOf = options.sizeOf ?? defaultSizeOf;
  const entries = new Map<string, Entry>();
  let totalBytes = 0;

  const evict = (): void => {
    for (const [key, entry] of entries) {
      if (entries.size <= maxEntries && totalBytes <= maxBytes) return;
      entries.delete(key);
      totalBytes -= entry.size;
    }
  };

  return {
    async get<T>(key: string, produce: () => Promise<T>): Promise<{ value: T; shared: boolean }> {
      const found = entries.get(key);
      if (found !== undefined) {
        // Most recently used goes last.
        entries.delete(key);
        entries.set(key, found);
        return { value: (await found.promise) as T, shared: true };
      }
      const promise = produce();
      const entry: Entry = { promise, size: 0 };
      entries.set(key, entry);
      evict();
      promise.then(
        (value) => {
          if (entries.get(key) !== entry) return;
          const size = sizeOf(value);
          // One value above the whole budget is not kept (it would evict everything else).
          if (size > maxBytes) {
            entries.delete(key);
            return;
          }
          entry.size = size;
          totalBytes += size;
          evict();
        },
        () => undefined,
      );
      return { value: await promise, shared: false };
    },
  };
}
