/** `%term%` for LIKE/ILIKE with `%`, `_` and `\` in the term matching themselves (backslash is the default escape). */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
