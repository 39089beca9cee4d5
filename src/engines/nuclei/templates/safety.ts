/**
 * Safety classification: which templates may ever run, which need an opt-in, and which belong to
 * the default set of ../shared/reference/nuclei.md section 7.
 */
import type { Template } from './template.types.js';

/** Protocols that run code or a browser or read files on the scanner host: never executed. */
export const NEVER_RUN_PROTOCOLS: readonly string[] = ['code', 'headless', 'javascript', 'file'];

/** Protocols the engine targets (the reference's "http/tcp/ssl/dns section"). */
export const NETWORK_PROTOCOLS: readonly string[] = ['http', 'tcp', 'ssl', 'dns'];

/** Options a deployment sets. */
export interface SafetyOptions {
  /** Run templates with `unsafe: true` (raw requests sent byte for byte, unnormalised). */
  allowUnsafe?: boolean;
}

/** The verdict on one template. */
export interface SafetyVerdict {
  /** True when the template may run under the options. */
  allowed: boolean;
  /** True when the template is in the default set (whatever the options). */
  inDefaultSet: boolean;
  /** Why it may not run, or why it is outside the default set; empty when neither applies. */
  reasons: string[];
}

function isDast(t: Template): boolean {
  return t.http.some((b) => b.fuzzing);
}

function isSelfContained(t: Template): boolean {
  return t.selfContained || t.http.some((b) => b.selfContained);
}

/**
 * The reference's default set: a template with an http, tcp, ssl or dns section, minus those that
 * need an opt-in flag in nuclei (self-contained, DAST, headless, code, file). Workflows have no such
 * section, so they are outside too. Note the default set still holds javascript and `unsafe`
 * templates (the reference counts them as blockers, 11 and 59): `classifyTemplateSafety` refuses them.
 */
export function isInDefaultSet(t: Template): boolean {
  if (!t.protocols.some((p) => NETWORK_PROTOCOLS.includes(p))) return false;
  if (isSelfContained(t) || isDast(t)) return false;
  return !t.protocols.some((p) => p === 'headless' || p === 'code' || p === 'file');
}

/** Classifies a template: never-run protocols, the unsafe opt-in, and default-set membership. */
export function classifyTemplateSafety(t: Template, options: SafetyOptions = {}): SafetyVerdict {
  const reasons: string[] = [];
  for (const p of t.protocols) if (NEVER_RUN_PROTOCOLS.includes(p)) reasons.push(`${p} protocol is never run`);
  if (!options.allowUnsafe && t.http.some((b) => b.unsafe)) reasons.push('`unsafe: true` needs the unsafe opt-in');
  const inDefaultSet = isInDefaultSet(t);
  if (!inDefaultSet) {
    if (!t.protocols.some((p) => NETWORK_PROTOCOLS.includes(p))) reasons.push('no http, tcp, ssl or dns section');
    if (isSelfContained(t)) reasons.push('self-contained: not in the default set');
    if (isDast(t)) reasons.push('DAST (fuzzing): not in the default set');
    if (t.protocols.includes('workflows')) reasons.push('workflow: not in the default set');
  }
  return { allowed: reasons.length === 0, inDefaultSet, reasons };
}

/** HTTP methods that create, replace or delete what the server holds. */
const WRITING_METHODS = new Set(['PUT', 'DELETE', 'PATCH']);

/**
 * Whether a template sends a request that writes to or deletes from the scanned server (a PUT,
 * DELETE or PATCH, in a path block or a raw request's request line): a scan must leave nothing
 * behind, so these run only when a scan names them (selection.ts).
 */
export function sendsWritingRequests(t: Template): boolean {
  return t.http.some(
    (block) =>
      (block.path.length > 0 && WRITING_METHODS.has(block.method.toUpperCase())) ||
      block.raw.some((raw) => WRITING_METHODS.has(rawRequestMethod(raw))),
  );
}

/** The method of a raw request: the first word of its first line that is not blank nor an `@` annotation. */
function rawRequestMethod(raw: string): string {
  const line = raw.split(/\r?\n/).find((l) => l.trim() !== '' && !l.trim().startsWith('@')) ?? '';
  return /^\s*([A-Za-z]+)\s/.exec(line)?.[1]?.toUpperCase() ?? '';
}
