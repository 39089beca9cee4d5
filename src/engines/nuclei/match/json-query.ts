/**
 * jq queries of `json` extractors. Nuclei runs them with gojq; here the real jq (1.7, compiled
 * to WebAssembly by the `jq-web` package) runs them, so the corpus' pipes, `select`, `capture`,
 * string concatenation, `//` and `if` work as written instead of through a hand-made subset.
 * The WebAssembly module loads once, asynchronously (`loadJsonQuery`); after that queries are
 * synchronous. Values come out as nuclei prints them: strings as they are, other scalars in
 * JSON form, arrays and objects as compact JSON with sorted keys (Go's map marshalling).
 * Difference: when a query fails part-way, gojq keeps the values it produced before the error;
 * jq-web reports only the error, so such a query gives nothing.
 */
import { createRequire } from 'node:module';

/** Runs jq queries on a parsed JSON value. */
export interface JsonQuery {
  /** The values a query outputs, as text; an Error when the query fails or does not compile. */
  run(query: string, input: unknown): string[] | Error;
}

interface JqWeb {
  raw(input: string, filter: string, flags?: string[]): string;
}

let loading: Promise<JsonQuery> | undefined;

function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** Loads jq once; every later call returns the same engine. */
export function loadJsonQuery(): Promise<JsonQuery> {
  loading ??= (async () => {
    // Loaded untyped: the package ships no typings; its export is a promise of the module.
    const jq = (await (createRequire(import.meta.url)('jq-web') as Promise<JqWeb>)) satisfies JqWeb;
    return {
      run(query: string, input: unknown): string[] | Error {
        let out: string;
        try {
          out = jq.raw(JSON.stringify(input), query, ['-c', '-S']);
        } catch (error) {
          return error instanceof Error ? error : new Error(String(error));
        }
        if (out === undefined || out === '') return [];
        const values: string[] = [];
        for (const line of out.split('\n')) {
          if (line === '') continue;
          try {
            values.push(scalarText(JSON.parse(line) as unknown));
          } catch {
            values.push(line);
          }
        }
        return values;
      },
    };
  })();
  return loading;
}
