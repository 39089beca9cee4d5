/**
 * A streaming JSON reader (stream-json's tokenizer): the file is never parsed whole. An importer
 * names the values it wants as *records* by their path (a nuclei result is a top-level value or an
 * element of the top-level array; a ZAP alert is `site[i].alerts[j]`); only those are assembled,
 * one at a time. Scalars met outside records (a ZAP report's `@version`) are yielded as they come.
 * Several top-level values in a row (JSON Lines) are read as a sequence.
 */
import parser from 'stream-json/parser.js';
import { invalidFile } from './importer.js';

/** A JSON path: object keys and array indexes from the top-level value. */
export type JsonPath = readonly (string | number)[];

/** What the reader yields. */
export type JsonItem = { kind: 'record'; path: JsonPath; value: unknown } | { kind: 'scalar'; path: JsonPath; value: unknown };

/** Deepest nesting accepted (results nest a few levels; 25 MB of `[` would nest millions). */
const MAX_DEPTH = 256;

interface Token {
  name: string;
  value?: unknown;
}

interface Frame {
  /** The container being assembled, when inside a record. */
  value: Record<string, unknown> | unknown[] | null;
  isArray: boolean;
  key: string | number | null;
  /** Index of the next element (arrays). */
  next: number;
  record: boolean;
}

/** Reads JSON values from a byte stream; parse errors throw AppError('validation_failed'). */
export async function* readJson(source: AsyncIterable<Uint8Array | string>, isRecord: (path: JsonPath, kind: 'object' | 'array' | 'scalar') => boolean): AsyncGenerator<JsonItem> {
  const stream = parser.asStream({ jsonStreaming: true, packValues: true, streamValues: false });
  const tokens: Token[] = [];
  let failure: Error | null = null;
  stream.on('data', (t: Token) => tokens.push(t));
  // One listener for the whole read: a write whose chunk fails may never call back.
  let wake: (() => void) | null = null;
  stream.on('error', (e: Error) => {
    failure ??= e;
    wake?.();
  });
  const settle = (run: (done: () => void) => void): Promise<void> =>
    new Promise((resolve) => {
      wake = resolve;
      run(() => resolve());
    });

  const stack: Frame[] = [];
  const out: JsonItem[] = [];
  // The path of the value about to start, built from the open frames.
  const pathHere = (): (string | number)[] => {
    return stack.map((f) => f.key).filter((k): k is string | number => k !== null);
  };
  let pendingKey: string | null = null;
  const childKey = (): string | number | null => {
    const top = stack[stack.length - 1];
    if (!top) return null;
    if (top.isArray) return top.next++;
    return pendingKey;
  };
  const inRecord = (): boolean => stack.some((f) => f.record);
  const attach = (key: string | number | null, value: unknown): void => {
    const top = stack[stack.length - 1];
    if (!top?.value) return;
    if (Array.isArray(top.value)) top.value.push(value);
    else top.value[String(key)] = value;
  };
  const handle = (t: Token): void => {
    switch (t.name) {
      case 'keyValue':
        pendingKey = String(t.value);
        return;
      case 'startObject':
      case 'startArray': {
        const key = childKey();
        const isArray = t.name === 'startArray';
        const path = [...pathHere(), ...(key === null ? [] : [key])];
        const record = !inRecord() && isRecord(path, isArray ? 'array' : 'object');
        const building = inRecord() || record;
        const value = building ? (isArray ? [] : {}) : null;
        if (inRecord()) attach(key, value);
        if (stack.length >= MAX_DEPTH) throw invalidFile(`The JSON nests deeper than ${MAX_DEPTH} levels.`);
        stack.push({ value, isArray, key, next: 0, record });
        return;
      }
      case 'endObject':
      case 'endArray': {
        const frame = stack.pop()!;
        if (frame.record) out.push({ kind: 'record', path: [...pathHere(), ...(frame.key === null ? [] : [frame.key])], value: frame.value });
        return;
      }
      default: {
        if (!t.name.endsWith('Value')) return;
        const value = t.name === 'numberValue' ? Number(t.value) : t.value;
        const key = childKey();
        if (inRecord()) attach(key, value);
        else {
          const path = [...pathHere(), ...(key === null ? [] : [key])];
          out.push(isRecord(path, 'scalar') ? { kind: 'record', path, value } : { kind: 'scalar', path, value });
        }
      }
    }
  };

  const drain = function* (): Generator<JsonItem> {
    for (const t of tokens.splice(0)) handle(t);
    yield* out.splice(0);
  };
  for await (const chunk of source) {
    await settle((done) => stream.write(chunk, () => done()));
    if (failure) throw invalidFile(`The JSON is not valid: ${(failure as Error).message}.`);
    yield* drain();
  }
  await settle((done) => stream.end(() => done()));
  if (failure) throw invalidFile(`The JSON is not valid: ${(failure as Error).message}.`);
  yield* drain();
  if (stack.length > 0) throw invalidFile('The JSON ends before its last value is complete.');
}
