/**
 * compare_versions(version, constraints...): hashicorp/go-version semantics. Constraints are joined
 * with "," and all must hold; operators = != > < >= <= ~> (none means =). A version with a
 * pre-release only satisfies ordered constraints whose version has one on the same segments.
 */
import { DslError, toText, type DslValue } from '../values.js';
import { INVALID_SIGNATURE, type FunctionTable } from './types.js';

const VERSION_RAW =
  'v?([0-9]+(\\.[0-9]+)*?)(-([0-9]+[0-9A-Za-z\\-~]*(\\.[0-9A-Za-z\\-~]+)*)|(-?([A-Za-z\\-~]+[0-9A-Za-z\\-~]*(\\.[0-9A-Za-z\\-~]+)*)))?(\\+([0-9A-Za-z\\-~]+(\\.[0-9A-Za-z\\-~]+)*))?';
const VERSION = new RegExp(`^${VERSION_RAW}$`);
const CONSTRAINT = new RegExp(`^\\s*(=|!=|>=|<=|>|<|~>)?\\s*(${VERSION_RAW})\\s*$`);

/** A parsed version: numeric segments (padded to three), how many were written, pre-release. */
interface Version { segments: bigint[]; written: number; pre: string }

/** go-version's NewVersion; undefined when malformed. */
export function parseVersion(text: string): Version | undefined {
  const match = VERSION.exec(text.trim());
  if (!match) return undefined;
  const segments = (match[1] as string).split('.').map((part) => BigInt(part));
  const written = segments.length;
  while (segments.length < 3) segments.push(0n);
  return { segments, written, pre: match[7] ?? match[4] ?? '' };
}

function comparePreRelease(a: string, b: string): number {
  if (a === b) return 0;
  if (a === '') return 1;
  if (b === '') return -1;
  const left = a.split('.');
  const right = b.split('.');
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = left[i];
    const y = right[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const xNum = /^\d+$/.test(x);
    const yNum = /^\d+$/.test(y);
    if (xNum && yNum) return BigInt(x) < BigInt(y) ? -1 : 1;
    if (xNum !== yNum) return xNum ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** -1, 0 or 1 as go-version's Compare (metadata ignored). */
export function compareVersions(a: Version, b: Version): number {
  const length = Math.max(a.segments.length, b.segments.length);
  for (let i = 0; i < length; i++) {
    const x = a.segments[i] ?? 0n;
    const y = b.segments[i] ?? 0n;
    if (x !== y) return x < y ? -1 : 1;
  }
  return comparePreRelease(a.pre, b.pre);
}

function preReleaseAllows(v: Version, c: Version): boolean {
  if (c.pre !== '' && v.pre !== '') return v.segments.join('.') === c.segments.join('.');
  return !(c.pre === '' && v.pre !== '');
}

function check(operator: string, v: Version, c: Version): boolean {
  const order = compareVersions(v, c);
  switch (operator) {
    case '': case '=': return order === 0;
    case '!=': return order !== 0;
    case '>': return preReleaseAllows(v, c) && order > 0;
    case '<': return preReleaseAllows(v, c) && order < 0;
    case '>=': return preReleaseAllows(v, c) && order >= 0;
    case '<=': return preReleaseAllows(v, c) && order <= 0;
    default: { // ~>: at least c, and the same leading segments but the last written one
      if (!preReleaseAllows(v, c) || (c.pre !== '' && v.pre === '') || order < 0) return false;
      for (let i = 0; i < c.written - 1; i++) if (v.segments[i] !== c.segments[i]) return false;
      return true;
    }
  }
}

/** compare_versions as upstream: a DslError for a malformed version or constraint. */
function compare(args: DslValue[]): DslValue | DslError {
  if (args.length < 2) return new DslError(INVALID_SIGNATURE);
  const version = parseVersion(toText(args[0]));
  if (!version) return new DslError(`error parsing argument value: Malformed version: ${toText(args[0])}`);
  const parsed: Array<[string, Version]> = [];
  for (const text of args.slice(1).map(toText).join(',').split(',')) {
    const match = CONSTRAINT.exec(text);
    const target = match ? parseVersion(match[2] as string) : undefined;
    if (!match || !target) return new DslError(`Malformed constraint: ${text}`);
    parsed.push([match[1] ?? '', target]);
  }
  return parsed.every(([operator, target]) => check(operator, version, target));
}

/** Version functions. */
export const VERSION_FUNCTIONS: FunctionTable = { compare_versions: { call: compare } };
