/**
 * Just enough JavaScript lexing for the XSS check to tell where a reflection sits in a script (in
 * a string literal, a comment, a regular expression, or in code), and whether a script the page
 * now carries is valid JavaScript at all: a payload in code that breaks the script's syntax never
 * runs, so it is not a finding.
 */
import vm from 'node:vm';

/** Where an offset of a script falls. */
export type JsState = 'code' | 'single' | 'double' | 'template' | 'line-comment' | 'block-comment' | 'regex';

/** Characters after which a `/` starts a regular expression rather than a division. */
const BEFORE_REGEX = new Set(['', '(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '+', '-', '*', '%', '<', '>', '~', '^']);
const KEYWORDS_BEFORE_REGEX = /(?:^|[^\w$])(?:return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await)$/;

/** The lexical state at `index` of `source` (the state of the character at `index`). */
export function jsStateAt(source: string, index: number): JsState {
  let state: JsState = 'code';
  // Open `${` of template literals, each with the brace depth of code inside it.
  const templates: number[] = [];
  let depth = 0;
  let inClass = false;
  let last = '';
  for (let i = 0; i < index && i < source.length; i++) {
    const c = source[i] ?? '';
    const next = source[i + 1];
    const before: JsState = state;
    switch (state) {
      case 'code':
        if (c === "'") state = 'single';
        else if (c === '"') state = 'double';
        else if (c === '`') state = 'template';
        else if (c === '/' && next === '/') state = 'line-comment';
        else if (c === '/' && next === '*') {
          state = 'block-comment';
          i++;
        } else if (c === '/' && (BEFORE_REGEX.has(last) || KEYWORDS_BEFORE_REGEX.test(source.slice(Math.max(0, i - 12), i).trimEnd()))) {
          state = 'regex';
          inClass = false;
        } else if (c === '{') depth++;
        else if (c === '}') {
          if (templates.length > 0 && depth === templates[templates.length - 1]) {
            templates.pop();
            state = 'template';
          } else depth--;
        }
        break;
      case 'single':
      case 'double':
        if (c === '\\') i++;
        else if ((state === 'single' && c === "'") || (state === 'double' && c === '"') || c === '\n') state = 'code';
        break;
      case 'template':
        if (c === '\\') i++;
        else if (c === '`') state = 'code';
        else if (c === '$' && next === '{') {
          templates.push(depth);
          state = 'code';
          i++;
        }
        break;
      case 'line-comment':
        if (c === '\n') state = 'code';
        break;
      case 'block-comment':
        if (c === '*' && next === '/') {
          state = 'code';
          i++;
        }
        break;
      case 'regex':
        if (c === '\\') i++;
        else if (c === '[') inClass = true;
        else if (c === ']') inClass = false;
        else if ((c === '/' && !inClass) || c === '\n') state = 'code';
        break;
    }
    // What a following `/` means depends on the last significant token of code: a value (a name,
    // a number, a closing bracket, a literal) makes it a division, anything else a regex.
    if (before === 'code' && state === 'code' && !/\s/.test(c)) last = /[\w$)\]]/.test(c) ? 'value' : c;
    else if (before === 'template' && state === 'code') last = '{';
    else if (before !== 'code' && before !== 'line-comment' && before !== 'block-comment' && state === 'code') last = 'value';
  }
  return state;
}

/** Whether `source` compiles as a classic script (compiled only, never run). */
export function compilesAsScript(source: string): boolean {
  try {
    new vm.Script(source);
    return true;
  } catch {
    return false;
  }
}

/** Whether `body` compiles as the body of an event handler attribute (a function body). */
export function compilesAsHandler(body: string): boolean {
  return compilesAsScript(`(function (event) {\n${body}\n})`);
}

/**
 * Whether `code` occurs in `source` as code (not inside a string, comment or regular expression)
 * in a script that compiles: what a browser would run.
 */
export function runsAsCode(source: string, code: string, compiles: (source: string) => boolean): boolean {
  for (let at = source.indexOf(code); at !== -1; at = source.indexOf(code, at + 1)) {
    if (jsStateAt(source, at) === 'code') return compiles(source);
  }
  return false;
}
