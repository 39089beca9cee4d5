/**
 * Regular expressions whose matching time is linear in the text, whatever the text: a scanned
 * server writes the bodies templates match, so a backtracking pattern on a hostile body would stall
 * the scanner (one corpus pattern ran for minutes on a 20 KB line). RE2, which nuclei uses, is linear.
 *
 * Two linear engines, chosen per pattern when it is compiled:
 * - V8's own: patterns its linear engine can run (no `i`/`u` flag, no lookaround nor backreference,
 *   bounded repeats of at most 16) stay plain JS RegExps; V8 runs them with its fast backtracking
 *   engine and switches to the linear one after `--regexp-backtracks-before-fallback` backtracks.
 * - re2js (a JavaScript port of RE2) for the others: a RegExp subclass whose `exec` matches with RE2
 *   itself, so `test`, `match`, `matchAll` and `replace` keep working on it.
 * See docs/DECISIONS.md, "nuclei: bounded regular expressions".
 */
import v8 from 'node:v8';
import { RE2JS } from 're2js';

// V8 reads these when it compiles and runs a regex, so setting them at load time is enough; they
// are process-wide, and only change speed: the linear engine gives the same matches.
v8.setFlagsFromString('--enable-experimental-regexp-engine');
v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');

/** Whether V8 can run a pattern in its linear engine (what the `l` flag accepts). */
export function v8CanRunLinear(source: string, flags: string): boolean {
  try {
    new RegExp(source, `${flags.replace(/[gy]/g, '')}l`);
    return true;
  } catch {
    return false;
  }
}

/** A RegExp matched by RE2 (re2js): linear time; `source`/`flags` are the JS translation. */
export class Re2RegExp extends RegExp {
  /** The compiled RE2 program (of the Go pattern as written). */
  readonly re2: RE2JS;
  private lastText: string | undefined;
  private lastMatcher: ReturnType<RE2JS['matcher']> | undefined;

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
    const matcher = this.matcherFor(text);
    if (start > text.length || !matcher.find(start) || (this.sticky && matcher.start() !== start)) {
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

  /** One matcher per text: `matchAll` calls exec once per match on the same string. */
  private matcherFor(text: string): ReturnType<RE2JS['matcher']> {
    if (this.lastText !== text || !this.lastMatcher) {
      this.lastMatcher = this.re2.matcher(text);
      this.lastText = text;
    }
    return this.lastMatcher;
  }
}

/**
 * A RegExp for the JS translation `source`/`flags` of the Go pattern `goPattern`, linear in the
 * text: a plain RegExp when V8's linear engine can take over, else one matched by RE2. Throws when
 * neither engine accepts the pattern.
 */
export function linearRegExp(source: string, flags: string, goPattern: string): RegExp {
  if (v8CanRunLinear(source, flags)) return new RegExp(source, flags);
  return new Re2RegExp(source, flags, RE2JS.compile(goPattern));
}

/** The same regex with other flags (e.g. `g` added), keeping its engine. */
export function withFlags(re: RegExp, flags: string): RegExp {
  return re instanceof Re2RegExp ? new Re2RegExp(re.source, flags, re.re2) : new RegExp(re.source, flags);
}
