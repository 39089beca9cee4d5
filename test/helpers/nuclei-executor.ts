/** Shared setup of the nuclei network executor tests, on top of the http tests' helpers: real templates, a context, a service. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ExecutionContext, ServiceTarget } from '../../src/engines/nuclei/execute/contract.js';
import { isTemplateFailure, parseTemplate } from '../../src/engines/nuclei/templates/parse-template.js';
import type { Template } from '../../src/engines/nuclei/templates/template.types.js';
import { CORPUS, executionContext } from './nuclei-http.js';


/** The skip reason when the shared corpus is absent. */
export const skip = existsSync(CORPUS) ? false : `shared nuclei templates not found at ${CORPUS} (set RAMPART_SHARED_DIR)`;

/** A real template of the corpus. */
export function template(relative: string): Template {
  const parsed = parseTemplate(readFileSync(path.join(CORPUS, relative), 'utf8'), relative);
  if (isTemplateFailure(parsed)) throw new Error(`${relative}: ${parsed.reason}`);
  return parsed;
}

/** An execution context over the loopback egress and a permissive gate, exchanges bounded at 3 s. */
export function context(overrides: Partial<ExecutionContext> = {}): ExecutionContext {
  return executionContext({ timeoutMs: 3000, ...overrides });
}

/** A loopback service on `port` that does not speak HTTP (not TLS unless said). */
export function service(port: number, overrides: Partial<ServiceTarget> = {}): ServiceTarget {
  return { host: '127.0.0.1', address: '127.0.0.1', port, scheme: null, tls: false, basePath: '/', ...overrides };
}
