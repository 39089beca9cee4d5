/**
 * Regular expressions whose matching time is linear in the text, whatever the text: a scanned
 * server writes the bodies templates match, so a backtracking pattern on a hostile body would stall
 * the scanner (one corpus pattern ran for minutes on a 20 KB line). RE2, which nuclei uses, is linear;
 * re2js is a JavaScript port of it (no native code), and matches Go's syntax and semantics.
 * V8's own linear engine was measured and set aside: it refuses `i`, `u` and repeats over 16 (half
 * the corpus), and its fallback after excessive backtracks misses quadratic scans such as
 * `[a-z0-9-]+\.x` on a long run of digits. See docs/DECISIONS.md, "nuclei: bounded regular expressions".
 */
import { RE2JS } from 're2js';

/** A RegExp matched by RE2 (re2js): linear time; `source`/`flags` are the JS translation. */
export class Re2RegExp extends RegExp {
  /** The compiled RE2 program (of the Go pattern as written). */
  readonly re2: RE2JS;

  /** `source` may be another Re2RegExp: that is how `matchAll`/`replace` clone a regex. */
  constructor(source: string | RegExp, flags: string, re2?: RE2JS) {
    super(source, flags);
    const from = source instanceof Re2RegExp ? source.re2 : re2;
    if (!from) throw new TypeError('Re2RegExp needs a compiled RE2 pattern');
    this.re2 = from;
  }

  /** RegExp.prototype.exec semantics (lastIndex with `g`/`y`), matched by RE2. */
  override exec(text: string): RegExpExecArray | null {
    const advancing = this.global || this.sticky;
    const start = advancing ? this.lastIndex : 0;
    // Most bodies do not match most patterns: RE2's DFA says so without tracking groups. Asked at
    // the start of a text only (not per further match, which would make `matchAll` quadratic).
    const skip = start > text.length || (start === 0 && !this.re2.test(text));
    // A matcher per call (it only wraps the string): one kept on the regex would pin the last body.
    const matcher = skip ? undefined : this.re2.matcher(text);
    if (!matcher || !matcher.find(start) || (this.sticky && matcher.start() !== start)) {
      if (advancing) this.lastIndex = 0;
      return null;
    }
    const groups: Array<string | undefined> = [];
    for (let g = 0; g <= matcher.groupCount(); g++) groups.push(matcher.group(g) ?? undefined);
    const result = Object.assign(groups, { index: matcher.start(), input: text, groups: undefined }) as RegExpExecArray;
    const names = Object.entries(this.re2.namedGroups());
    if (names.length > 0) result.groups = Object.fromEntries(names.map(([name, g]) => [name, groups[g]])) as Record<string, string>;
    if (advancing) this.lastIndex = matcher.end();
    return result;
  }
}

/**
 * A RegExp for the JS translation `source`/`flags` of the Go pattern `goPattern`, matched by RE2
 * in linear time. Throws when RE2 refuses the pattern.
 */
export function linearRegExp(source: string, flags: string, goPattern: string): RegExp {
  return new Re2RegExp(source, flags, RE2JS.compile(goPattern));
}

/** The same regex with other flags (e.g. `g` added), keeping its engine. */
export function withFlags(re: RegExp, flags: string): RegExp {
  return re instanceof Re2RegExp ? new Re2RegExp(re.source, flags, re.re2) : new RegExp(re.source, flags);
}
