/**
 * CPE 2.3 names and version comparison, and the rule deciding whether an NVD match criterion
 * covers a product version a scan found.
 *
 * Version comparison (`compareVersions`):
 * - Versions are compared case-insensitively, as tokens: split on `.`, `-`, `_`, `+` and `~`, then
 *   at each boundary between digits and letters (`9.6p1` -> 9, 6, p, 1; `r22` -> r, 22).
 * - Two numbers compare numerically (leading zeros ignored: `2.4.049` = `2.4.49`).
 * - Pre-release words (`dev` < `alpha`/`a` < `beta`/`b` < `pre` < `rc`) sort before the release
 *   they precede and before any other token: `1.0rc1` < `1.0` < `1.0.1`.
 * - Any other word is a post-release marker (`p1` of OpenSSH portable, OpenSSL's `1.0.2k`): it
 *   sorts after the release it follows (`9.6` < `9.6p1` < `9.6p2`) but before a further numeric
 *   segment (`9.6p1` < `9.6.1`). Two such words compare alphabetically.
 * - When one version runs out of tokens, trailing zeros are ignored (`1.0` = `1.0.0`), a following
 *   pre-release word makes the longer one smaller, and anything else makes it greater.
 * - Versions of different schemes — one starting with a number, the other with a word that is not
 *   a pre-release (`1.20.0` against NGINX Plus `r22`) — are incomparable: `null`.
 * - `*` (any) and `-` (not applicable) are not versions: `criterionCovers` deals with them
 *   before comparing anything.
 */

/** The eleven attributes of a CPE 2.3 name, unescaped and lower-cased; `*` is ANY, `-` is NA. */
export interface Cpe {
  part: string;
  vendor: string;
  product: string;
  version: string;
  update: string;
  edition: string;
  language: string;
  swEdition: string;
  targetSw: string;
  targetHw: string;
  other: string;
}

const ATTRIBUTES = ['part', 'vendor', 'product', 'version', 'update', 'edition', 'language', 'swEdition', 'targetSw', 'targetHw', 'other'] as const;

/**
 * Parses a CPE 2.3 formatted string (`cpe:2.3:a:openbsd:openssh:9.6:p1:*:*:*:*:*:*`); missing
 * trailing attributes count as `*`. Also accepts a CPE 2.2 URI (`cpe:/a:openbsd:openssh:9.6p1`).
 * Returns null when the text is not a CPE name.
 */
export function parseCpe(text: string): Cpe | null {
  let values: string[];
  if (text.startsWith('cpe:2.3:')) {
    values = splitEscaped(text.slice('cpe:2.3:'.length)).map(unescapeValue);
  } else if (text.startsWith('cpe:/')) {
    values = text
      .slice('cpe:/'.length)
      .split(':')
      .map((v) => (v === '' ? '*' : safeDecode(v)));
  } else {
    return null;
  }
  if (values.length < 3 || values.length > ATTRIBUTES.length) return null;
  const cpe = {} as Cpe;
  ATTRIBUTES.forEach((name, i) => {
    const value = (values[i] ?? '*').toLowerCase();
    cpe[name] = value === '' ? '*' : value;
  });
  if (!/^[aoh*]$/.test(cpe.part) || cpe.vendor === '*' || cpe.product === '*') return null;
  return cpe;
}

/** Splits on colons not escaped by a backslash. */
function splitEscaped(text: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\' && i + 1 < text.length) {
      current += ch + text[i + 1];
      i++;
    } else if (ch === ':') {
      out.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  out.push(current);
  return out;
}

function unescapeValue(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

type Token = number | string;

const PRE_RELEASE: Record<string, number> = { dev: 0, alpha: 1, a: 1, beta: 2, b: 2, pre: 3, preview: 3, rc: 4 };

function tokenize(version: string): Token[] {
  const tokens: Token[] = [];
  for (const piece of version.toLowerCase().split(/[.\-_+~]/)) {
    for (const part of piece.match(/\d+|[a-z]+/g) ?? []) {
      tokens.push(/^\d/.test(part) ? Number(part) : part);
    }
  }
  return tokens;
}

function isPreRelease(token: Token | undefined): boolean {
  return typeof token === 'string' && token in PRE_RELEASE;
}

/** Compares two versions by the rules above: negative, 0 or positive; null when incomparable. */
export function compareVersions(a: string, b: string): number | null {
  const left = tokenize(a);
  const right = tokenize(b);
  const l0 = left[0];
  const r0 = right[0];
  if (l0 !== undefined && r0 !== undefined && typeof l0 !== typeof r0 && !isPreRelease(l0) && !isPreRelease(r0)) return null;
  const length = Math.max(left.length, right.length);
  for (let i = 0; i < length; i++) {
    const x = left[i];
    const y = right[i];
    if (x === undefined) {
      const longer = restSign(right.slice(i));
      return longer === 0 ? 0 : -longer;
    }
    if (y === undefined) return restSign(left.slice(i));
    const order = compareTokens(x, y);
    if (order !== 0) return order;
  }
  return 0;
}

/** The sign the remaining tokens of the longer version give it over the shorter one. */
function restSign(rest: Token[]): number {
  if (isPreRelease(rest[0])) return -1;
  return rest.every((t) => t === 0) ? 0 : 1;
}

function compareTokens(x: Token, y: Token): number {
  if (typeof x === 'number' && typeof y === 'number') return Math.sign(x - y);
  if (typeof x === 'string' && typeof y === 'string') {
    const px = PRE_RELEASE[x];
    const py = PRE_RELEASE[y];
    if (px !== undefined && py !== undefined) return Math.sign(px - py);
    if (px !== undefined) return -1;
    if (py !== undefined) return 1;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  // A number against a word: a pre-release word is older, a post-release word too (`9.6p1` < `9.6.1`).
  return typeof x === 'number' ? 1 : -1;
}

/** An NVD `cpeMatch` entry: the criteria name and the optional version bounds. */
export interface MatchCriterion {
  criteria: string;
  versionStartIncluding?: string | null;
  versionStartExcluding?: string | null;
  versionEndIncluding?: string | null;
  versionEndExcluding?: string | null;
}

/**
 * The product a scan found, ready for matching: an OpenSSH-style version with its portable
 * suffix in the version field (`9.6p1`, update unknown) is split into version `9.6` and update
 * `p1`, which is how NVD writes it (`openssh:9.6:p1`).
 */
export function normaliseTarget(cpe: Cpe): Cpe {
  const split = /^(\d+(?:\.\d+)*)(p\d+)$/.exec(cpe.version);
  if (split && (cpe.update === '*' || cpe.update === '-')) return { ...cpe, version: split[1]!, update: split[2]! };
  return cpe;
}

/**
 * Whether a match criterion covers the target (both parsed; normalise the target first).
 *
 * - Part, vendor and product must be equal.
 * - Every other attribute but the version (update, edition, language, sw_edition, target_sw,
 *   target_hw, other) matches when the criterion says `*`, when the target does not know it
 *   (`*`: a banner rarely tells, so we prefer reporting to missing), or when both are equal.
 *   Hence `openssh:*:p2` (CVE-2016-6210) covers `7.2:p2` and not `7.2:p1`, and `openssh:4.4:-`
 *   covers `4.4` and not `4.4:p1`.
 * - nginx's `target_sw`: `open_source`, `plus` and `open_source_subscription` name different
 *   products with different version schemes. A target whose target_sw is known matches only
 *   criteria with that target_sw or `*`; a target that leaves it `*` is compared against all of
 *   them, and the NGINX Plus versions (`r22`-`r27`, `r1`) are incomparable with `1.20.0`, so a
 *   plain nginx version meets only the open-source entries.
 * - A criterion with a concrete version matches an equal version (by `compareVersions`). A
 *   criterion with version `*` matches within its bounds (both ends optional); bounds compare
 *   the version field alone, the update being checked above. Incomparable versions never match.
 * - A target without a version (`*` or `-`) matches only criteria that cover every version.
 */
export function criterionCovers(criterion: MatchCriterion, target: Cpe): boolean {
  const c = parseCpe(criterion.criteria);
  if (!c) return false;
  if (c.part !== target.part && target.part !== '*') return false;
  if (c.vendor !== target.vendor || c.product !== target.product) return false;
  for (const name of ['update', 'edition', 'language', 'swEdition', 'targetSw', 'targetHw', 'other'] as const) {
    if (c[name] !== '*' && target[name] !== '*' && c[name] !== target[name]) return false;
  }
  const bounds = [criterion.versionStartIncluding, criterion.versionStartExcluding, criterion.versionEndIncluding, criterion.versionEndExcluding];
  const unbounded = c.version === '*' && bounds.every((b) => !b);
  if (target.version === '*' || target.version === '-') return unbounded;
  if (unbounded) return true;
  if (c.version === '-') return false;
  if (c.version !== '*') return compareVersions(target.version, c.version) === 0;
  return (
    within(target.version, criterion.versionStartIncluding, (o) => o >= 0) &&
    within(target.version, criterion.versionStartExcluding, (o) => o > 0) &&
    within(target.version, criterion.versionEndIncluding, (o) => o <= 0) &&
    within(target.version, criterion.versionEndExcluding, (o) => o < 0)
  );
}

function within(version: string, bound: string | null | undefined, test: (order: number) => boolean): boolean {
  if (!bound) return true;
  const order = compareVersions(version, bound);
  return order !== null && test(order);
}
