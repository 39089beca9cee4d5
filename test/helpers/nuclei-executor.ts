/** Shared setup of the nuclei executor tests: the corpus, real templates, a recording gate, a context, a service. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ExecutionContext, HostGate, ServiceTarget } from '../../src/engines/nuclei/execute/contract.js';
import { isTemplateFailure, parseTemplate } from '../../src/engines/nuclei/templates/parse-template.js';
import type { Template } from '../../src/engines/nuclei/templates/template.types.js';
import { LOOPBACK_EGRESS } from './egress.js';
import { SHARED_DIR } from './shared.js';

/** The shared community templates (read in place, never copied). */
export const CORPUS = path.join(SHARED_DIR, 'third_party', 'nuclei-templates');
/** The skip reason when the shared corpus is absent. */
export const skip = existsSync(CORPUS) ? false : `shared nuclei templates not found at ${CORPUS} (set RAMPART_SHARED_DIR)`;

/** A real template of the corpus. */
export function template(relative: string): Template {
  const parsed = parseTemplate(readFileSync(path.join(CORPUS, relative), 'utf8'), relative);
  if (isTemplateFailure(parsed)) throw new Error(`${relative}: ${parsed.reason}`);
  return parsed;
}

/** A gate that lets everything through and records what it was told. */
export function recordingGate(): HostGate & { errors: number; answers: number } {
  return {
    errors: 0,
    answers: 0,
    run: (_host, send) => send(),
    answered() {
      this.answers++;
    },
    networkError() {
      this.errors++;
    },
    isSkipped: () => false,
  };
}

/** An execution context over the loopback egress, a permissive gate, a 3 s bound and the corpus. */
export function context(overrides: Partial<ExecutionContext> = {}): ExecutionContext {
  return {
    egress: LOOPBACK_EGRESS,
    signal: new AbortController().signal,
    gate: recordingGate(),
    timeoutMs: 3000,
    templatesDir: CORPUS,
    vars: {},
    cache: { get: async (_key, produce) => ({ value: await produce(), shared: false }) },
    ...overrides,
  };
}

/** A loopback service on `port` (not TLS, no HTTP scheme). */
export function service(port: number, overrides: Partial<ServiceTarget> = {}): ServiceTarget {
  return { host: '127.0.0.1', address: '127.0.0.1', port, scheme: null, tls: false, basePath: '/', ...overrides };
}


