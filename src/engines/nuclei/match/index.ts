/**
 * Nuclei matchers and extractors, pure: compile a block's operators once, build the event data
 * of a response, execute. Nothing here sends a request.
 */
export * from './types.js';
export { compileGoRegex } from './re2.js';
export { buildHttpEvent, indexEvent, mergeEvents, normalizeKey, resolvePart, type HttpResponseModel } from './response-event.js';
export { compileMatcher, runMatcher, type CompiledMatcher, type MatcherOutcome } from './matchers.js';
export { compileExtractor, runExtractor, type CompiledExtractor, type ExtractorDeps } from './extractors.js';
export { loadJsonQuery, type JsonQuery } from './json-query.js';
export { compileOperators, executeOperators, type CompiledOperators, type OperatorsResult } from './operators.js';
