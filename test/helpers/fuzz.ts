/**
 * Seeded generators of malformed input for test/fuzz.test.ts: a small PRNG (so a failure
 * reproduces from its seed), hostile strings and JSON values, request bodies built from a route's
 * JSON Schema with some fields spoiled, and the route list of a Fastify `printRoutes()` tree.
 */

/** A deterministic source of choices (mulberry32). */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** Strings that have broken services before: NUL, controls, numbers out of range, traversal, odd Unicode. */
const NASTY = [
  '', ' ', '\u0000', 'a\u0000b', '%00', '\u0001\u0002\u001b[31m', '\r\n\r\nX-Injected: 1', '\t', '\u007f', '\u0085\u2028\u2029',
  '\ud800', 'a\udc00b', '\udbff\udfff', '\ufeff', '\u202e', '💥'.repeat(3), 'e\u0301', '\uffff',
  '-1', '0', '1.5', '2147483648', '-2147483649', '9007199254740993', '99999999999999999999', '1e400', '-1e400',
  'Infinity', '-Infinity', 'NaN', 'true', 'null', '[]', '{}', '0x10', '1_000',
  '../../../../etc/passwd', '..%2F..%2Fetc%2Fpasswd', '/', '\\..\\..\\windows', 'file:///etc/passwd',
  "' OR 1=1 --", '"; drop table users; --', '%', '%%', '%zz', '%ED%A0%80', '<script>alert(1)</script>', '{{7*7}}', '${7*7}',
  '__proto__', 'constructor', 'prototype', 'not-a-uuid', '00000000-0000-0000-0000-000000000000', 'ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ',
  'http://127.0.0.1/', 'https://169.254.169.254/latest/meta-data/', 'javascript:alert(1)', 'a@b', '@', 'a'.repeat(256),
] as const;

/** One hostile string; sometimes long (up to `maxLength` characters). */
export function nastyString(r: Random, maxLength = 20_000): string {
  switch (r.int(7)) {
    case 0:
      return r.pick(NASTY).repeat(1 + r.int(Math.max(1, Math.floor(maxLength / 64))));
    case 1:
      return Array.from({ length: 1 + r.int(40) }, () => String.fromCharCode(r.int(0x20))).join('');
    case 2:
      return `${r.pick(NASTY).slice(0, 40)}\u0000${r.pick(NASTY).slice(0, 40)}`;
    default:
      return r.pick(NASTY);
  }
}

/** Nested arrays or objects `depth` levels deep. */
export function deepNesting(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** A JSON value of any type, hostile where it can be. */
export function nastyValue(r: Random, depth = 0): unknown {
  switch (r.int(depth > 2 ? 7 : 10)) {
    case 0:
    case 1:
    case 2:
      return nastyString(r);
    case 3:
      return r.pick([-1, 0, 1.5, 2147483648, -2147483649, 9007199254740993, 1e300, -1e300, Number.MAX_VALUE, 5e-324]);
    case 4:
      return r.pick([true, false]);
    case 5:
      return null;
    case 6:
      return r.pick([[], {}, '']);
    case 7:
      return Array.from({ length: r.int(4) }, () => nastyValue(r, depth + 1));
    case 8:
      return Object.fromEntries(Array.from({ length: r.int(4) }, () => [nastyString(r, 64), nastyValue(r, depth + 1)]));
    default:
      return Array.from({ length: 200 + r.int(2000) }, () => nastyString(r, 64));
  }
}

/** JSON texts that JSON.stringify cannot produce: numbers beyond doubles, NaN, invalid syntax. */
export const RAW_JSON_VALUES = ['1e400', '-1e400', '123456789012345678901234567890', '-0', '1E+2', 'NaN', 'Infinity', '"\\ud800"', '"\\u0000"', '0x1F', "'single'", 'undefined', '01'];

type JsonSchema = Record<string, unknown>;

/** A plausible value for a schema (the first enum value, a valid-looking string), for fields left unspoiled. */
export function plausibleValue(schema: JsonSchema | undefined, r: Random, hints: Record<string, string>): unknown {
  if (!schema) return 'x';
  const types = ([] as unknown[]).concat(schema.type ?? (schema.anyOf ? (schema.anyOf as JsonSchema[])[0]?.type : 'string'));
  const type = types.find((t) => t !== 'null') ?? 'string';
  if (Array.isArray(schema.enum)) return r.pick(schema.enum.filter((v) => v !== null));
  switch (type) {
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return r.chance(0.5);
    case 'array':
      return [plausibleValue(schema.items as JsonSchema | undefined, r, hints)];
    case 'object':
      return plausibleObject(schema, r, hints);
    default:
      if (schema.format === 'email') return 'ops@example.com';
      if (schema.format === 'uuid') return hints.uuid ?? '00000000-0000-4000-8000-000000000000';
      return 'x';
  }
}

/** An object with every property of an object schema given a plausible value (hints by property name first). */
export function plausibleObject(schema: JsonSchema | undefined, r: Random, hints: Record<string, string>): Record<string, unknown> {
  const properties = (schema?.properties as Record<string, JsonSchema> | undefined) ?? {};
  const out: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) out[name] = hints[name] ?? plausibleValue(property, r, hints);
  return out;
}

/** A plausible object with one of its fields (sometimes up to three, or new ones) replaced by hostile values. */
export function spoiledObject(schema: JsonSchema | undefined, r: Random, hints: Record<string, string>): Record<string, unknown> {
  const out = plausibleObject(schema, r, hints);
  const names = Object.keys(out);
  for (let i = r.chance(0.7) ? 1 : 2 + r.int(2); i > 0; i--) {
    const name = names.length > 0 && r.chance(0.85) ? r.pick(names) : nastyString(r, 32);
    if (r.chance(0.1)) delete out[name];
    else out[name] = nastyValue(r);
  }
  return out;
}

/** Percent-encodes every byte of the UTF-8 text (a lone surrogate becomes U+FFFD, as any client would send it). */
export function encodeBytes(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

export interface RouteEntry {
  method: string;
  url: string;
}

/** The routes of `app.printRoutes({ commonPrefix: false })`: each line's segment joined to its parents'. */
export function parseRouteTree(tree: string): RouteEntry[] {
  const routes: RouteEntry[] = [];
  const stack: { depth: number; path: string }[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    while (stack.length > 0 && stack[stack.length - 1]!.depth >= depth) stack.pop();
    const path = `${stack[stack.length - 1]?.path ?? ''}${match[2]}`;
    stack.push({ depth, path });
    for (const method of (match[3] ?? '').split(', ').filter(Boolean)) routes.push({ method, url: path });
  }
  return routes;
}
